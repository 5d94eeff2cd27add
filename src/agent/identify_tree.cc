#include "agent/identify_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "base/fd.h"
#include "wire/json_reader.h"

namespace batlehub::agent {

namespace {

using wire::Identity;
using wire::IdentityRefusal;

Unexpected<IdentityRefusal> refused(std::string_view from, std::string problem) {
  return Unexpected(IdentityRefusal{std::string(from) + ": " + problem, std::string(from)});
}

// A value quoted back in a message: bounded, so a hostile file cannot fill the report.
std::string shown(std::string_view v) {
  constexpr std::size_t kMax = 80;
  std::string out = "'";
  out += v.substr(0, kMax);
  if (v.size() > kMax) out += "…";
  out += "'";
  return out;
}

MetadataReading checked(std::string_view kind, std::string name, std::string version, std::string_view from) {
  if (!wire::valid_package_name(kind, name)) {
    return refused(from, "the name " + shown(name) + " is not a valid " + std::string(kind) + " package name");
  }
  if (!wire::valid_package_version(kind, version)) {
    const char* grammar = kind == "pypi" ? "PEP 440" : kind == "rubygems" ? "Gem::Version" : "semver";
    return refused(from, "the version " + shown(version) + " is not a " + grammar + " version");
  }
  return Identity{std::string(kind), std::move(name), std::move(version), std::string(from)};
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Lines without their '\n' (and a trailing '\r'); the last may lack a newline.
std::vector<std::string_view> lines_of(std::string_view s) {
  std::vector<std::string_view> out;
  while (!s.empty()) {
    auto nl = s.find('\n');
    std::string_view line = s.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    if (nl == std::string_view::npos) break;
    s.remove_prefix(nl + 1);
  }
  return out;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return (x >= 'A' && x <= 'Z' ? x + 32 : x) == (y >= 'A' && y <= 'Z' ? y + 32 : y);
         });
}

// A YAML or TOML scalar as these files write it: bare, '…' or "…" with no escape in it.
std::optional<std::string> unquote(std::string_view v) {
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) {
    std::string_view in = v.substr(1, v.size() - 2);
    if (in.find(v.front()) != std::string_view::npos || in.find('\\') != std::string_view::npos) return std::nullopt;
    return std::string(in);
  }
  if (!v.empty() && (v.front() == '"' || v.front() == '\'')) return std::nullopt;
  return std::string(v);
}

}  // namespace

MetadataReading read_package_json(std::string_view bytes, std::string_view from) {
  if (bytes.size() > kMetadataMaxBytes) return refused(from, "is more than 1 MiB");
  // Deep enough for any real package.json; a deeper one is refused before it is built.
  auto doc = wire::detail::parse_bounded(bytes, kMetadataMaxBytes, 64);
  if (!doc) return refused(from, doc.error().message);
  if (!doc->is_object()) return refused(from, "is not a JSON object");
  auto name = doc->find("name");
  if (name == doc->end()) return refused(from, "has no \"name\"");
  if (!name->is_string()) return refused(from, "\"name\" is not a string");
  auto version = doc->find("version");
  if (version == doc->end()) return refused(from, "has no \"version\"");
  if (!version->is_string()) return refused(from, "\"version\" is not a string");
  return checked("npm", name->get<std::string>(), version->get<std::string>(), from);
}

MetadataReading read_core_metadata(std::string_view bytes, std::string_view from) {
  if (bytes.size() > kMetadataMaxBytes) return refused(from, "is more than 1 MiB");
  std::optional<std::string> name;
  std::optional<std::string> version;
  for (std::string_view line : lines_of(bytes)) {
    if (line.empty()) break;  // the headers end; the body is the description
    if (line.front() == ' ' || line.front() == '\t') continue;  // a folded header's continuation
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;  // not a header; neither Name nor Version
    std::string_view key = line.substr(0, colon);
    std::optional<std::string>* slot = iequals(key, "Name") ? &name : iequals(key, "Version") ? &version : nullptr;
    if (slot == nullptr) continue;
    if (*slot) return refused(from, "has more than one " + std::string(key) + ": header");
    *slot = std::string(trim(line.substr(colon + 1)));
  }
  if (!name) return refused(from, "has no Name: header");
  if (!version) return refused(from, "has no Version: header");
  return checked("pypi", std::move(*name), std::move(*version), from);
}

