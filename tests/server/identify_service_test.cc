// Naming a package when its file name says too little: what the operator gave, then the
// file name, then the agent's reading of the metadata — each filling only a gap — and the
// identify run as the worker describes it and reads it back (untrusted stdout).
#include <gtest/gtest.h>

#include "server/service/scan_service.h"

namespace batlehub::server {
namespace {

struct Stub {
  int calls = 0;
  std::optional<core::PackageKind> asked;
  Expected<wire::Identity, std::string> answer =
      wire::Identity{"pypi", "requests", "2.31.0", "requests-2.31.0/PKG-INFO"};
  Identify fn() {
    return [this](std::optional<core::PackageKind> k) {
      ++calls;
      asked = k;
      return answer;
    };
  }
};

TEST(PackageOf, the_metadata_fills_what_the_file_name_leaves_unknown) {
  Stub s;
  auto p = package_of("/x/something.tar.gz", Naming{}, s.fn());
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(s.calls, 1);
  EXPECT_EQ(s.asked, std::nullopt);
  EXPECT_EQ(p->kind, core::PackageKind::kPypi);
  EXPECT_EQ(p->name, "requests");
  EXPECT_EQ(p->version, "2.31.0");
}

TEST(PackageOf, the_operator_and_the_file_name_still_win) {
  Stub s;
  s.answer = wire::Identity{"npm", "from-metadata", "9.9.9", "package/package.json"};
  Naming n;
  n.name = "given";
  auto p = package_of("/x/package.tgz", n, s.fn());
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(s.asked, core::PackageKind::kNpm);  // .tgz told the kind: only npm's file is read
  EXPECT_EQ(p->name, "given");
  EXPECT_EQ(p->version, "9.9.9");
  // A name that says everything needs no run.
  Stub t;
  auto q = package_of("/x/lodash-4.17.21.tgz", Naming{}, t.fn());
  ASSERT_TRUE(q);
  EXPECT_EQ(t.calls, 0);
  EXPECT_EQ(q->name, "lodash");
}

TEST(PackageOf, a_dashed_npm_name_is_the_package_json_s_and_the_versions_must_agree) {
  // babel-core-8.1.3.tgz is what npm pack writes for @babel/core: only the metadata can tell.
  Stub s;
  s.answer = wire::Identity{"npm", "@babel/core", "8.1.3", "package/package.json"};
  auto p = package_of("/x/babel-core-8.1.3.tgz", Naming{}, s.fn());
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(s.calls, 1);
  EXPECT_EQ(p->name, "@babel/core");
  EXPECT_EQ(p->version, "8.1.3");
  // An archive renamed to pass for another version is refused, not reconciled.
  Stub r;
  r.answer = wire::Identity{"npm", "@babel/core", "6.0.0", "package/package.json"};
  auto q = package_of("/x/babel-core-8.1.3.tgz", Naming{}, r.fn());
  ASSERT_FALSE(q);
  EXPECT_NE(q.error().find("its file name says version 8.1.3 but its metadata (package/package.json) says 6.0.0"),
            std::string::npos)
      << q.error();
  // Without a sandbox (submit) the dash is not guessed at.
  auto none = package_of("/x/babel-core-8.1.3.tgz", Naming{}, Identify{});
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().find("cannot tell @scope/name from scope-name"), std::string::npos) << none.error();
}

TEST(PackageOf, a_name_or_version_no_registry_allows_is_refused_and_says_where_it_came_from) {
  Stub s;
  auto spaced = package_of("/x/pip install haxorsiambomber-2.1.3.tar.gz", Naming{}, s.fn());
  ASSERT_FALSE(spaced);
  EXPECT_EQ(
      spaced.error(),
      "/x/pip install haxorsiambomber-2.1.3.tar.gz: the package name \"pip install haxorsiambomber\" (read from its "
      "file name) cannot be a pypi name: it holds a space");
  EXPECT_EQ(s.calls, 0);

  // What the agent read is held to the same grammar (its own parser refuses it first; this
  // is the worker's second look, not the only one).
  Stub m;
  m.answer = wire::Identity{"pypi", "evil\x1b[31m", "1.0", "x/PKG-INFO"};
  auto meta = package_of("/x/something.tar.gz", Naming{}, m.fn());
  ASSERT_FALSE(meta);
  EXPECT_EQ(meta.error(),
            "/x/something.tar.gz: the package name \"evil\\x1b[31m\" (read from its metadata (x/PKG-INFO)) cannot be a "
            "pypi name: it holds a control character (0x1b)");

  Naming n;
  n.version = "1.0/../..";
  auto flag = package_of("/x/lodash-4.17.21.tgz", n, Identify{});
  ASSERT_FALSE(flag);
  EXPECT_NE(flag.error().find("(given with --version) cannot be a npm version: it holds a path separator ('/')"),
            std::string::npos)
      << flag.error();
}

TEST(PackageOf, a_kind_the_agent_does_not_read_is_not_asked_about) {
  Stub s;
  Naming n;
  n.kind = core::PackageKind::kMaven;
  auto p = package_of("/x/thing.zip", n, s.fn());
  EXPECT_FALSE(p);
  EXPECT_EQ(s.calls, 0);
  EXPECT_NE(p.error().find("pass --name and --version"), std::string::npos) << p.error();
}

TEST(PackageOf, the_refusal_says_what_the_agent_saw) {
  Stub s;
  s.answer =
      Unexpected(std::string("no package.json, PKG-INFO, METADATA, Cargo.toml or gem metadata at the archive's top"));
  auto p = package_of("/x/release.zip", Naming{}, s.fn());
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().find("inside the sandbox the agent found no package.json, PKG-INFO"), std::string::npos)
      << p.error();
  EXPECT_NE(p.error().find("pass --kind"), std::string::npos);
}

