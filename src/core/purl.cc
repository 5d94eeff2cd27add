#include "core/purl.h"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <vector>

#include "base/percent_encode.h"

namespace batlehub::core {

namespace {

std::string enc(std::string_view s) {
  return base::percent_encode(s, false);
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (std::size_t at = 0;;) {
    const std::size_t next = s.find(sep, at);
    out.push_back(s.substr(at, next == std::string_view::npos ? std::string_view::npos : next - at));
    if (next == std::string_view::npos) return out;
    at = next + 1;
  }
}

// Namespace segments joined by '/', each encoded; nullopt when one is empty.
std::optional<std::string> segments(std::string_view path) {
  std::string out;
  for (std::string_view seg : split(path, '/')) {
    if (seg.empty()) return std::nullopt;
    out += (out.empty() ? "" : "/") + enc(seg);
  }
  return out;
}

}  // namespace

std::string purl_type(PackageKind k) {
  switch (k) {
    case PackageKind::kNpm:
      return "npm";
    case PackageKind::kPypi:
      return "pypi";
    case PackageKind::kCargo:
      return "cargo";
    case PackageKind::kRubygems:
      return "gem";
    case PackageKind::kComposer:
      return "composer";
    case PackageKind::kGoproxy:
      return "golang";
    case PackageKind::kMaven:
      return "maven";
    case PackageKind::kNuget:
      return "nuget";
    case PackageKind::kConda:
      return "conda";
  }
  return "generic";
}

std::optional<std::string> purl_of(const Package& p) {
  if (p.name.empty() || p.version.empty()) return std::nullopt;
  std::string ns;  // already encoded, without the trailing '/'
  std::string name = p.name;
  switch (p.kind) {
    case PackageKind::kNpm:
      // "@scope/name": the scope, '@' included, is the namespace (encoded as %40).
      if (name.starts_with('@')) {
        const std::size_t slash = name.find('/');
        if (slash == std::string::npos || slash == 1 || slash + 1 == name.size()) return std::nullopt;
        ns = enc(name.substr(0, slash));
        name = name.substr(slash + 1);
      }
      break;
    case PackageKind::kPypi:
      // The spec: lower-case, '_' replaced by '-' (PEP 503 also folds '.', which the spec
      // leaves; OSV matches either).
      std::transform(name.begin(), name.end(), name.begin(),
                     [](unsigned char c) { return c == '_' ? '-' : static_cast<char>(std::tolower(c)); });
      break;
    case PackageKind::kMaven: {
      const std::size_t colon = name.find(':');
      if (colon == std::string::npos || colon == 0 || colon + 1 == name.size()) return std::nullopt;
      ns = enc(name.substr(0, colon));
      name = name.substr(colon + 1);
      break;
    }
    case PackageKind::kComposer:
    case PackageKind::kGoproxy: {
      // vendor/name, and a module path's every segment but the last, are namespaces.
      const std::size_t slash = name.rfind('/');
      if (slash != std::string::npos) {
        auto joined = segments(std::string_view(name).substr(0, slash));
        if (!joined) return std::nullopt;
        ns = *joined;
        name = name.substr(slash + 1);
      }
      if (p.kind == PackageKind::kComposer) {
        std::transform(ns.begin(), ns.end(), ns.begin(), [](unsigned char c) { return std::tolower(c); });
        std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
      }
      break;
    }
    case PackageKind::kConda:
      return std::nullopt;
    case PackageKind::kCargo:
    case PackageKind::kRubygems:
    case PackageKind::kNuget:
      break;
  }
  if (name.empty()) return std::nullopt;
  return "pkg:" + purl_type(p.kind) + "/" + (ns.empty() ? "" : ns + "/") + enc(name) + "@" + enc(p.version);
}

}  // namespace batlehub::core