MetadataReading read_cargo_toml(std::string_view bytes, std::string_view from) {
  if (bytes.size() > kMetadataMaxBytes) return refused(from, "is more than 1 MiB");
  bool in_package = false;
  bool saw_package = false;
  std::optional<std::string> name;
  std::optional<std::string> version;
  for (std::string_view raw : lines_of(bytes)) {
    std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#') continue;
    if (line.front() == '[') {
      auto close = line.find(']');
      std::string_view header = close == std::string_view::npos ? "" : trim(line.substr(1, close - 1));
      in_package = !line.starts_with("[[") && header == "package";
      if (in_package) {
        if (saw_package) return refused(from, "has more than one [package] table");
        saw_package = true;
      }
      continue;
    }
    if (!in_package) continue;
    auto eq = line.find('=');
    if (eq == std::string_view::npos) continue;  // a multi-line value's continuation
    std::string_view key = trim(line.substr(0, eq));
    std::string_view value = trim(line.substr(eq + 1));
    if (key == "name.workspace" || key == "version.workspace") {
      return refused(from, "[package] " + std::string(key) + " inherits from a workspace; a published crate writes "
                           "its " + std::string(key.substr(0, key.find('.'))) + " out");
    }
    std::optional<std::string>* slot = key == "name" ? &name : key == "version" ? &version : nullptr;
    if (slot == nullptr) continue;
    if (*slot) return refused(from, "[package] " + std::string(key) + " is given twice");
    // A comment may follow the value: `version = "1.0.0" # …`. Names and versions hold no '#'.
    if (auto hash = value.find('#'); hash != std::string_view::npos) value = trim(value.substr(0, hash));
    if (value.starts_with('{')) {
      return refused(from, "[package] " + std::string(key) + " is a table (inherited from a workspace?); a published "
                           "crate writes it as a string");
    }
    if (value.starts_with("\"\"\"") || value.starts_with("'''")) {
      return refused(from, "[package] " + std::string(key) + " is a multi-line string");
    }
    if (value.size() < 2 || (value.front() != '"' && value.front() != '\'')) {
      return refused(from, "[package] " + std::string(key) + " is not a string");
    }
    auto s = unquote(value);
    if (!s) return refused(from, "[package] " + std::string(key) + " is not a plain quoted string (escapes are not read)");
    *slot = std::move(*s);
  }
  if (!saw_package) return refused(from, "has no [package] table (a workspace's manifest?)");
  if (!name) return refused(from, "[package] has no name");
  if (!version) return refused(from, "[package] has no version");
  return checked("cargo", std::move(*name), std::move(*version), from);
}

MetadataReading read_gem_metadata(std::string_view yaml, std::string_view from) {
  if (yaml.size() > kMetadataMaxBytes) return refused(from, "is more than 1 MiB");
  auto lines = lines_of(yaml);
  if (lines.empty() || !trim(lines[0]).starts_with("--- !ruby/object:Gem::Specification")) {
    return refused(from, "does not begin with '--- !ruby/object:Gem::Specification'");
  }
  std::optional<std::string> name;
  std::optional<std::string> version;
  bool in_version = false;  // inside the top-level `version: !ruby/object:Gem::Version` mapping
  for (std::size_t i = 1; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (line.empty() || trim(line).empty() || trim(line).front() == '#') continue;
    bool indented = line.front() == ' ';
    if (!indented) {
      in_version = false;
      auto colon = line.find(':');
      if (colon == std::string_view::npos) continue;
      std::string_view key = line.substr(0, colon);
      std::string_view value = trim(line.substr(colon + 1));
      if (key == "name") {
        if (name) return refused(from, "has more than one top-level name:");
        auto s = unquote(value);
        if (!s) return refused(from, "name: is not a plain scalar");
        name = std::move(*s);
      } else if (key == "version") {
        if (version || in_version) return refused(from, "has more than one top-level version:");
        if (!value.starts_with("!ruby/object:Gem::Version")) {
          return refused(from, "version: is not a !ruby/object:Gem::Version mapping");
        }
        in_version = true;
        version = std::string();  // filled by the mapping's own version: line
      }
      continue;
    }
    if (!in_version) continue;
    std::string_view inner = trim(line);
    if (!inner.starts_with("version:")) continue;
    if (!version->empty()) return refused(from, "the version: mapping has more than one version:");
    auto s = unquote(trim(inner.substr(8)));
    if (!s || s->empty()) return refused(from, "the version: mapping's version: is not a plain scalar");
    *version = std::move(*s);
  }
  if (!name) return refused(from, "has no top-level name:");
  if (!version) return refused(from, "has no top-level version:");
  if (version->empty()) return refused(from, "the version: mapping holds no version:");
  return checked("rubygems", std::move(*name), std::move(*version), from);
}

