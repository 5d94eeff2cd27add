#include "signals/tree.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <system_error>

#include "base/file.h"
#include "signals/shell.h"

namespace batlehub::signals {

namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kMaxPackageJson = 1U << 20;

// "a/b/../c" and "./x" as npm resolves a script's path against its package directory;
// nullopt when it climbs out of the tree ("" is the tree's root).
std::optional<std::string> join_relative(const std::string& dir, std::string_view rel) {
  std::vector<std::string> parts;
  auto push = [&](std::string_view path) {
    std::size_t k = 0;
    while (k <= path.size()) {
      const std::size_t e = std::min(path.find('/', k), path.size());
      const std::string_view p = path.substr(k, e - k);
      if (p == "..") {
        if (parts.empty()) return false;
        parts.pop_back();
      } else if (!p.empty() && p != ".") {
        parts.emplace_back(p);
      }
      k = e + 1;
    }
    return true;
  };
  if (!push(dir) || !push(rel)) return std::nullopt;
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "/") + p;
  return out;
}

struct Hooks {
  std::map<std::string, Phase> phase_of;  // files the hooks and the entry point run
  std::set<std::string> shell_scripts;    // of those, the ones run as shell scripts
  std::vector<Fact> facts;
};

// npm's lifecycle scripts that run on `npm install` of the package itself, in its order.
constexpr std::array<std::string_view, 3> kInstallHooks{"preinstall", "install", "postinstall"};

bool js_name(std::string_view p) {
  return p.ends_with(".js") || p.ends_with(".cjs") || p.ends_with(".mjs");
}

// The file `node ARG` runs from `dir`, as node resolves it: a file as named, else with .js,
// a directory (`node .`) through its package.json's main, else its index.js.
std::string node_target(const std::string& root, const std::string& dir, std::string_view arg) {
  const std::optional<std::string> joined = join_relative(dir, arg);
  if (!joined) return "";
  std::string target = *joined;
  std::error_code ec;
  if (fs::is_regular_file(root + "/" + target, ec) && js_name(target)) return target;
  if (fs::is_directory(root + "/" + (target.empty() ? "." : target), ec)) {
    std::string main = "index.js";
    auto bytes = base::read_regular_file(root + "/" + (target.empty() ? "" : target + "/") + "package.json",
                                         kMaxPackageJson, {.follow_links = false});
    if (bytes) {
      const nlohmann::json doc = nlohmann::json::parse(bytes->bytes, nullptr, false);
      if (doc.is_object() && doc.contains("main") && doc["main"].is_string()) main = doc["main"].get<std::string>();
    }
    std::string m = join_relative(target, main).value_or("");
    if (m.empty()) return "";
    if (fs::is_directory(root + "/" + m, ec)) m = join_relative(m, "index.js").value_or("");
    if (!js_name(m)) m += ".js";
    return m;
  }
  if (target.empty()) return "";
  return js_name(target) ? target : target + ".js";
}

// The files a command line runs: node's scripts, and the shell scripts it starts
// (`sh x.sh`, `bash x.sh`, `./x.sh`).
void targets_of(const std::string& root, const std::string& dir, std::string_view line, Phase phase, Hooks& hooks) {
  const Script script = parse_shell(line);
  std::vector<const Script*> scripts{&script};
  for (const Script& s : script.substitutions) scripts.push_back(&s);
  for (const Script* sc : scripts) {
    for (const Pipeline& p : sc->pipelines) {
      for (const Command& c : p.commands) {
        std::size_t k = 0;
        while (k < c.argv.size() &&
               (c.argv[k] == "nohup" || c.argv[k] == "exec" || c.argv[k].find('=') != std::string::npos))
          ++k;
        if (k >= c.argv.size()) continue;
        const std::string& cmd = c.argv[k];
        if (cmd == "node" || cmd.ends_with("/node")) {
          std::size_t a = k + 1;
          while (a < c.argv.size() && c.argv[a].starts_with("-")) {
            if (c.argv[a] == "-e" || c.argv[a] == "--eval" || c.argv[a] == "-p") break;
            ++a;
          }
          if (a >= c.argv.size() || c.argv[a].starts_with("-")) continue;
          if (std::string t = node_target(root, dir, c.argv[a]); !t.empty()) hooks.phase_of[t] = phase;
        } else if ((cmd == "sh" || cmd == "bash") && k + 1 < c.argv.size() && !c.argv[k + 1].starts_with("-")) {
          if (std::string t = join_relative(dir, c.argv[k + 1]).value_or(""); !t.empty()) {
            hooks.phase_of[t] = phase;
            hooks.shell_scripts.insert(t);
          }
        } else if (cmd.starts_with("./")) {
          if (std::string t = join_relative(dir, cmd).value_or(""); !t.empty() && !js_name(t)) {
            hooks.phase_of[t] = phase;
            hooks.shell_scripts.insert(t);
          }
        }
      }
    }
  }
}

