// The `none` runtime: upstream's subprocess.rs tests, moved here with their names and
// assertions (upstream-today.md §3), plus its refusal outside tests.
#include <gtest/gtest.h>

#include "adapters/sandbox/none.h"
#include "adapters/scanners/subprocess.h"

namespace batlehub::adapters {
namespace {

core::Env unsafe_ok() {
  return [](std::string_view k) -> std::optional<std::string> {
    if (k == "BATLEHUB_UNSAFE_NO_SANDBOX") return "1";
    return std::nullopt;
  };
}

std::unique_ptr<NoneRuntime> none() { return std::move(NoneRuntime::create({}, unsafe_ok())).value(); }

core::RunSpec inv(std::vector<std::string> argv, std::chrono::milliseconds timeout) {
  core::RunSpec s;
  s.argv = std::move(argv);
  s.timeout = timeout;
  s.label.scanner = "postmortem";
  return s;
}

TEST(NoneRuntime, runtime_none_runs_the_bare_command_and_reports_its_exit_code) {
  auto out = none()->run(inv({"/bin/sh", "-c", "printf '{\"ok\":true}'; exit 1"}, std::chrono::seconds(5)));
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out->status, 1);
  auto j = parse_json(out->stdout_bytes);
  ASSERT_TRUE(j);
  EXPECT_EQ((*j)["ok"], true);
}

TEST(NoneRuntime, a_scanner_that_hangs_times_out) {
  auto out = none()->run(inv({"/bin/sh", "-c", "sleep 30"}, std::chrono::milliseconds(200)));
  ASSERT_FALSE(out);
  EXPECT_EQ(core::to_scanner_error(out.error()).kind, core::ScannerError::Kind::kTimeout) << out.error().message;
}

TEST(NoneRuntime, stdout_above_the_cap_is_an_output_error_not_an_answer) {
  auto out = none()->run(inv({"/bin/sh", "-c", "head -c 40000000 /dev/zero"}, std::chrono::seconds(20)));
  ASSERT_FALSE(out);
  EXPECT_EQ(core::to_scanner_error(out.error()).kind, core::ScannerError::Kind::kOutput) << out.error().message;
  EXPECT_EQ(out.error().message, "scanner output exceeded 33554432 bytes");
}

TEST(NoneRuntime, a_missing_command_is_reported_as_such) {
  const char* path = "/usr/local/bin:/usr/bin:/bin";
  EXPECT_FALSE(command_exists("/nonexistent/postmortem", path));
  EXPECT_TRUE(command_exists("sh", path));
  EXPECT_TRUE(command_exists("/bin/sh", path));
  auto out = none()->run(inv({"/nonexistent/postmortem", "scan"}, std::chrono::seconds(5)));
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().kind, core::SandboxError::Kind::kCrashed);
}

TEST(NoneRuntime, is_refused_unless_the_unsafe_variable_is_exactly_1) {
  for (std::optional<std::string> v : {std::optional<std::string>(), std::optional<std::string>("0"),
                                       std::optional<std::string>("true"), std::optional<std::string>("1 ")}) {
    auto r = NoneRuntime::create({}, [&](std::string_view) { return v; });
    ASSERT_FALSE(r) << v.value_or("(unset)");
    EXPECT_EQ(r.error().message,
              "[worker.sandbox] runtime = \"none\" is refused outside tests unless BATLEHUB_UNSAFE_NO_SANDBOX=1 is set");
  }
  EXPECT_TRUE(NoneRuntime::create({}, unsafe_ok()));
}

TEST(NoneRuntime, skips_the_probe_and_says_so) {
  auto r = none()->probe(core::ProbeTarget{"postmortem", std::nullopt, {}, {}});
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->skipped);
  EXPECT_TRUE(r->passed());
}

TEST(NoneRuntime, the_scanner_gets_the_agents_filter_and_limits_even_here) {
  auto out = none()->run(inv({"/bin/sh", "-c", "ulimit -t; ulimit -d"}, std::chrono::seconds(5)));
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out->stdout_bytes, "300\n2097152\n");
}

}  // namespace
}  // namespace batlehub::adapters