Expected<std::string, std::string> gunzip_bounded(std::string_view gz, std::size_t max) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return Unexpected(std::string("zlib could not start"));
  struct End {
    z_stream* z;
    ~End() { inflateEnd(z); }
  } end{&z};
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  z.avail_in = static_cast<uInt>(gz.size());
  std::string out;
  char buf[16 * 1024];
  for (;;) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    int rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      return Unexpected(std::string("is not valid gzip") + (z.msg ? std::string(" (") + z.msg + ")" : ""));
    }
    std::size_t got = sizeof buf - z.avail_out;
    if (out.size() + got > max) return Unexpected("inflates to more than " + std::to_string(max) + " bytes");
    out.append(buf, got);
    if (rc == Z_STREAM_END) return out;
    if (z.avail_in == 0 && got == 0) return Unexpected(std::string("is a truncated gzip stream"));
  }
}

namespace {

// The tree, seen from the extracted dir's descriptor. Every name is looked up in a
// directory we hold open, with O_NOFOLLOW: the extractor never creates a symlink, and
// nothing here would follow one if it had.
struct Tree {
  base::Fd root;
  std::vector<std::string> top_files;
  std::vector<std::string> top_dirs;
};

enum class Type { kNone, kFile, kDir, kOther };

Type type_at(int dir, const std::string& name) {
  struct stat st{};
  if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return Type::kNone;
  if (S_ISREG(st.st_mode)) return Type::kFile;
  if (S_ISDIR(st.st_mode)) return Type::kDir;
  return Type::kOther;
}

Expected<Tree, std::string> open_tree(const std::string& dir) {
  Tree t;
  t.root = base::Fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!t.root.valid()) return Unexpected("cannot open the extracted dir " + dir + ": " + std::strerror(errno));
  int listing = ::dup(t.root.get());
  if (listing < 0) return Unexpected(std::string("dup: ") + std::strerror(errno));
  DIR* d = ::fdopendir(listing);
  if (d == nullptr) {
    ::close(listing);
    return Unexpected("cannot list " + dir + ": " + std::strerror(errno));
  }
  // The extraction policy bounds the entries; this bounds what is kept of the top.
  constexpr std::size_t kMaxTopEntries = 10'000;
  std::size_t seen = 0;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n == "." || n == "..") continue;
    if (++seen > kMaxTopEntries) break;
    Type ty = type_at(t.root.get(), n);
    if (ty == Type::kFile) t.top_files.push_back(n);
    if (ty == Type::kDir) t.top_dirs.push_back(n);
  }
  ::closedir(d);
  std::sort(t.top_files.begin(), t.top_files.end());
  std::sort(t.top_dirs.begin(), t.top_dirs.end());
  return t;
}

