#include "server/service/artifact_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "adapters/sandbox/blob.h"
#include "base/fd.h"
#include "core/identify.h"
#include "core/storage.h"

namespace batlehub::server {

namespace {

namespace fs = std::filesystem;

struct Digest {
  std::string sha256;
  std::uint64_t size = 0;
};

// The sha256 and length of everything `fd` holds from offset 0 (pread: the offset is left alone).
Expected<Digest, std::string> digest_of(int fd) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> md(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!md || EVP_DigestInit_ex(md.get(), EVP_sha256(), nullptr) != 1) {
    return Unexpected(std::string("sha256: OpenSSL could not start a digest"));
  }
  Digest d;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::pread(fd, buf, sizeof buf, static_cast<off_t>(d.size));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Unexpected(std::string("reading it back: ") + std::strerror(errno));
    if (n == 0) break;
    EVP_DigestUpdate(md.get(), buf, static_cast<std::size_t>(n));
    d.size += static_cast<std::uint64_t>(n);
  }
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(md.get(), out, &len);
  static constexpr char kHex[] = "0123456789abcdef";
  for (unsigned int i = 0; i < len; ++i) {
    d.sha256 += kHex[out[i] >> 4];
    d.sha256 += kHex[out[i] & 15];
  }
  return d;
}

// What a cached file's name says of its kind: upstream's names for the kinds that have one
// (A.6's table), else the ecosystem's own file-name grammar.
std::optional<core::PackageKind> kind_of_file(std::string_view file) {
  using core::PackageKind;
  if (file == "tarball") return PackageKind::kNpm;
  if (file == "dl") return PackageKind::kCargo;
  if (file == "dist") return PackageKind::kComposer;
  if (file == "gem") return PackageKind::kRubygems;
  if (file == "zip") return PackageKind::kGoproxy;
  if (file.ends_with(".nupkg")) return PackageKind::kNuget;
  return core::read_file_name(file).kind;
}

std::string routed_backend(const config::Config& c, const config::RegistryEntry* entry) {
  return entry != nullptr && !entry->storage.empty() ? entry->storage : c.storage.default_backend;
}

}  // namespace

Expected<std::string, std::string> artifact_key(const config::Config& c, const core::Package& p,
                                                std::string_view file_name) {
  if (const auto* entry = c.find_registry(p.registry)) {
    if (core::parse_package_kind(entry->type) != p.kind) {
      return Unexpected("registry \"" + p.registry + "\" (" + entry->key + ") is of type \"" + entry->type + "\": a " +
                        std::string(core::to_string(p.kind)) + " archive is not cached under it");
    }
    auto key = core::upstream_artifact_key(entry->type, p.registry, p.name, p.version);
    if (!key) {
      return Unexpected("registry \"" + p.registry + "\" is of type \"" + entry->type +
                        "\", of whose versions upstream caches no single file: nothing can be scanned for it");
    }
    return *key;
  }
  if (auto key = core::upstream_artifact_key(core::to_string(p.kind), p.registry, p.name, p.version)) return *key;
  const std::string base = fs::path(std::string(file_name)).filename().string();
  if (kind_of_file(base) != p.kind) {
    return Unexpected("\"" + base + "\" does not say by its name that it is a " + std::string(core::to_string(p.kind)) +
                      " archive, and registry \"" + p.registry +
                      "\" is not among [[registries]] to say it instead: name the file as its ecosystem does, or "
                      "declare the registry with its type");
  }
  return "artifact:" + p.registry + "/" + p.name + "/" + p.version + "/" + base;
}

ArtifactCache::ArtifactCache(const config::Config& cfg, std::shared_ptr<adapters::StorageRouter> storage,
                             core::ScanQueue& queue, std::string spool_dir)
    : cfg_(cfg), storage_(std::move(storage)), queue_(queue), spool_dir_(std::move(spool_dir)) {}

