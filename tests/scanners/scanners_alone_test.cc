// The scanners on their own: this executable links batlehub_scanners and nothing of the
// agent (no libarchive, libseccomp or OpenSSL; scripts/check-fence.sh reads its link line).
// A plan is data, so every scanner can plan here without a sandbox in the program.
#include <gtest/gtest.h>

#include "adapters/scanners/guarddog.h"
#include "adapters/scanners/trivy.h"
#include "adapters/scanners/yara.h"

namespace batlehub::adapters {
namespace {

class Bytes final : public core::Blob {
 public:
  std::uint64_t size() const override { return 3; }
  Expected<Ok, std::string> copy_to(int) const override { return Ok{}; }
  std::string describe() const override { return "three bytes"; }
};

TEST(ScannersAlone, plan_their_runs_as_data_with_no_agent_linked_in) {
  core::ScanInput in;
  in.package = core::Package{core::PackageKind::kNpm, "left-pad", "1.3.0", "npm"};
  in.artifact = std::make_shared<Bytes>();
  auto gd = GuardDogScanner(GuardDogOptions{}).plan(in);
  ASSERT_TRUE(gd) << gd.error().message;
  EXPECT_FALSE(gd->front().network);
  auto tv = TrivyScanner(TrivyOptions{}).plan(in);
  ASSERT_TRUE(tv) << tv.error().message;
  EXPECT_EQ(tv->front().argv.front(), "trivy");
}

}  // namespace
}  // namespace batlehub::adapters
