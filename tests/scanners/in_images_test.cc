// The real scanners in their sandbox images, on podman and on docker: each image is imported
// from the very room bwrap binds (scripts/build-room.py, then scripts/build-image.py), and
// a scan in it must give what the same scan gives under bwrap — GuardDog's and YARA's
// findings on the four samples, Trivy's whole report — and the probe must pass in it with
// the scanner's command named as an operator configures it (a bare name, found by the agent
// on the image's PATH).
#include <gtest/gtest.h>

#include <memory>

#include "adapters/sandbox/oci.h"
#include "adapters/scanners/guarddog.h"
#include "adapters/scanners/yara.h"
#include "engines.h"
#include "real_scanners.h"

namespace batlehub::adapters {
namespace {

using core::PackageKind;
using nlohmann::json;
using namespace batlehub::testing;

// Where scripts/install-scanners.sh puts each scanner, which is what its room copies.
std::string not_installed(const std::string& scanner) {
  const std::string at = scanner == "guarddog" ? std::string(kGuardDogVenvBin) + "/guarddog"
                         : scanner == "trivy"  ? std::string(kBatlehubBin) + "/trivy"
                                               : "/usr/bin/yara";
  return executable(at) ? "" : scanner + " is not installed at " + at + " (scripts/install-scanners.sh installs it)";
}

class ScannersInImages : public ::testing::TestWithParam<TestEngine> {
 protected:
  void SetUp() override {
    if (auto why = bwrap_unavailable(); !why.empty()) GTEST_SKIP() << why << " (the images are compared with bwrap)";
    if (auto why = engine_unavailable(GetParam()); !why.empty()) GTEST_SKIP() << why;
    rooms_ = s_.root() / "rooms";
  }
  void TearDown() override {
    if (!image_.empty()) remove_image(GetParam(), image_);
  }

  // Builds the scanner's room and imports it as this test's image: "" or what failed.
  std::string room_and_image(const std::string& scanner) {
    if (auto why = build_room_from(rooms_, scanner, scanner); !why.empty()) return why;
    image_ = test_image_tag(scanner);
    if (auto failed = import_room_image(GetParam(), rooms_ / scanner, image_); !failed.empty()) {
      return "importing the room failed: " + failed;
    }
    return "";
  }

  std::unique_ptr<OciRuntime> oci() {
    return std::make_unique<OciRuntime>(test_oci_options(GetParam(), image_, s_.work()));
  }

  // The probe through the engine, in the image, with `command` as configured.
  void expect_the_probe_passes(const std::string& room, const std::string& command) {
    auto r = oci()->probe(core::ProbeTarget{room, image_, {command}, core::Limits{}});
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_TRUE(r->passed()) << r->first_failure().value_or("");
    ASSERT_EQ(r->agent.commands.size(), 1u);
    EXPECT_TRUE(r->agent.commands[0].path.ends_with("/" + command)) << r->agent.commands[0].path;
  }

  Scratch s_;
  fs::path rooms_;
  std::string image_;
};

// Both scanners the same way: every sample under bwrap, then in the image.
template <typename Scanner>
void expect_the_same_findings(const Scanner& scanner, core::SandboxRuntime& bwrap, core::SandboxRuntime& oci) {
  for (const Sample& s : kSamples) {
    auto b = core::scan_with(scanner, bwrap, sample_input(s.kind, s.name));
    ASSERT_TRUE(b) << s.name << " under bwrap: " << core::describe(b.error());
    auto o = core::scan_with(scanner, oci, sample_input(s.kind, s.name));
    ASSERT_TRUE(o) << s.name << " in the image: " << core::describe(o.error());
    EXPECT_EQ(describe(*o), describe(*b)) << s.name;
    EXPECT_EQ(*o, *b) << s.name;
    EXPECT_EQ(o->empty(), std::string(s.name).ends_with("benign")) << s.name << "\n" << describe(*o);
  }
}

TEST_P(ScannersInImages, guarddog_finds_in_its_image_what_it_finds_under_bwrap) {
  if (auto why = not_installed("guarddog"); !why.empty()) GTEST_SKIP() << why;
  ASSERT_EQ(room_and_image("guarddog"), "");
  expect_the_same_findings(GuardDogScanner(GuardDogOptions{}), *bwrap_runtime(s_, rooms_), *oci());
  expect_the_probe_passes("guarddog", "guarddog");
}

TEST_P(ScannersInImages, yara_finds_in_its_image_what_it_finds_under_bwrap) {
  if (auto why = not_installed("yara"); !why.empty()) GTEST_SKIP() << why;
  ASSERT_EQ(room_and_image("yara"), "");
  YaraOptions o;
  o.rules = slurp(kSource + "/rooms/rules/batlehub-default.yar");
  expect_the_same_findings(YaraScanner(o), *bwrap_runtime(s_, rooms_), *oci());
  expect_the_probe_passes("yara", "yara");
}

TEST_P(ScannersInImages, trivy_gives_in_its_image_the_report_it_gives_under_bwrap) {
  if (auto why = not_installed("trivy"); !why.empty()) GTEST_SKIP() << why;
  ASSERT_EQ(room_and_image("trivy"), "");
  auto bwrap = bwrap_runtime(s_, rooms_);
  auto in_image = oci();
  // The same report but for its id and time.
  auto strip = [](const std::string& out) {
    json j = json::parse(out);
    j.erase("ReportID");
    j.erase("CreatedAt");
    return j;
  };
  for (const core::ScanInput& in : {with_sbom(), sample_input(PackageKind::kNpm, "npm-malicious")}) {
    const std::string what = in.sbom ? "the sbom scan" : "the fs scan";
    auto b = run_trivy_with_empty_db(local_scanner(), *bwrap, in);
    ASSERT_TRUE(b) << what << " under bwrap: " << b.error().message;
    auto o = run_trivy_with_empty_db(local_scanner(), *in_image, in);
    ASSERT_TRUE(o) << what << " in the image: " << o.error().message;
    EXPECT_EQ(o->status, 0) << what << ": " << o->stderr_tail;
    EXPECT_EQ(b->status, o->status) << what;
    EXPECT_EQ(strip(o->stdout_bytes), strip(b->stdout_bytes)) << what;
    EXPECT_EQ(json::parse(o->stdout_bytes)["Trivy"]["Version"], "0.74.0") << what;
  }
  expect_the_probe_passes("trivy", "trivy");
}

INSTANTIATE_TEST_SUITE_P(Engines, ScannersInImages, ::testing::Values(kPodman, kDocker),
                         [](const auto& engine) { return std::string(engine.param.name); });

}  // namespace
}  // namespace batlehub::adapters
