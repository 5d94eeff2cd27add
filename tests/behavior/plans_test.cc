// The detonation's plans as data (detonate.h): what each phase runs, with which environment,
// and the watch filter's rules (notify_filter.h). The runs themselves are behavior_real_test.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <sys/socket.h>
#include <unistd.h>

#include "behavior/detonate.h"
#include "behavior/notify_filter.h"

namespace batlehub::behavior {
namespace {

namespace fs = std::filesystem;

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(Plans, pypi_installs_with_no_index_no_dependencies_and_the_room_s_own_setuptools) {
  DetonationOptions o;
  o.package = "/work/in/x-1.0.tar.gz";
  const DetonationDirs d = dirs_for("/work");
  const PhaseSpec s = pypi_install(o, d, base_environment(d, "canary0canary0canary0can", "/work/venv/bin:/usr/bin"));
  EXPECT_EQ(s.phase, "install");
  EXPECT_EQ(s.program, "/work/venv/bin/python");
  for (const char* flag : {"--no-index", "--no-deps", "--no-build-isolation", "--no-cache-dir"}) {
    EXPECT_TRUE(has(s.argv, flag)) << flag;
  }
  EXPECT_EQ(s.argv.back(), o.package);
  EXPECT_TRUE(has(s.env, "HOME=/work/home"));
  EXPECT_TRUE(has(s.env, "TMPDIR=/work/tmp"));
  EXPECT_TRUE(has(s.env, "AWS_SECRET_ACCESS_KEY=canary0canary0canary0can"));
}

TEST(Plans, a_module_s_name_is_an_argument_of_the_import_never_part_of_its_code) {
  DetonationOptions o;
  const DetonationDirs d = dirs_for("/work");
  const PhaseSpec s = pypi_import(o, d, {}, "evil");
  EXPECT_EQ(s.phase, "import");
  EXPECT_EQ(s.argv, (std::vector<std::string>{"/work/venv/bin/python", kImportScript, "evil"}));
  o.import_script.clear();  // a room without the script: the module alone
  const PhaseSpec bare = pypi_import(o, d, {}, "evil");
  ASSERT_EQ(bare.argv.size(), 4U);
  EXPECT_EQ(bare.argv[1], "-c");
  EXPECT_EQ(bare.argv[2].find("evil"), std::string::npos);
  EXPECT_EQ(bare.argv[3], "evil");
}

TEST(Plans, the_modules_imported_are_those_the_distribution_declares_and_only_identifiers) {
  const fs::path sp = fs::temp_directory_path() / ("behavior-plans-" + std::to_string(::getpid()));
  fs::create_directories(sp / "a-1.0.dist-info");
  std::ofstream(sp / "a-1.0.dist-info/top_level.txt") << "alpha\nbeta/sub\n$(rm -rf)\nalpha\n";
  fs::create_directories(sp / "b-1.0.dist-info");
  std::ofstream(sp / "b-1.0.dist-info/RECORD") << "gamma/__init__.py,sha256=x,1\ndelta.py,,\nb-1.0.dist-info/RECORD,,\n"
                                                  "../../bin/tool,,\n";
  const auto m = installed_modules(sp.string(), 16);
  EXPECT_EQ(m, (std::vector<std::string>{"alpha", "beta", "gamma", "delta"}));
  EXPECT_EQ(installed_modules(sp.string(), 2).size(), 2U);
  fs::remove_all(sp);
}

TEST(Plans, npm_runs_the_install_hooks_in_npm_s_order_with_npm_s_environment_and_then_requires_the_package) {
  auto p = read_npm_package(R"({"name":"x","version":"1.2.3","scripts":{"postinstall":"node p.js",
      "preinstall":"node pre.js","test":"jest","prepare":"tsc"}})");
  ASSERT_TRUE(p) << p.error();
  ASSERT_EQ(p->hooks.size(), 2U);
  EXPECT_EQ(p->hooks[0].first, "preinstall");
  EXPECT_EQ(p->hooks[1].first, "postinstall");
  DetonationOptions o;
  o.ecosystem = Ecosystem::kNpm;
  o.package = "/work/pkg";
  const DetonationDirs d = dirs_for("/work");
  const PhaseSpec s = npm_hook(o, d, {}, *p, p->hooks[1]);
  EXPECT_EQ(s.argv, (std::vector<std::string>{"sh", "-c", "node p.js"}));
  EXPECT_EQ(s.cwd, "/work/pkg");
  EXPECT_TRUE(has(s.env, "npm_lifecycle_event=postinstall"));
  EXPECT_TRUE(has(s.env, "npm_package_name=x"));
  const PhaseSpec r = npm_require(o, d, {});
  EXPECT_EQ(r.phase, "import");
  EXPECT_EQ(r.argv.back(), "/work/pkg");
  EXPECT_FALSE(read_npm_package("[1,2]"));
  EXPECT_FALSE(read_npm_package("{\"name\":"));
}