std::uint64_t ArtifactCache::max_bytes() const {
  return static_cast<std::uint64_t>(cfg_.worker.sandbox.max_extracted_mb) * 2 * 1024 * 1024;
}

Expected<std::shared_ptr<const core::Blob>, std::string> ArtifactCache::read_verified(
    core::StorageBackend& backend, const std::string& object_key, const std::string& logical_key,
    const std::string& want_sha256, std::optional<std::int64_t> want_size, bool* not_found) const {
  *not_found = false;
  std::error_code ec;
  fs::create_directories(spool_dir_, ec);
  if (ec) return Unexpected(spool_dir_ + ": cannot be created: " + ec.message());
  std::string path = spool_dir_ + "/artifact-XXXXXX";
  base::Fd fd(::mkostemp(path.data(), O_CLOEXEC));
  if (!fd.valid()) return Unexpected(spool_dir_ + ": cannot create a file: " + std::strerror(errno));
  struct Unlink {
    const std::string& path;
    ~Unlink() { ::unlink(path.c_str()); }
  } unlink_after{path};

  auto got = backend.get_to_fd(object_key, fd.get(), max_bytes());
  if (!got) {
    *not_found = got.error().kind == core::StorageError::Kind::kNotFound;
    return Unexpected(logical_key + ": " + got.error().message);
  }
  auto d = digest_of(fd.get());
  if (!d) return Unexpected(logical_key + ": " + path + ": " + d.error());
  const std::string where = logical_key + " (" + object_key + " on storage backend '" + backend.name() + "')";
  if (!want_sha256.empty() && d->sha256 != want_sha256) {
    return Unexpected(where + " hashes to sha256:" + d->sha256 + ", not the sha256:" + want_sha256 +
                      " the dedup index records: not scanned");
  }
  if (want_size && static_cast<std::uint64_t>(*want_size) != d->size) {
    return Unexpected(where + " is " + std::to_string(d->size) + " bytes, not the " + std::to_string(*want_size) +
                      " the dedup index records: not scanned");
  }
  // The blob keeps its own descriptor: the name goes at once, and what a run copies is the
  // file just verified.
  auto blob = adapters::file_blob(path, d->sha256);
  if (!blob) return Unexpected(where + ": " + blob.error());
  return std::move(*blob);
}