void read_package_json(const std::string& root, const std::string& rel, Hooks& hooks, Budget& budget) {
  auto bytes = base::read_regular_file(root + "/" + rel, kMaxPackageJson, {.follow_links = false});
  if (!bytes) return;
  const nlohmann::json doc = nlohmann::json::parse(bytes->bytes, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return;
  const std::string dir = rel.find('/') == std::string::npos ? "" : rel.substr(0, rel.rfind('/'));
  if (auto scripts = doc.find("scripts"); scripts != doc.end() && scripts->is_object()) {
    for (std::string_view hook : kInstallHooks) {
      auto s = scripts->find(std::string(hook));
      if (s == scripts->end() || !s->is_string()) continue;
      const std::string& line = s->get_ref<const std::string&>();
      hooks.facts.push_back({FactKind::kRunsAtInstall, std::string(hook), rel, 0, Phase::kInstall, excerpt(line)});
      for (Fact& f : analyze_command(rel, 0, line, Phase::kInstall)) hooks.facts.push_back(std::move(f));
      // The code it hands node inline.
      for (const Pipeline& p : parse_shell(line).pipelines) {
        for (const Command& c : p.commands) {
          if (c.argv.size() < 3 || (c.argv[0] != "node" && !c.argv[0].ends_with("/node"))) continue;
          if (c.argv[1] == "-e" || c.argv[1] == "--eval" || c.argv[1] == "-p") {
            for (Fact& f : analyze_source(rel + " (" + std::string(hook) + ")", c.argv[2], Language::kJavaScript,
                                          Phase::kInstall, budget))
              hooks.facts.push_back(std::move(f));
          }
        }
      }
      targets_of(root, dir, line, Phase::kInstall, hooks);
    }
  }
  std::string main = "index.js";
  if (auto m = doc.find("main"); m != doc.end() && m->is_string()) main = m->get<std::string>();
  // A main that climbs out of the package is not there: node falls back to index.js.
  std::string target = node_target(root, dir, main.empty() ? "." : main);
  if (target.empty()) target = node_target(root, dir, "index.js");
  if (!target.empty()) {
    hooks.phase_of.emplace(target, Phase::kRequire);  // an install hook's file stays install
    hooks.facts.push_back({FactKind::kRunsAtRequire, "main", target, 0, Phase::kRequire, excerpt(main)});
  }
}

// An install script that starts node on another file (`spawn('nohup node update.js &')`)
// makes that file install code too: followed through the scripts' strings, three deep.
void follow_spawns(const std::string& root, Hooks& hooks, const TreeLimits& limits) {
  std::set<std::string> done;
  for (int round = 0; round < 3; ++round) {
    std::vector<std::string> todo;
    for (const auto& [file, phase] : hooks.phase_of) {
      if (phase == Phase::kInstall && js_name(file) && !done.contains(file)) todo.push_back(file);
    }
    if (todo.empty()) return;
    for (const std::string& file : todo) {
      done.insert(file);
      auto bytes = base::read_regular_file(root + "/" + file, limits.max_file_bytes, {.follow_links = false});
      if (!bytes) continue;
      const std::string dir = file.find('/') == std::string::npos ? "" : file.substr(0, file.rfind('/'));
      for (const Literal& l : lex(bytes->bytes, Language::kJavaScript).literals) {
        if (l.value.size() < 256 && l.value.find("node ") != std::string::npos)
          targets_of(root, dir, l.value, Phase::kInstall, hooks);
      }
    }
  }
}

bool under_node_modules(const std::string& rel) {
  return rel.starts_with("node_modules/") || rel.find("/node_modules/") != std::string::npos;
}

}  // namespace

