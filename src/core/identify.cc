#include "core/identify.h"

#include <cstdio>
#include <vector>

#include "wire/identity.h"

namespace batlehub::core {

namespace {

std::string_view base_name(std::string_view p) {
  auto slash = p.rfind('/');
  return slash == std::string_view::npos ? p : p.substr(slash + 1);
}

std::vector<std::string_view> split_dashes(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == '-') {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

std::string join(const std::vector<std::string_view>& parts, std::size_t from, std::size_t to) {
  std::string out;
  for (std::size_t i = from; i < to; ++i) {
    if (i > from) out += '-';
    out += parts[i];
  }
  return out;
}

bool starts_with_digit(std::string_view s) {
  return !s.empty() && s[0] >= '0' && s[0] <= '9';
}

// `name-<version>` where the version is everything after the first dash that begins a
// version `valid` accepts (an npm name or a crate's may hold dashes; a semver may too).
std::optional<std::pair<std::string, std::string>> name_then_version(std::string_view stem,
                                                                     bool (*valid)(std::string_view)) {
  for (std::size_t i = 1; i + 1 < stem.size(); ++i) {
    if (stem[i] == '-' && starts_with_digit(stem.substr(i + 1)) && valid(stem.substr(i + 1))) {
      return std::pair{std::string(stem.substr(0, i)), std::string(stem.substr(i + 1))};
    }
  }
  return std::nullopt;
}

// Dash-separated segments: the name is every segment before the first that begins with a
// digit and is a version `valid` accepts; the segments after it are tags (a wheel's, a gem's
// platform) and are not the version.
std::optional<std::pair<std::string, std::string>> name_version_tags(std::string_view stem,
                                                                     bool (*valid)(std::string_view)) {
  auto parts = split_dashes(stem);
  for (std::size_t i = 1; i < parts.size(); ++i) {
    if (starts_with_digit(parts[i]) && valid(parts[i])) return std::pair{join(parts, 0, i), std::string(parts[i])};
  }
  return std::nullopt;
}

bool any_version(std::string_view v) {
  return !v.empty();
}

// An sdist's `name-version`, where an older sdist's name may hold dashes and the version is
// all that follows the last dash it can start at: the one split whose remainder is a whole
// PEP 440 version. Two such splits (`a-1-2.0`: `a` 1-2.0? `a-1` 2.0?) or none leave the
// name to the package's metadata.
std::optional<std::pair<std::string, std::string>> sdist_name_version(std::string_view stem) {
  std::optional<std::pair<std::string, std::string>> found;
  for (std::size_t i = 1; i + 1 < stem.size(); ++i) {
    if (stem[i] != '-' || !starts_with_digit(stem.substr(i + 1)) || !is_pep440(stem.substr(i + 1))) continue;
    if (found) return std::nullopt;
    found = std::pair{std::string(stem.substr(0, i)), std::string(stem.substr(i + 1))};
  }
  return found;
}

std::optional<std::string_view> strip(std::string_view f, std::string_view ext) {
  if (f.size() > ext.size() && f.ends_with(ext)) return f.substr(0, f.size() - ext.size());
  return std::nullopt;
}

bool alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool all_of(std::string_view s, bool (*ok)(char)) {
  for (char c : s) {
    if (!ok(c)) return false;
  }
  return !s.empty();
}

bool maven_char(char c) {
  return alnum(c) || c == '.' || c == '_' || c == '-';
}
bool conda_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}
bool go_char(char c) {
  return alnum(c) || c == '.' || c == '_' || c == '~' || c == '-';
}
bool version_char(char c) {
  return alnum(c) || c == '.' || c == '_' || c == '+' || c == '!' || c == '~' || c == '-';
}

// Split on '/' into parts none of which is empty, "." or "..".
std::optional<std::vector<std::string_view>> path_parts(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == '/') {
      std::string_view part = s.substr(start, i - start);
      if (part.empty() || part == "." || part == "..") return std::nullopt;
      out.push_back(part);
      start = i + 1;
    }
  }
  return out;
}

// Maven's groupId:artifactId, or the artifactId alone as a jar's file name gives it.
bool maven_name(std::string_view n) {
  auto colon = n.find(':');
  if (colon == std::string_view::npos) return all_of(n, maven_char);
  return all_of(n.substr(0, colon), maven_char) && all_of(n.substr(colon + 1), maven_char);
}

