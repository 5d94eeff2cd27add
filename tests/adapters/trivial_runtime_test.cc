// "Adding a runtime" (docs/architecture.md), proven: a fifth runtime, `trivial`, written here
// and registered the way the real ones are, touching no file under src/. Its table
// ([worker.sandbox.trivial] scratch_dir) is read, checked and warned about by the loader;
// the composition root builds it by name; a scan runs through it. It keeps none's rules
// (BATLEHUB_UNSAFE_NO_SANDBOX=1, the agent in-process on a scratch directory) and is built
// from the skeleton every runtime shares (run_dir.h, run_frame.h).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "adapters/sandbox/registry.h"
#include "adapters/sandbox/run_dir.h"
#include "adapters/sandbox/run_frame.h"
#include "agent/agent.h"
#include "config/text.h"
#include "server/root/builders.h"

namespace batlehub::adapters {
namespace {

// The runtime's table, as a real adapter declares its own.
struct TrivialTable {
  static constexpr std::string_view kName = "trivial";
  std::string scratch_dir = "/tmp";
  bool operator==(const TrivialTable&) const = default;
};

class TrivialRuntime final : public core::SandboxRuntime {
 public:
  explicit TrivialRuntime(std::string scratch) : scratch_(std::move(scratch)) {}
  std::string_view name() const override { return "trivial"; }
  std::string where() const override { return "in-process, runs under " + scratch_; }
  Expected<core::RunOutput, core::SandboxError> run(const core::RunSpec& spec) override {
    if (auto refused = refuse_run(spec)) return Unexpected(std::move(*refused));
    auto dir = TempDir::create(scratch_, "trivial-run");
    if (!dir) return Unexpected(core::SandboxError{core::SandboxError::Kind::kIo, dir.error()});
    core::trace_sandbox(spec.trace, dir->path());
    if (auto m = write_bundle(spec, RunDirView{dir->path(), dir->path()}); !m) return Unexpected(m.error());
    agent::AgentOptions o;
    o.work_dir = dir->path();
    auto rc = agent::run("file://" + dir->path() + "/manifest.json", "file://" + dir->path() + "/out.tar", o);
    core::trace_ended(spec.trace);
    if (rc != agent::AgentExit::kResultWritten) {
      return Unexpected(core::SandboxError{core::SandboxError::Kind::kCrashed, "the agent wrote no result"});
    }
    return collect(dir->path(), spec.argv[0]);
  }
  Expected<core::ProbeReport, core::SandboxError> probe(const core::ProbeTarget& target) override {
    core::ProbeReport r;
    r.runtime = "trivial";
    r.room = target.room;
    r.skipped = true;
    return r;
  }
  Expected<core::Swept, core::SandboxError> sweep(std::chrono::seconds) override { return core::Swept{}; }
  std::string hint(std::optional<wire::Check>) const override { return "trivial has no walls"; }