class Recording final : public core::SandboxRuntime {
 public:
  std::string_view name() const override { return "recording"; }
  Expected<core::RunOutput, core::SandboxError> run(const core::RunSpec& s) override {
    spec = s;
    return out;
  }
  Expected<core::ProbeReport, core::SandboxError> probe(const core::ProbeTarget&) override {
    return core::ProbeReport{};
  }
  Expected<core::Swept, core::SandboxError> sweep(std::chrono::seconds) override { return core::Swept{}; }
  std::string hint(std::optional<wire::Check> /*failed*/) const override { return ""; }
  core::RunSpec spec;
  Expected<core::RunOutput, core::SandboxError> out = core::RunOutput{0, "", "", {}};
};

class MemBlob final : public core::Blob {
 public:
  std::uint64_t size() const override { return 3; }
  Expected<Ok, std::string> copy_to(int) const override { return Ok{}; }
  std::string describe() const override { return "mem"; }
};

TEST(IdentifyInSandbox, the_agent_is_the_scanner_of_one_run_with_the_archive_extracted_at_pkg) {
  Recording rt;
  rt.out =
      core::RunOutput{0, R"({"kind":"npm","name":"@s/p","version":"1.0.0","from":"package/package.json"})", "", {}};
  IdentifyPlace place;
  place.room = "postmortem";
  auto id = identify_in_sandbox(rt, std::make_shared<MemBlob>(), core::PackageKind::kNpm, place);
  ASSERT_TRUE(id) << id.error();
  EXPECT_EQ(id->name, "@s/p");
  EXPECT_EQ(rt.spec.argv, (std::vector<std::string>{"batlehub-sandbox", "identify", "pkg", "npm"}));
  ASSERT_EQ(rt.spec.bundle.entries.size(), 1u);
  EXPECT_EQ(rt.spec.bundle.entries[0].kind, wire::EntryKind::kArchive);
  EXPECT_EQ(rt.spec.bundle.entries[0].path.str(), "pkg");
  EXPECT_FALSE(rt.spec.bundle.entries[0].strip_wrapper);
  EXPECT_FALSE(rt.spec.network);
  EXPECT_EQ(rt.spec.label.scanner, "postmortem");
}

TEST(IdentityFromRun, reads_stdout_as_untrusted_bytes) {
  auto from = [](std::string out) { return identity_from_run(core::RunOutput{0, std::move(out), "", {}}); };
  EXPECT_FALSE(from("not json"));
  EXPECT_NE(from("not json").error().find("its answer was refused"), std::string::npos);
  EXPECT_FALSE(from(std::string(20'000, ' ')));
  EXPECT_FALSE(from(R"({"kind":"npm","name":"x","version":"1","from":"p"})"));
  auto refusal = from(R"({"error":"package/package.json: has no \"name\"","from":"package/package.json"})");
  ASSERT_FALSE(refusal);
  EXPECT_EQ(refusal.error(), "package/package.json: has no \"name\"");
  auto failed =
      identity_from_run(Unexpected(core::SandboxError{core::SandboxError::Kind::kUnsupported, "not an archive"}));
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.error().find("not an archive"), std::string::npos);
}

}  // namespace
}  // namespace batlehub::server