bool composer_name(std::string_view n) {
  auto parts = path_parts(n);
  return parts && parts->size() == 2 && all_of((*parts)[0], conda_char) && all_of((*parts)[1], conda_char) &&
         alnum((*parts)[0][0]) && alnum((*parts)[1][0]);
}

bool go_module(std::string_view n) {
  auto parts = path_parts(n);
  if (!parts) return false;
  for (std::string_view p : *parts) {
    if (!all_of(p, go_char)) return false;
  }
  return true;
}

struct Grammar {
  bool (*name)(std::string_view);
  const char* name_rule;
  bool slash_in_name;  // npm's @scope/name, composer's vendor/package, a Go module path
};

Grammar grammar_of(PackageKind k) {
  switch (k) {
    case PackageKind::kNpm:
      return {[](std::string_view n) { return wire::valid_package_name("npm", n); },
              "npm's naming rules (URL-safe characters, an optional @scope/, no leading '.' or '_')", true};
    case PackageKind::kPypi:
      return {[](std::string_view n) { return wire::valid_package_name("pypi", n); },
              "PEP 508 (letters, digits, '.', '_' and '-', beginning and ending with a letter or digit)", false};
    case PackageKind::kCargo:
      return {[](std::string_view n) { return wire::valid_package_name("cargo", n); },
              "crates.io's rules (an ASCII letter, then letters, digits, '-' or '_', at most 64)", false};
    case PackageKind::kRubygems:
      return {[](std::string_view n) { return wire::valid_package_name("rubygems", n); },
              "RubyGems' rules (letters, digits, '.', '-' and '_', at least one letter)", false};
    case PackageKind::kComposer:
      return {composer_name, "Composer's rules (vendor/package: lowercase letters, digits, '.', '_' and '-')", true};
    case PackageKind::kGoproxy:
      return {go_module, "Go's module paths (elements of letters, digits, '.', '_', '~' and '-' joined by '/')", true};
    case PackageKind::kMaven:
      return {maven_name, "Maven's rules (groupId:artifactId, each of letters, digits, '.', '_' and '-')", false};
    case PackageKind::kNuget:
      return {[](std::string_view n) { return n.size() <= 100 && all_of(n, maven_char); },
              "NuGet's rules (letters, digits, '.', '_' and '-', at most 100)", false};
    case PackageKind::kConda:
      return {[](std::string_view n) { return all_of(n, conda_char); },
              "conda's rules (lowercase letters, digits, '.', '_' and '-')", false};
  }
  return {[](std::string_view) { return false; }, "no known rules", false};
}

// The first thing in `s` that no package registry allows in a name or version, in words.
std::optional<std::string> forbidden_character(std::string_view s, bool slash_allowed) {
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == ' ') return "it holds a space";
    if (u < 0x20 || u == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", u);
      return std::string("it holds a control character (") + hex + ")";
    }
    if (c == '\\' || (c == '/' && !slash_allowed)) return std::string("it holds a path separator ('") + c + "')";
    if (u >= 0x80) return "it holds a byte outside ASCII";
  }
  return std::nullopt;
}

}  // namespace

std::string shown(std::string_view s, std::size_t max) {
  std::string out;
  for (char c : s.substr(0, max)) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", u);
      out += hex;
    } else {
      out += c;
    }
  }
  if (s.size() > max) out += "...";
  return out;
}

std::optional<std::string> name_problem(PackageKind kind, std::string_view name) {
  const Grammar g = grammar_of(kind);
  if (name.empty()) return "it is empty";
  if (name.size() > wire::kPackageNameMaxBytes)
    return "it is longer than " + std::to_string(wire::kPackageNameMaxBytes) + " bytes";
  // npm's one slash is its scope's: "@scope/name". Anywhere else it is a path.
  const bool slash_ok = g.slash_in_name && (kind != PackageKind::kNpm || name.starts_with('@'));
  if (auto bad = forbidden_character(name, slash_ok)) return bad;
  if (!g.name(name)) return std::string("it does not follow ") + g.name_rule;
  return std::nullopt;
}

