// The detonation in its sandbox image, on podman and on docker (with and without
// userns-remap): the image is imported from the very room bwrap binds (rooms/behavior.toml,
// scripts/build-room.py, then scripts/build-image.py), the engine's container and its default
// seccomp profile stand where bwrap stood, and the agent installs the same walls inside it.
// Issue 47's hostile packages must give there the findings, with their evidence, that they
// give under bwrap (hostile_packages.h); the probe must pass in the image with its /bin/sh,
// and the observer's own self-test must see all it sees under bwrap.
#include <gtest/gtest.h>

#include <memory>

#include "adapters/sandbox/oci.h"
#include "engines.h"
#include "hostile_packages.h"
#include "real_scanners.h"

namespace batlehub::adapters {
namespace {

using namespace batlehub::testing;

class BehaviorInImages : public ::testing::TestWithParam<TestEngine> {
 protected:
  void SetUp() override {
    if (auto why = engine_unavailable(GetParam()); !why.empty()) GTEST_SKIP() << why;
    rooms_ = s_.root() / "rooms";
    ASSERT_EQ(build_room_from(rooms_, "behavior", "behavior",
                              std::string("--binary ") + BATLEHUB_BEHAVIOR_BIN + ":/usr/local/bin/batlehub-behavior"),
              "");
    image_ = test_image_tag("behavior");
    ASSERT_EQ(import_room_image(GetParam(), rooms_ / "behavior", image_, kSource + "/rooms/behavior.toml"), "");
  }
  void TearDown() override {
    if (!image_.empty()) remove_image(GetParam(), image_);
  }
  std::unique_ptr<OciRuntime> oci() {
    return std::make_unique<OciRuntime>(test_oci_options(GetParam(), image_, s_.work()));
  }

  Scratch s_;
  fs::path rooms_;
  std::string image_;
};

TEST_P(BehaviorInImages, the_issue_s_hostile_packages_give_their_findings_with_their_evidence) {
  auto rt = oci();
  expect_the_hostile_packages_found(*rt, std::string("on ") + GetParam().name);
}

TEST_P(BehaviorInImages, the_probe_passes_in_the_image_and_the_observer_sees_its_self_test) {
  auto rt = oci();
  expect_the_detonation_room_proven(*rt, image_);
}

INSTANTIATE_TEST_SUITE_P(Engines, BehaviorInImages, ::testing::Values(kPodman, kDocker, kDockerRemap),
                         [](const auto& engine) { return std::string(engine.param.name); });

}  // namespace
}  // namespace batlehub::adapters