// The Windows view: the same phase, asked of the room's stand-in by a variable, recorded as
// such; an install again reinstalls into the venv the first one filled.
TEST(Plans, the_windows_view_is_the_same_phase_asked_for_by_its_variable_and_an_install_reinstalls) {
  DetonationOptions o;
  o.package = "/work/in/x-1.0.tar.gz";
  const DetonationDirs d = dirs_for("/work");
  const PhaseSpec first = pypi_install(o, d, {"HOME=/work/home"});
  const PhaseSpec again = as_windows(first);
  EXPECT_EQ(again.phase, "install");
  EXPECT_EQ(again.view, "windows");
  EXPECT_TRUE(has(again.env, "BATLEHUB_VIEW=windows"));
  EXPECT_TRUE(has(again.env, "HOME=/work/home"));
  ASSERT_EQ(again.argv.size(), first.argv.size() + 1);
  const auto install = std::find(again.argv.begin(), again.argv.end(), "install");
  ASSERT_NE(install, again.argv.end());
  EXPECT_EQ(*(install + 1), "--force-reinstall");
  EXPECT_EQ(again.argv.back(), "/work/in/x-1.0.tar.gz");
  const PhaseSpec imported = as_windows(pypi_import(o, d, {}, "evil"));
  EXPECT_EQ(imported.argv, pypi_import(o, d, {}, "evil").argv) << "an import is the same command";
  EXPECT_EQ(imported.view, "windows");
}

// npm's default install for a native addon: a binding.gyp and no install or preinstall of the
// package's own runs `node-gyp rebuild` at install, before any postinstall.
TEST(Plans, npm_s_default_install_for_a_binding_gyp_is_node_gyp_rebuild_unless_the_package_installs_itself) {
  auto p = read_npm_package(R"({"name":"addon","scripts":{"postinstall":"node done.js"}})", true);
  ASSERT_TRUE(p) << p.error();
  ASSERT_EQ(p->hooks.size(), 2U);
  EXPECT_EQ(p->hooks[0], (std::pair<std::string, std::string>{"install", "node-gyp rebuild"}));
  EXPECT_EQ(p->hooks[1].first, "postinstall");
  auto bare = read_npm_package(R"({"name":"addon"})", true);
  ASSERT_TRUE(bare);
  ASSERT_EQ(bare->hooks.size(), 1U);
  EXPECT_EQ(bare->hooks[0].second, "node-gyp rebuild");
  auto own = read_npm_package(R"({"name":"addon","scripts":{"preinstall":"node fetch-prebuilt.js"}})", true);
  ASSERT_TRUE(own);
  ASSERT_EQ(own->hooks.size(), 1U);
  EXPECT_EQ(own->hooks[0].second, "node fetch-prebuilt.js");
  auto none = read_npm_package(R"({"name":"plain"})", false);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->hooks.empty());
}

TEST(WatchFilter, watches_exec_open_socket_connect_sendto_and_tcp_options_and_compiles) {
  std::vector<std::string> names;
  for (const WatchRule& r : watch_list()) names.emplace_back(r.name);
  for (const char* n :
       {"execve", "execveat", "open", "openat", "openat2", "creat", "socket", "connect", "sendto", "setsockopt"}) {
    EXPECT_TRUE(has(names, n)) << n;
  }
  // Only TCP sockets become the sink's streams: a datagram socket is the kernel's (and its
  // sendto is read), a Unix socket is never touched.
  for (const WatchRule& r : watch_list()) {
    if (r.what != Watched::kSocket) continue;
    ASSERT_TRUE(r.and_when);
    EXPECT_EQ(r.and_when->value, static_cast<std::uint64_t>(SOCK_STREAM));
  }
  auto prog = compile_watch_filter();
  ASSERT_TRUE(prog) << prog.error();
  EXPECT_GT(prog->code.size(), 10U);
}

}  // namespace
}  // namespace batlehub::behavior
