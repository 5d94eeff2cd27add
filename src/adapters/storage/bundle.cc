#include "adapters/storage/bundle.h"

#include <signal.h>

#include <cerrno>
#include <vector>

#include "wire/caps.h"
#include "wire/post_form.h"

namespace batlehub::adapters {

namespace {

using core::SandboxError;
using core::StorageError;
using Kind = SandboxError::Kind;

// A transport failure (the endpoint unreachable, a reset) is the storage transport's, not the
// run's: it says so, and the worker gives the job another attempt (core::ScannerError::transient).
Unexpected<SandboxError> storage_failed(const std::string& what, const StorageError& e) {
  return Unexpected(SandboxError{
      Kind::kIo, what + ": " + e.message,
      e.kind == StorageError::Kind::kIo ? SandboxError::Reason::kTransport : SandboxError::Reason::kUnspecified});
}

std::vector<std::string_view> split(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t end = std::min(s.find('/', start), s.size());
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// "<pid>@<host>-<serial>" → whether it names a worker of `host` that no longer runs.
bool staged_by_a_dead_worker(std::string_view run, std::string_view host) {
  const auto at = run.find('@');
  const auto dash = run.rfind('-');
  if (at == std::string_view::npos || dash == std::string_view::npos || dash < at) return false;
  if (run.substr(at + 1, dash - at - 1) != host) return false;
  long pid = 0;
  for (char c : run.substr(0, at)) {
    if (c < '0' || c > '9' || pid > 4'194'304) return false;
    pid = pid * 10 + (c - '0');
  }
  return pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

}  // namespace

std::string bundle_key_segment(std::string_view s) {
  std::string out;
  for (char c : s) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                      c == '_' || c == '.' || c == '@';
    out += keep ? c : '_';
  }
  if (out.empty() || out == "." || out == "..") out = "_" + out;
  return out;
}

BundleStore::BundleStore(std::shared_ptr<core::StorageBackend> leaf, std::shared_ptr<const StorageRouter> router,
                         BundleOptions o)
    : leaf_(std::move(leaf)), router_(std::move(router)), options_(std::move(o)) {}

std::string BundleStore::run_prefix(const core::RunLabel& label) {
  std::lock_guard lock(mu_);
  std::string run = bundle_key_segment(options_.worker + "-" + std::to_string(++serial_));
  std::string p = options_.prefix + bundle_key_segment(label.job) + "/" + bundle_key_segment(label.scanner) + "/" +
                  std::to_string(label.attempt) + "/" + run + "/";
  in_flight_.insert(p);
  return p;
}

Expected<std::string, SandboxError> BundleStore::input_url(const core::BundleEntry& e, const core::RunLabel& label,
                                                           const std::string& run_prefix, int n,
                                                           std::chrono::seconds ttl, StagedRun& staged) {
  const std::optional<std::string> sha = e.blob->sha256();
  if (sha && router_) {
    // The common case: the job was queued by a request that just cached the artifact. The
    // sandbox then reads the artifact's own blob, where it lies (§5.2).
    auto where = router_->locate_blob(*sha);
    if (where) {
      auto url = where->backend->presign_get(where->key, ttl);
      if (url) {
        staged.bytes_in_place += where->size;
        return std::move(*url);
      }
      if (url.error().kind != StorageError::Kind::kUnsupported)
        return storage_failed("presigning the artifact", url.error());
      // A backend that cannot presign holds it: uploaded below, as if uncached.
    } else if (where.error().kind != StorageError::Kind::kNotFound) {
      return storage_failed("locating the artifact", where.error());
    }
  }
  std::string key;
  if (sha) {
    // One copy per job, however many of its scanners read it.
    key = options_.prefix + bundle_key_segment(label.job) + "/artifact-" + *sha;
    std::lock_guard lock(mu_);
    if (!uploaded_.contains(key)) {
      if (auto put = leaf_->put_blob(key, *e.blob); !put)
        return storage_failed("uploading " + e.blob->describe(), put.error());
      uploaded_.insert(key);
      staged.bytes_uploaded += e.blob->size();
    }
  } else {
    key = run_prefix + "in-" + std::to_string(n);
    if (auto put = leaf_->put_blob(key, *e.blob); !put)
      return storage_failed("uploading " + e.blob->describe(), put.error());
    staged.bytes_uploaded += e.blob->size();
  }
  auto url = leaf_->presign_get(key, ttl);
  if (!url) return storage_failed("presigning " + key, url.error());
  return std::move(*url);
}

Expected<StagedRun, SandboxError> BundleStore::stage(const core::RunSpec& spec, std::chrono::seconds valid_for) {
  const std::chrono::seconds ttl = valid_for + options_.ttl;
  StagedRun staged;
  staged.run_prefix = run_prefix(spec.label);
  auto m = core::manifest_for(spec, [&](const core::BundleEntry& e, int n) {
    return input_url(e, spec.label, staged.run_prefix, n, ttl, staged);
  });
  if (!m) {
    finish(staged);
    return Unexpected(m.error());
  }
  return write_and_presign(*m, std::move(staged), ttl);
}

Expected<StagedRun, SandboxError> BundleStore::stage_manifest(const wire::Manifest& m, const core::RunLabel& label,
                                                              std::chrono::seconds valid_for) {
  StagedRun staged;
  staged.run_prefix = run_prefix(label);
  return write_and_presign(m, std::move(staged), valid_for + options_.ttl);
}

Expected<StagedRun, SandboxError> BundleStore::write_and_presign(const wire::Manifest& m, StagedRun staged,
                                                                 std::chrono::seconds ttl) {
  staged.manifest_key = staged.run_prefix + "manifest.json";
  staged.out_key = staged.run_prefix + "out.tar";
  const std::string json = wire::serialize(m);
  auto fail = [&](const std::string& what, const StorageError& e) {
    finish(staged);
    return storage_failed(what, e);
  };
  if (auto put = leaf_->put(staged.manifest_key, json); !put) return fail("writing the manifest", put.error());
  staged.bytes_uploaded += json.size();
  auto get = leaf_->presign_get(staged.manifest_key, ttl);
  if (!get) return fail("presigning the manifest", get.error());
  // A POST policy, not a PUT: the storage itself refuses an out.tar past kOutTarMaxBytes, so a
  // sandbox cannot fill the bucket with what the worker would refuse to read anyway.
  auto post = leaf_->presign_post(staged.out_key, ttl, wire::kOutTarMaxBytes);
  if (!post) return fail("presigning out.tar", post.error());
  staged.manifest_url = std::move(*get);
  staged.out_url = wire::post_form_url(post->url, post->fields);
  return staged;
}

Expected<std::string, SandboxError> BundleStore::read_result(const StagedRun& run) const {
  auto head = leaf_->head(run.out_key);
  if (!head) {
    if (head.error().kind == StorageError::Kind::kNotFound) {
      return Unexpected(SandboxError{Kind::kCrashed, "no result came back", SandboxError::Reason::kNoResult});
    }
    return storage_failed("reading out.tar", head.error());
  }
  // The backend may have taken more than the signed length (not every one honours signed
  // headers); the worker reads no more than it will parse regardless.
  if (head->size > wire::kOutTarMaxBytes) {
    return Unexpected(SandboxError{Kind::kResultInvalid, "out.tar is " + std::to_string(head->size) +
                                                             " bytes on the bundle backend, more than the " +
                                                             std::to_string(wire::kOutTarMaxBytes) + " allowed"});
  }
  auto bytes = leaf_->get(run.out_key, wire::kOutTarMaxBytes);
  if (!bytes) {
    if (bytes.error().kind == StorageError::Kind::kTooLarge) {
      return Unexpected(
          SandboxError{Kind::kResultInvalid,
                       "out.tar grew past the " + std::to_string(wire::kOutTarMaxBytes) + " bytes allowed while read"});
    }
    return storage_failed("reading out.tar", bytes.error());
  }
  return std::move(*bytes);
}

void BundleStore::finish(const StagedRun& run) {
  if (run.run_prefix.empty()) return;
  // Listed rather than named: whatever the run wrote under its prefix goes.
  if (auto keys = leaf_->list(run.run_prefix)) {
    for (const auto& k : *keys) (void)leaf_->remove(k.key);
  }
  for (const std::string* k : {&run.manifest_key, &run.out_key}) {
    if (!k->empty()) (void)leaf_->remove(*k);
  }
  std::lock_guard lock(mu_);
  in_flight_.erase(run.run_prefix);
}

void BundleStore::close_job(const std::string& job) {
  const std::string job_prefix = options_.prefix + bundle_key_segment(job) + "/artifact-";
  std::lock_guard lock(mu_);
  for (auto it = uploaded_.lower_bound(job_prefix); it != uploaded_.end() && it->rfind(job_prefix, 0) == 0;) {
    (void)leaf_->remove(*it);
    it = uploaded_.erase(it);
  }
}

Expected<std::size_t, StorageError> BundleStore::sweep(std::chrono::seconds older_than) {
  auto keys = leaf_->list(options_.prefix);
  if (!keys) return Unexpected(keys.error());
  const std::string host = [&] {
    const auto at = options_.worker.find('@');
    return bundle_key_segment(at == std::string::npos ? "" : options_.worker.substr(at + 1));
  }();
  const auto now = std::chrono::system_clock::now();
  std::set<std::string> runs;  // the run prefixes a key was removed from
  std::size_t artifacts = 0;
  for (const core::ObjectInfo& o : *keys) {
    const std::string_view rel = std::string_view(o.key).substr(options_.prefix.size());
    const auto parts = split(rel);
    bool ours_in_flight = false;
    bool dead = false;
    {
      std::lock_guard lock(mu_);
      if (parts.size() == 5) {
        const std::string p = options_.prefix + std::string(rel.substr(0, rel.size() - parts[4].size()));
        ours_in_flight = in_flight_.contains(p);
      } else {
        ours_in_flight = uploaded_.contains(o.key);
      }
    }
    if (ours_in_flight) continue;
    if (parts.size() == 5) dead = staged_by_a_dead_worker(parts[3], host);
    if (dead || now - o.last_modified > older_than) {
      if (!leaf_->remove(o.key)) continue;
      if (parts.size() == 5) {
        runs.insert(std::string(rel.substr(0, rel.size() - parts[4].size())));
      } else {
        ++artifacts;
      }
    }
  }
  return runs.size() + artifacts;
}

}  // namespace batlehub::adapters