std::optional<std::string> version_problem(PackageKind kind, std::string_view version) {
  if (version.empty()) return "it is empty";
  if (version.size() > wire::kPackageVersionMaxBytes)
    return "it is longer than " + std::to_string(wire::kPackageVersionMaxBytes) + " bytes";
  if (auto bad = forbidden_character(version, false)) return bad;
  switch (kind) {
    case PackageKind::kNpm:
    case PackageKind::kCargo:
      if (!wire::is_semver(version)) return "it is not a semantic version (MAJOR.MINOR.PATCH[-pre][+build])";
      break;
    case PackageKind::kPypi:
      if (!wire::is_pep440(version)) return "it is not a PEP 440 version";
      break;
    case PackageKind::kRubygems:
      if (!wire::valid_package_version("rubygems", version)) return "it is not a RubyGems version";
      break;
    case PackageKind::kGoproxy:
      if (!version.starts_with('v') || !wire::is_semver(version.substr(1)))
        return "it is not a Go module version (v and a semantic version)";
      break;
    default:
      if (!alnum(version[0]) || !all_of(version, version_char))
        return "it does not follow a version's characters (letters, digits, '.', '_', '+', '!', '~' and '-', "
               "beginning with a letter or digit)";
  }
  return std::nullopt;
}

// One grammar on both sides of the wall: the agent judges the versions it reads with these.
bool is_semver(std::string_view v) {
  return wire::is_semver(v);
}
bool is_pep440(std::string_view v) {
  return wire::is_pep440(v);
}

FileNameReading read_file_name(std::string_view path, std::optional<PackageKind> hint) {
  const std::string_view f = base_name(path);
  FileNameReading r;
  auto fill = [&](PackageKind k, std::optional<std::pair<std::string, std::string>> nv) {
    r.kind = k;
    if (nv) {
      r.name = std::move(nv->first);
      r.version = std::move(nv->second);
    }
    return r;
  };
  if (auto stem = strip(f, ".whl")) return fill(PackageKind::kPypi, name_version_tags(*stem, is_pep440));
  if (auto stem = strip(f, ".tgz")) {
    // npm pack names a tarball <name>-<version>.tgz, and a scope becomes a prefix: @s/x →
    // s-x-1.0.0.tgz. A name with a dash may therefore be scoped or not (babel-core is also
    // @babel/core's file name): the version stands, the name is the package.json's.
    fill(PackageKind::kNpm, name_then_version(*stem, is_semver));
    if (r.name && r.name->find('-') != std::string::npos) r.name.reset();
    return r;
  }
  if (auto stem = strip(f, ".crate")) return fill(PackageKind::kCargo, name_then_version(*stem, is_semver));
  if (auto stem = strip(f, ".gem")) return fill(PackageKind::kRubygems, name_version_tags(*stem, any_version));
  if (auto stem = strip(f, ".jar")) return fill(PackageKind::kMaven, name_version_tags(*stem, any_version));
  if (auto stem = strip(f, ".nupkg")) {
    // NuGet: <id>.<version>.nupkg, the id itself dotted: the version starts at the first
    // dot-separated part that is a number.
    for (std::size_t i = 1; i + 1 < stem->size(); ++i) {
      if ((*stem)[i] == '.' && starts_with_digit(stem->substr(i + 1))) {
        return fill(PackageKind::kNuget, std::pair{std::string(stem->substr(0, i)), std::string(stem->substr(i + 1))});
      }
    }
    return fill(PackageKind::kNuget, std::nullopt);
  }
  // .tar.gz and .zip are shared: an sdist (PEP 625's <name>-<version>.tar.gz, or an older
  // .zip), an npm tarball saved under another name, a crate's source… With the operator's
  // --kind the file is read by that kind's grammar; without it, only a name that fits
  // PyPA's sdist grammar (a PEP 440 version after the name) is taken as an sdist.
  for (std::string_view ext : {".tar.gz", ".zip", ".tar.bz2", ".tar"}) {
    auto stem = strip(f, ext);
    if (!stem) continue;
    if (hint == PackageKind::kNpm || hint == PackageKind::kCargo) {
      fill(*hint, name_then_version(*stem, is_semver));
      if (hint == PackageKind::kNpm && r.name && r.name->find('-') != std::string::npos) r.name.reset();  // as .tgz
      return r;
    }
    if (hint && hint != PackageKind::kPypi) return fill(*hint, name_version_tags(*stem, any_version));
    if (hint) return fill(*hint, sdist_name_version(*stem));
    if (auto nv = sdist_name_version(*stem)) return fill(PackageKind::kPypi, std::move(nv));
    return r;
  }
  return r;
}

}  // namespace batlehub::core