 private:
  std::string scratch_;
};

RuntimeRegistration trivial_registration() {
  RuntimeRegistration r;
  r.schema.name = std::string(TrivialTable::kName);
  r.schema.read = [](config::TableReader& t, config::RuntimeTables& into) {
    TrivialTable table;
    if (auto v = t.str("scratch_dir")) table.scratch_dir = *v;
    into.set(std::move(table));
  };
  r.schema.check = [](const config::SandboxConfig& s, config::TableCheck& check) {
    const std::string& dir = s.tables.get<TrivialTable>().scratch_dir;
    if (dir.empty() || dir.front() != '/') {
      check.refuse("worker.sandbox.trivial.scratch_dir",
                   "scratch_dir = " + config::quoted(dir) + " must be an absolute path");
    }
  };
  r.schema.check_in_use = [](const config::SandboxConfig&, config::TableCheck& check) {
    auto unsafe = check.env()("BATLEHUB_UNSAFE_NO_SANDBOX");
    if (!unsafe || *unsafe != "1") {
      check.refuse("worker.sandbox.runtime", "runtime = \"trivial\" has no walls: BATLEHUB_UNSAFE_NO_SANDBOX=1");
    }
  };
  r.build = [](const RuntimeContext& ctx) -> Expected<std::unique_ptr<core::SandboxRuntime>, std::string> {
    const std::string& dir = ctx.config.worker.sandbox.tables.get<TrivialTable>().scratch_dir;
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) {
      return Unexpected("the trivial runtime has no scratch directory: " + dir + " is not a directory");
    }
    return std::unique_ptr<core::SandboxRuntime>(std::make_unique<TrivialRuntime>(dir));
  };
  r.hint = "trivial needs an existing scratch_dir and BATLEHUB_UNSAFE_NO_SANDBOX=1";
  return r;
}

// The one line.
const RegisterRuntime kTrivial(trivial_registration());

const char* kStorage = "[storage]\ntype = \"filesystem\"\npath = \"/tmp/batlehub-trivial-storage\"\n";

config::Env unsafe_env() {
  return config::env_of({{"BATLEHUB_UNSAFE_NO_SANDBOX", "1"}});
}

std::string refusal(const std::string& toml, const config::Env& env) {
  auto l = config::load_string(toml + kStorage, "config.toml", env);
  return l ? std::string("loaded") : l.error().describe();
}

TEST(AddingARuntime, its_table_is_read_and_checked_by_its_registration) {
  auto l = config::load_string(
      std::string("[worker.sandbox]\nruntime = \"trivial\"\n[worker.sandbox.trivial]\nscratch_dir = \"/var/tmp\"\n") +
          kStorage,
      "config.toml", unsafe_env());
  ASSERT_TRUE(l) << l.error().describe();
  EXPECT_EQ(l->config.worker.sandbox.runtime, "trivial");
  EXPECT_EQ(l->config.worker.sandbox.tables.get<TrivialTable>().scratch_dir, "/var/tmp");
  EXPECT_EQ(l->config.worker.sandbox.tables.keys_of("trivial"), (std::vector<std::string>{"scratch_dir"}));

  EXPECT_EQ(refusal("[worker.sandbox.trivial]\nscrach_dir = \"/x\"\n", unsafe_env()),
            "config.toml:2: worker.sandbox.trivial.scrach_dir: unknown key 'scrach_dir' in [worker.sandbox.trivial] "
            "(did you mean 'scratch_dir'?)");
  EXPECT_EQ(refusal("[worker.sandbox.trivial]\nscratch_dir = 3\n", unsafe_env()),
            "config.toml:2: worker.sandbox.trivial.scratch_dir: expected a string, not an integer");
  EXPECT_EQ(refusal("[worker.sandbox.trivial]\nscratch_dir = \"rel\"\n", unsafe_env()),
            "config.toml:2: worker.sandbox.trivial.scratch_dir: scratch_dir = \"rel\" must be an absolute path");
  EXPECT_EQ(refusal("[worker.sandbox]\nruntime = \"trivial\"\n", config::env_of({})),
            "config.toml:2: worker.sandbox.runtime: runtime = \"trivial\" has no walls: BATLEHUB_UNSAFE_NO_SANDBOX=1");
  // The set a runtime must be among is the registry's, whatever order the lines ran in.
  const std::string outside = refusal("[worker.sandbox]\nruntime = \"firecracker\"\n", unsafe_env());
  EXPECT_NE(outside.find("runtime = \"firecracker\" is not one of "), std::string::npos) << outside;
  EXPECT_NE(outside.find("kubernetes"), std::string::npos) << outside;
  EXPECT_NE(outside.find("trivial"), std::string::npos) << outside;
}

TEST(AddingARuntime, its_table_under_another_runtime_is_inert_and_the_real_ones_are_inert_under_it) {
  auto under_bwrap = config::load_string(std::string("[worker.sandbox.trivial]\nscratch_dir = \"/x\"\n") + kStorage,
                                         "config.toml", unsafe_env());
  ASSERT_TRUE(under_bwrap) << under_bwrap.error().describe();
  EXPECT_EQ(under_bwrap->warnings,
            (std::vector<std::string>{"config.toml:1: worker.sandbox.trivial: [worker.sandbox.trivial] has no effect "
                                      "under runtime 'bwrap'; it is read by the trivial runtime only"}));
  auto under_trivial = config::load_string(
      std::string("[worker.sandbox]\nruntime = \"trivial\"\n[worker.sandbox.bwrap]\nbinary = \"bwrap\"\n") + kStorage,
      "config.toml", unsafe_env());
  ASSERT_TRUE(under_trivial) << under_trivial.error().describe();
  EXPECT_EQ(under_trivial->warnings,
            (std::vector<std::string>{"config.toml:3: worker.sandbox.bwrap: [worker.sandbox.bwrap] has no effect under "
                                      "runtime 'trivial'; it is read by the bwrap runtime only"}));
}

class ARegisteredRuntime : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/batlehub-trivial-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  config::Config config() {
    auto l = config::load_string("[worker.sandbox]\nruntime = \"trivial\"\n[worker.sandbox.trivial]\nscratch_dir = \"" +
                                     dir_ + "\"\n" + kStorage,
                                 "config.toml", unsafe_env());
    EXPECT_TRUE(l) << l.error().describe();
    return l->config;
  }
  std::string dir_;
};

TEST_F(ARegisteredRuntime, the_composition_root_builds_it_by_name_and_a_scan_runs_through_it) {
  auto runtime = server::build_sandbox_runtime(config(), unsafe_env());
  ASSERT_TRUE(runtime) << runtime.error();
  EXPECT_EQ((*runtime)->name(), "trivial");
  EXPECT_EQ((*runtime)->where(), "in-process, runs under " + dir_);

  core::RunSpec spec;
  spec.argv = {"/bin/sh", "-c", "printf '%s' \"$PWD\"; exit 3"};
  spec.timeout = std::chrono::seconds(10);
  spec.label.scanner = "trivial-scan";
  core::RunTrace trace;
  spec.trace = &trace;
  auto out = (*runtime)->run(spec);
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out->status, 3);
  // The scanner ran inside the run directory the agent made under the table's scratch_dir.
  const std::string& pwd = out->stdout_bytes;
  EXPECT_EQ(pwd.rfind(dir_ + "/trivial-run", 0), 0u) << pwd;
  EXPECT_EQ(trace.sandbox.rfind(dir_ + "/trivial-run", 0), 0u) << trace.sandbox;
}

TEST_F(ARegisteredRuntime, a_builder_that_fails_says_why_first_and_its_hint_after) {
  config::Config c = config();
  c.worker.sandbox.tables.set(TrivialTable{dir_ + "/gone"}, {"scratch_dir"});
  auto runtime = server::build_sandbox_runtime(c, unsafe_env());
  ASSERT_FALSE(runtime);
  EXPECT_EQ(runtime.error(), "the trivial runtime has no scratch directory: " + dir_ +
                                 "/gone is not a directory\n  hint: trivial needs an existing scratch_dir and "
                                 "BATLEHUB_UNSAFE_NO_SANDBOX=1");
}

}  // namespace
}  // namespace batlehub::adapters