Expected<CachedArtifact, std::string> ArtifactCache::fetch(const core::Coordinate& c) const {
  const config::RegistryEntry* entry = cfg_.find_registry(c.registry);
  CachedArtifact out;
  std::vector<core::CachedArtifactRow> rows;
  if (entry != nullptr) {
    auto kind = core::parse_package_kind(entry->type);
    if (!kind) {
      return Unexpected("registry \"" + entry->name + "\" (" + entry->key + ") is of type \"" + entry->type +
                        "\", which this worker has no scanner for");
    }
    auto key = core::upstream_artifact_key(entry->type, c.registry, c.name, c.version);
    if (!key) {
      return Unexpected("registry \"" + entry->name + "\" is of type \"" + entry->type +
                        "\", of whose versions upstream caches no single file (upstream-storage-and-queue.md A.6): "
                        "there are no bytes to scan");
    }
    out.kind = *kind;
    out.logical_key = *key;
    auto found = queue_.cached_artifacts(*key, false);
    if (!found) return Unexpected(found.error().message);
    rows = std::move(*found);
  } else {
    const std::string prefix = "artifact:" + c.registry + "/" + c.name + "/" + c.version + "/";
    auto found = queue_.cached_artifacts(prefix, true);
    if (!found) return Unexpected(found.error().message);
    rows = std::move(*found);
    if (rows.empty()) {
      return Unexpected("no artifact is cached under " + prefix +
                        " (this worker downloads nothing from registries: `batlehub submit` the archive)");
    }
    if (rows.size() > 1) {
      return Unexpected("several files are cached under " + prefix + " (" + rows[0].logical_key + ", " +
                        rows[1].logical_key + "…), and registry \"" + c.registry +
                        "\" is not among [[registries]] to say which is the version's");
    }
    out.logical_key = rows[0].logical_key;
    auto kind = kind_of_file(std::string_view(out.logical_key).substr(prefix.size()));
    if (!kind) return Unexpected(out.logical_key + ": its file name does not say which ecosystem it is");
    out.kind = *kind;
  }

  const core::CachedArtifactRow* row = nullptr;
  for (const auto& r : rows) {
    if (r.logical_key == out.logical_key) row = &r;
  }
  auto backend_named = [&](const std::optional<std::string>& name, const std::string& otherwise) {
    auto b = name ? storage_->leaf(*name) : nullptr;
    return b ? b : storage_->leaf(otherwise);
  };
  const std::string routed = routed_backend(cfg_, entry);
  std::string looked;
  std::string want_sha;
  // A.6 step 1: the content's blob, on the backend artifact_storage names (else the default).
  if (row != nullptr && !row->content_hash.empty()) {
    if (!adapters::is_sha256_hex(row->content_hash)) {
      return Unexpected("artifact_dedup_refs.content_hash of " + out.logical_key + " is not a sha256");
    }
    want_sha = row->content_hash;
    auto b = backend_named(row->backend_name, cfg_.storage.default_backend);
    if (!b) return Unexpected("storage backend '" + cfg_.storage.default_backend + "' is not declared");
    bool not_found = false;
    auto blob = read_verified(*b, row->content_key, out.logical_key, want_sha, row->size_bytes, &not_found);
    if (blob) {
      out.blob = std::move(*blob);
      return out;
    }
    if (!not_found) return Unexpected(blob.error());
    looked = row->content_key + " on '" + b->name() + "'";
  }
  // Step 2: upstream's legacy layout, the object at the key itself.
  auto b = backend_named(row != nullptr ? row->backend_name : std::nullopt, routed);
  if (!b) return Unexpected("storage backend '" + routed + "' is not declared");
  bool not_found = false;
  auto blob = read_verified(*b, out.logical_key, out.logical_key, want_sha, std::nullopt, &not_found);
  if (blob) {
    out.blob = std::move(*blob);
    return out;
  }
  if (!not_found) return Unexpected(blob.error());
  looked += (looked.empty() ? "" : ", then ") + out.logical_key + " on '" + b->name() + "'";
  return Unexpected(out.logical_key + " is not cached (looked for " + looked +
                    "): this worker downloads nothing from registries");
}

Expected<std::string, std::string> ArtifactCache::store(const std::string& path, const core::Package& p) const {
  auto key = artifact_key(cfg_, p, path);
  if (!key) return Unexpected(key.error());
  base::Fd in(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!in.valid()) return Unexpected(path + ": cannot be opened: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(in.get(), &st) != 0 || !S_ISREG(st.st_mode)) return Unexpected(path + ": is not a regular file");
  auto d = digest_of(in.get());
  if (!d) return Unexpected(path + ": " + d.error());
  if (d->size > max_bytes()) {
    return Unexpected(path + ": " + std::to_string(d->size) + " bytes, more than an artifact may have here (" +
                      std::to_string(max_bytes()) + ", twice [worker.sandbox] max_extracted_mb)");
  }
  auto blob = adapters::file_blob(path, d->sha256);
  if (!blob) return Unexpected(path + ": " + blob.error());
  // The bytes once: where they already are, else on the backend the key routes to.
  auto holder = storage_->store_blob(**blob, d->sha256, routed_backend(cfg_, cfg_.find_registry(p.registry)));
  if (!holder) return Unexpected(holder.error().message);
  if (auto r = queue_.record_artifact(*key, d->sha256, static_cast<std::int64_t>(d->size), *holder); !r) {
    return Unexpected(r.error().message);
  }
  return d->sha256;
}

}  // namespace batlehub::server
