#include "core/identify.h"

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

bool starts_with_digit(std::string_view s) { return !s.empty() && s[0] >= '0' && s[0] <= '9'; }

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

bool any_version(std::string_view v) { return !v.empty(); }

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

}  // namespace

// One grammar on both sides of the wall: the agent judges the versions it reads with these.
bool is_semver(std::string_view v) { return wire::is_semver(v); }
bool is_pep440(std::string_view v) { return wire::is_pep440(v); }

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
