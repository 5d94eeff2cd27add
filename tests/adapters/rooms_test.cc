// Rooms built by scripts/build-room.py and run for real under the bwrap runtime: a
// dynamically linked program with its library closure, an interpreter with its library,
// and the tool's refusals.
#include <gtest/gtest.h>

#include "adapters/sandbox/bwrap.h"
#include "rooms.h"

namespace batlehub::adapters {
namespace {

using namespace batlehub::testing;

class Rooms : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = bwrap_unavailable(); !why.empty()) GTEST_SKIP() << why;
    rooms_ = s_.root() / "rooms";
    fs::create_directories(rooms_);
  }

  int build(const std::string& args, std::string* err = nullptr) {
    std::string cmd = "python3 " + std::string(BATLEHUB_SOURCE_DIR) + "/scripts/build-room.py --agent " +
                      BATLEHUB_AGENT_BIN + " " + args + " 2>" + (s_.root() / "err").string() + " >/dev/null";
    int rc = std::system(cmd.c_str());
    if (err) *err = Scratch::read(s_.root() / "err");
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  }

  Expected<core::RunOutput, core::SandboxError> run(const std::string& room, std::vector<std::string> argv) {
    BwrapOptions o;
    o.rooms_dir = rooms_.string();
    o.scratch_dir = s_.work().string();
    core::RunSpec spec;
    spec.label.scanner = room;
    spec.argv = std::move(argv);
    spec.timeout = std::chrono::seconds(30);
    return BwrapRuntime(o).run(spec);
  }

  core::ProbeReport probe(const std::string& room, std::vector<std::string> commands) {
    BwrapOptions o;
    o.rooms_dir = rooms_.string();
    o.scratch_dir = s_.work().string();
    return *BwrapRuntime(o).probe(core::ProbeTarget{room, std::nullopt, std::move(commands), {}});
  }

  Scratch s_;
  fs::path rooms_;
};

TEST_F(Rooms, a_dynamically_linked_program_runs_with_its_library_closure) {
  ASSERT_EQ(build("--name ls --binary /usr/bin/ls --out " + (rooms_ / "ls").string()), 0);
  EXPECT_TRUE(fs::exists(rooms_ / "ls/lib64/ld-linux-x86-64.so.2"));
  auto out = run("ls", {"ls", "/usr/local/bin"});
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out->status, 0) << out->stderr_tail;
  EXPECT_EQ(out->stdout_bytes, "batlehub-sandbox\n");
  auto p = probe("ls", {"/usr/bin/ls"});
  EXPECT_TRUE(p.passed()) << p.first_failure().value_or("");
}

TEST_F(Rooms, an_interpreter_runs_with_its_standard_library) {
  ASSERT_EQ(build("--definition " + std::string(BATLEHUB_SOURCE_DIR) + "/rooms/python-example.toml --out " +
                  (rooms_ / "python").string()),
            0);
  auto out = run("python", {"python3", "-c",
                            "import json, sys, os; print(json.dumps({'v': list(sys.version_info[:2]), "
                            "'env': sorted(os.environ), 'cwd': os.getcwd()}))"});
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out->status, 0) << out->stderr_tail;
  EXPECT_EQ(out->stdout_bytes, "{\"v\": [3, 11], \"env\": [\"HOME\", \"PATH\"], \"cwd\": \"/work\"}\n");
  auto shell = run("python", {"python3", "-c", "import subprocess; subprocess.run(['sh', '-c', 'id'])"});
  ASSERT_TRUE(shell);
  EXPECT_NE(shell->status, 0) << "a shell ran in the python room";
  EXPECT_NE(shell->stderr_tail.find("No such file or directory: 'sh'"), std::string::npos) << shell->stderr_tail;
  auto p = probe("python", {"/usr/bin/python3"});
  EXPECT_TRUE(p.passed()) << p.first_failure().value_or("");
}

TEST_F(Rooms, the_tool_refuses_a_room_with_a_shell) {
  std::string err;
  EXPECT_EQ(build("--name bad --binary /bin/bash --out " + (rooms_ / "bad").string(), &err), 1);
  EXPECT_NE(err.find("refusing the room: /bin/bash is in the room (no shell, no batlehub)"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(rooms_ / "bad"));
}

TEST_F(Rooms, the_tool_refuses_a_dynamic_agent) {
  std::string err;
  std::string cmd = "--name dyn --out " + (rooms_ / "dyn").string();
  std::string full = "python3 " + std::string(BATLEHUB_SOURCE_DIR) + "/scripts/build-room.py --agent /usr/bin/ls " + cmd +
                     " 2>" + (s_.root() / "err").string();
  EXPECT_NE(std::system(full.c_str()), 0);
  EXPECT_NE(Scratch::read(s_.root() / "err").find("the agent is not static"), std::string::npos);
}

}  // namespace
}  // namespace batlehub::adapters