TreeReport scan_tree(const std::string& root, const TreeLimits& limits) {
  TreeReport report;
  Hooks hooks;
  Budget package_budget;
  std::vector<std::pair<std::string, std::uint64_t>> files;  // relative path, size
  std::error_code ec;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (files.size() >= limits.max_files) {
      ++report.files_skipped;
      break;
    }
    const fs::directory_entry& e = *it;
    std::error_code sec;
    if (!e.is_regular_file(sec) || e.is_symlink(sec)) continue;  // never follow a link
    std::string rel = fs::relative(e.path(), root, sec).generic_string();
    if (sec) continue;
    const std::uint64_t size = e.file_size(sec);
    if (sec) continue;
    files.emplace_back(std::move(rel), size);
  }
  std::sort(files.begin(), files.end());
  // package.json files at the package's top (npm's tarballs hold "package/package.json"),
  // the first 16 of them.
  constexpr std::size_t kMaxPackageJsons = 16;
  std::size_t package_jsons = 0;
  for (const auto& [rel, size] : files) {
    if (package_jsons >= kMaxPackageJsons) break;
    const std::size_t depth = static_cast<std::size_t>(std::count(rel.begin(), rel.end(), '/'));
    if ((rel == "package.json" || rel.ends_with("/package.json")) && depth <= 1 && !under_node_modules(rel)) {
      ++package_jsons;
      read_package_json(root, rel, hooks, package_budget);
    }
  }
  follow_spawns(root, hooks, limits);
  report.facts = std::move(hooks.facts);
  if (report.facts.size() > limits.max_facts) {
    report.facts.resize(limits.max_facts);
    report.facts_truncated = true;
  }
  for (const auto& [rel, size] : files) {
    Language lang{};
    const bool shell_script = hooks.shell_scripts.contains(rel);
    if (!shell_script && !language_of(rel, lang)) continue;
    if (size > limits.max_file_bytes || report.bytes_read + size > limits.max_total_bytes) {
      ++report.files_skipped;
      continue;
    }
    auto bytes = base::read_regular_file(root + "/" + rel, limits.max_file_bytes, {.follow_links = false});
    if (!bytes) {
      ++report.files_skipped;
      continue;
    }
    ++report.files_read;
    report.bytes_read += bytes->bytes.size();
    auto phase = hooks.phase_of.find(rel);
    Budget budget;
    // A shell script an install hook runs is read as one command line (at most
    // kShellMaxBytes of it); everything else by its language.
    std::vector<Fact> facts =
        shell_script ? analyze_command(rel, 1, bytes->bytes, Phase::kInstall)
                     : analyze_source(rel, bytes->bytes, lang,
                                      phase == hooks.phase_of.end() ? Phase::kUnknown : phase->second, budget);
    for (Fact& f : facts) {
      if (report.facts.size() >= limits.max_facts) {
        report.facts_truncated = true;
        break;
      }
      report.facts.push_back(std::move(f));
    }
  }
  return report;
}

std::string to_json_lines(const TreeReport& report) {
  using nlohmann::json;
  std::string out;
  auto line = [&](const json& j) {
    out += j.dump(-1, ' ', false, json::error_handler_t::replace);
    out += '\n';
  };
  for (const Fact& f : report.facts) {
    json j = {{"fact", fact_name(f.kind)}, {"what", f.what}, {"file", f.file}, {"line", f.line}, {"detail", f.detail}};
    if (f.phase != Phase::kUnknown) j["phase"] = phase_name(f.phase);
    line(j);
  }
  line({{"done",
         {{"files_read", report.files_read},
          {"bytes_read", report.bytes_read},
          {"files_skipped", report.files_skipped},
          {"facts_truncated", report.facts_truncated}}}});
  return out;
}

}  // namespace batlehub::signals