// A file beneath the root at `parts` (one or two components), opened without following
// any link, refused unless it is a regular file within the bound, then read whole.
Expected<std::string, std::string> read_beneath(int root, const std::vector<std::string>& parts) {
  base::Fd parent;
  int at = root;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    parent = base::Fd(::openat(at, parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!parent.valid()) return Unexpected(std::string("cannot open its directory: ") + std::strerror(errno));
    at = parent.get();
  }
  base::Fd f(::openat(at, parts.back().c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!f.valid()) {
    if (errno == ELOOP) return Unexpected(std::string("is a symlink (never followed)"));
    return Unexpected(std::string("cannot be opened: ") + std::strerror(errno));
  }
  struct stat st{};
  if (::fstat(f.get(), &st) != 0) return Unexpected(std::string("fstat: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return Unexpected(std::string("is not a regular file"));
  if (static_cast<std::uint64_t>(st.st_size) > kMetadataMaxBytes) {
    return Unexpected("is " + std::to_string(st.st_size) + " bytes, more than the 1 MiB read");
  }
  std::string bytes(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < bytes.size()) {
    ssize_t n = ::read(f.get(), bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Unexpected(std::string("read: ") + std::strerror(errno));
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  bytes.resize(got);
  return bytes;
}

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "/") + p;
  return out;
}

// A candidate metadata file: where, and which reader.
struct Candidate {
  std::vector<std::string> parts;
  MetadataReading (*reader)(std::string_view, std::string_view);
  bool gzipped = false;
};

MetadataReading read_candidate(int root, const Candidate& c) {
  const std::string from = joined(c.parts);
  auto bytes = read_beneath(root, c.parts);
  if (!bytes) return refused(from, bytes.error());
  if (!c.gzipped) return c.reader(*bytes, from);
  auto plain = gunzip_bounded(*bytes, kMetadataMaxBytes);
  if (!plain) return refused(from, plain.error());
  return c.reader(*plain, from);
}

bool has(const std::vector<std::string>& v, std::string_view n) { return std::find(v.begin(), v.end(), n) != v.end(); }

// The top's one directory, when it has exactly one (an sdist's name-version/, a crate's).
std::optional<std::string> only_dir(const Tree& t) {
  if (t.top_dirs.size() != 1) return std::nullopt;
  return t.top_dirs[0];
}

std::optional<Candidate> file_at_top_or_wrapper(const Tree& t, const std::string& file,
                                                MetadataReading (*reader)(std::string_view, std::string_view)) {
  if (has(t.top_files, file)) return Candidate{{file}, reader};
  if (auto d = only_dir(t); d && type_at(t.root.get(), *d + "/" + file) != Type::kNone) {
    // type_at with a slash walks the one directory; the read below refuses a link there.
    return Candidate{{*d, file}, reader};
  }
  return std::nullopt;
}

std::vector<std::string> dist_infos(const Tree& t) {
  std::vector<std::string> out;
  for (const auto& d : t.top_dirs) {
    if (d.size() > 10 && d.ends_with(".dist-info")) out.push_back(d);
  }
  return out;
}

}  // namespace

wire::IdentityAnswer identify_tree(const std::string& dir, std::optional<std::string_view> kind) {
  auto tree = open_tree(dir);
  if (!tree) return IdentityRefusal{tree.error(), ""};
  const Tree& t = *tree;
  auto wants = [&](std::string_view k) { return !kind || *kind == k; };
  auto answer = [&](const Candidate& c) -> wire::IdentityAnswer {
    auto r = read_candidate(t.root.get(), c);
    if (!r) return std::move(r).error();
    return std::move(*r);
  };

  if (wants("rubygems")) {
    if (has(t.top_files, "metadata.gz")) return answer(Candidate{{"metadata.gz"}, read_gem_metadata, true});
    if (has(t.top_files, "metadata")) return answer(Candidate{{"metadata"}, read_gem_metadata});
  }
  if (wants("pypi")) {
    auto infos = dist_infos(t);
    if (infos.size() > 1) {
      return IdentityRefusal{"the archive's top holds " + std::to_string(infos.size()) +
                                 " .dist-info directories (" + infos[0] + ", " + infos[1] + "…); a wheel has one",
                             infos[0]};
    }
    if (infos.size() == 1) return answer(Candidate{{infos[0], "METADATA"}, read_core_metadata});
    if (auto c = file_at_top_or_wrapper(t, "PKG-INFO", read_core_metadata)) return answer(*c);
  }
  std::optional<Candidate> npm;
  std::optional<Candidate> cargo;
  if (wants("npm")) {
    if (has(t.top_dirs, "package") && type_at(t.root.get(), "package/package.json") != Type::kNone) {
      return answer(Candidate{{"package", "package.json"}, read_package_json});  // npm pack's own wrapper
    }
    npm = file_at_top_or_wrapper(t, "package.json", read_package_json);
  }
  if (wants("cargo")) cargo = file_at_top_or_wrapper(t, "Cargo.toml", read_cargo_toml);
  if (npm && cargo) {
    return IdentityRefusal{"the archive holds both " + joined(npm->parts) + " and " + joined(cargo->parts) +
                               " and no packaging metadata that settles which it is; pass --kind",
                           joined(npm->parts)};
  }
  if (npm) return answer(*npm);
  if (cargo) return answer(*cargo);

  std::string looked = !kind                ? "no package.json, PKG-INFO, METADATA, Cargo.toml or gem metadata"
                       : *kind == "npm"     ? "no package.json"
                       : *kind == "pypi"    ? "no PKG-INFO or *.dist-info/METADATA"
                       : *kind == "cargo"   ? "no Cargo.toml"
                                            : "no gem metadata (metadata.gz)";
  return IdentityRefusal{looked + " at the archive's top or in its one top directory", ""};
}

int identify_main(int argc, char** argv) {
  auto say = [](const std::string& s) {
    std::size_t off = 0;
    while (off < s.size()) {
      ssize_t n = ::write(1, s.data() + off, s.size() - off);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;
      off += static_cast<std::size_t>(n);
    }
  };
  if ((argc != 3 && argc != 4) || std::strcmp(argv[1], "identify") != 0) {
    say(wire::serialize(IdentityRefusal{"usage: batlehub-sandbox identify DIR [npm|pypi|cargo|rubygems]", ""}));
    return 2;
  }
  std::optional<std::string_view> kind;
  if (argc == 4) {
    kind = argv[3];
    if (!wire::is_identified_kind(*kind)) {
      say(wire::serialize(IdentityRefusal{"the agent reads no metadata of kind '" + std::string(*kind) + "'", ""}));
      return 2;
    }
  }
  try {
    wire::IdentityAnswer a = identify_tree(argv[2], kind);
    say(wire::serialize(a));
    return std::holds_alternative<Identity>(a) ? 0 : 1;
  } catch (const std::exception& e) {
    // Out of memory under the run's rlimit, mostly: still an answer the worker can read.
    say(wire::serialize(IdentityRefusal{std::string("the agent could not finish reading: ") + e.what(), ""}));
    return 1;
  }
}

}  // namespace batlehub::agent
