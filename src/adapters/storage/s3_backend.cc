#include "adapters/storage/s3_backend.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "adapters/http/http_client.h"
#include "adapters/storage/s3_xml.h"

namespace batlehub::adapters {

using core::StorageError;
using Kind = core::StorageError::Kind;

struct S3Backend::Call {
  const char* method = "GET";
  std::string_view op;   // for messages: "GET", "PUT", "list"
  std::string_view key;  // for messages
  std::string canonical_uri;
  sigv4::Pairs query;
  std::string_view body;             // PUT: the bytes, hashed and signed
  const core::Blob* blob = nullptr;  // PUT: streamed, UNSIGNED-PAYLOAD
  // The most a successful response's body may hold; more aborts the transfer (kTooLarge).
  std::uint64_t max_body = 0;
  int sink_fd = -1;  // GET: a success's body goes here as it arrives, not into Response::body
};

struct S3Backend::Response {
  long status = 0;
  std::string body;  // a success's whole body, or an error's first kMaxErrorBodyBytes
  std::uint64_t content_length = 0;
  std::string last_modified;
  std::string bucket_region;  // x-amz-bucket-region: where S3 says the bucket is
  std::uint64_t sunk = 0;     // bytes written to Call::sink_fd
};

struct S3Backend::Failure {
  core::StorageError::Kind kind = core::StorageError::Kind::kIo;
  std::string why;
};

namespace {

constexpr std::chrono::seconds kConnectTimeout{10};

bool is_success(long status) {
  return status >= 200 && status < 300;
}


std::string encoded_query(const sigv4::Pairs& query) {
  std::string out;
  for (const auto& [name, value] : query) {
    out += out.empty() ? '?' : '&';
    out += sigv4::uri_encode(name, false) + '=' + sigv4::uri_encode(value, false);
  }
  return out;
}

// S3's object keys are at most 1024 bytes: the prefix counts.
constexpr std::size_t kMaxObjectKeyBytes = 1024;

bool is_ip_literal(std::string_view host) {
  if (host.starts_with('[')) return true;
  host = host.substr(0, host.find(':'));
  int dots = 0;
  for (char c : host) {
    if (c == '.') {
      ++dots;
    } else if (c < '0' || c > '9') {
      return false;
    }
  }
  return dots == 3;
}

// A bucket a virtual-hosted request can name: one DNS label (the SDKs' "virtual hostable
// bucket" without sub-domains: a dotted name breaks the endpoint's TLS certificate).
bool is_dns_label(std::string_view bucket) {
  if (bucket.size() < 3 || bucket.size() > 63 || bucket.front() == '-' || bucket.back() == '-') return false;
  return std::all_of(bucket.begin(), bucket.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
}

}  // namespace

Expected<std::unique_ptr<S3Backend>, std::string> S3Backend::create(const config::StorageBackendConfig& c,
                                                                    const core::Env& env, S3Options options) {
  const std::string who = "storage backend '" + c.name + "'";
  if (c.type != config::StorageType::kS3) return Unexpected(who + ": not an s3 backend");
  if (c.bucket.empty()) return Unexpected(who + ": no bucket");
  if (c.region.empty()) return Unexpected(who + ": no region (the signing region, e.g. \"us-east-1\")");
  std::unique_ptr<S3Backend> b(new S3Backend());
  b->name_ = c.name;
  b->bucket_ = c.bucket;
  b->region_ = c.region;
  b->ca_file_ = c.ca_file;

  std::string endpoint = c.endpoint_url;
  if (endpoint.empty()) {
    // AWS's own endpoint: the region becomes a host name, so it must be one.
    const bool host_safe = std::all_of(c.region.begin(), c.region.end(), [](char ch) {
      return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-';
    });
    if (!host_safe) {
      return Unexpected(who + ": region '" + c.region +
                        "' cannot name AWS's endpoint (lower-case letters, digits and '-'); set endpoint_url");
    }
    endpoint = "https://s3." + c.region + ".amazonaws.com";
  }
  const std::string bad_endpoint = who + ": endpoint_url '" + endpoint + "' is not http(s)://host[:port]";
  std::string_view rest = endpoint;
  if (rest.starts_with("https://")) {
    b->scheme_ = "https";
  } else if (rest.starts_with("http://")) {
    b->scheme_ = "http";
  } else {
    return Unexpected(bad_endpoint);
  }
  rest.remove_prefix(b->scheme_.size() + 3);
  if (rest.ends_with('/')) rest.remove_suffix(1);
  if (rest.empty() || rest.find_first_of("/?#@ ") != std::string_view::npos) return Unexpected(bad_endpoint);
  std::string host(rest);
  // The Host a client derives from the URL leaves a default port out; a presigned URL's
  // signed host must be the one its holder sends.
  const std::string default_port = b->scheme_ == "https" ? ":443" : ":80";
  if (host.ends_with(default_port)) host.resize(host.size() - default_port.size());
  b->endpoint_ = b->scheme_ + "://" + host;
  b->path_style_ = c.force_path_style || !is_dns_label(c.bucket) || is_ip_literal(host);
  b->host_ = b->path_style_ ? host : c.bucket + "." + host;

  if (c.prefix.size() >= kMaxObjectKeyBytes) return Unexpected(who + ": a prefix of 1024 bytes or more");
  if (std::any_of(c.prefix.begin(), c.prefix.end(), [](unsigned char ch) { return ch < 0x20 || ch == 0x7f; })) {
    return Unexpected(who + ": a prefix with a control character");
  }
  b->prefix_ = c.prefix;

  if (options.credentials) {
    b->credentials_ = options.credentials;
  } else {
    auto chain = aws::default_chain(env, options.chain);
    if (!chain) return Unexpected(who + ": " + chain.error());
    b->credentials_ = std::move(*chain);
  }
  if (!options.clock) options.clock = [] { return std::chrono::system_clock::now(); };
  if (options.max_keys < 1 || options.max_keys > 1000) return Unexpected(who + ": max_keys outside 1..1000");
  b->options_ = std::move(options);
  return b;
}

StorageError S3Backend::error(Kind kind, std::string_view op, std::string_view key, std::string_view why) const {
  std::string msg = "storage backend '" + name_ + "': " + std::string(op);
  if (!key.empty()) msg += " '" + std::string(key) + "'";
  return {kind, msg + ": " + std::string(why)};
}

std::string S3Backend::bucket_uri() const {
  return path_style_ ? "/" + sigv4::uri_encode(bucket_, false) : "/";
}

std::string S3Backend::object_uri(const std::string& key) const {
  const std::string k = sigv4::uri_encode(prefix_ + key, true);
  return path_style_ ? "/" + sigv4::uri_encode(bucket_, false) + "/" + k : "/" + k;
}

Expected<S3Backend::Response, S3Backend::Failure> S3Backend::transfer(const Call& call) const {
  // Asked at every request: temporary keys are refreshed here, under a running worker.
  auto keys = credentials_->current();
  if (!keys) return Unexpected(Failure{Kind::kIo, "no credentials: " + keys.error()});
  const std::string_view method = call.method;

  std::string payload_hash(sigv4::kUnsignedPayload);
  if (call.blob == nullptr && method == "PUT") payload_hash = sigv4::sha256_hex(call.body);
  const sigv4::Request req{call.method, call.canonical_uri, call.query, {{"Host", host_}}};
  const sigv4::SignedRequest signed_req =
      sigv4::sign(req, payload_hash, *keys, region_, std::chrono::system_clock::now());

  http::Request r;
  r.method = call.method;
  r.url = scheme_ + "://" + host_ + call.canonical_uri + encoded_query(call.query);
  r.headers.emplace_back("Host", host_);
  for (const auto& [name, value] : signed_req.headers) r.headers.emplace_back(name, value);
  r.timeout = options_.timeout;
  r.connect_timeout = kConnectTimeout;
  // An error's body is read for its code only; a success's is the caller's on a GET, bounded
  // by max_body (and written to sink_fd for get_to_fd). Other methods' successes have none
  // worth keeping; the client's default cap bounds what an odd endpoint sends.
  r.max_error_body = s3::kMaxErrorBodyBytes;
  if (method == "GET") {
    r.max_body = static_cast<std::size_t>(call.max_body);
    r.sink_fd = call.sink_fd;
  }

  // put_blob's pipe: the blob writes, the client reads (see put_blob).
  int pipe_fds[2] = {-1, -1};
  std::thread writer;
  Expected<Ok, std::string> written = Ok{};
  if (method == "PUT") {
    if (call.blob == nullptr) {
      r.body = std::string(call.body);
    } else {
      if (::pipe2(pipe_fds, O_CLOEXEC) != 0)
        return Unexpected(Failure{Kind::kIo, std::string("pipe: ") + std::strerror(errno)});
      r.body_fd = pipe_fds[0];
      r.body_fd_size = call.blob->size();
      writer = std::thread([&written, blob = call.blob, fd = pipe_fds[1]] {
        // When the upload stops early the read end closes under us: EPIPE, not a SIGPIPE
        // that would end the worker. A signal left pending dies with this thread.
        sigset_t pipe_set;
        sigemptyset(&pipe_set);
        sigaddset(&pipe_set, SIGPIPE);
        pthread_sigmask(SIG_BLOCK, &pipe_set, nullptr);
        written = blob->copy_to(fd);
        ::close(fd);
      });
    }
  }

  auto got = http::Client(http::Tls{.ca_file = ca_file_}).send(r);
  if (writer.joinable()) {
    ::close(pipe_fds[0]);  // unblocks a writer the transfer left behind
    writer.join();
  }
  if (!got && got.error().kind == http::ErrorKind::kTooLarge) {
    return Unexpected(
        Failure{Kind::kTooLarge, "larger than the " + std::to_string(call.max_body) + " bytes the caller reads"});
  }
  if (!got && got.error().kind == http::ErrorKind::kSink) {
    return Unexpected(Failure{Kind::kIo, std::string("writing the object out: ") + std::strerror(got.error().err)});
  }
  // The writer stops with EPIPE whenever the transfer ended first (a refused connection, a
  // reset): then the transfer's reason is the cause, and the pipe's is only its echo. The
  // blob's own failure is the cause when the transfer succeeded or ran short of bytes.
  if (call.blob != nullptr && !written && (got || got.error().kind == http::ErrorKind::kSource)) {
    return Unexpected(Failure{Kind::kIo, written.error()});
  }
  if (!got && got.error().kind == http::ErrorKind::kSource) {
    return Unexpected(Failure{
        Kind::kIo, call.blob->describe() + " gave fewer than its " + std::to_string(call.blob->size()) + " bytes"});
  }
  if (!got) return Unexpected(Failure{Kind::kIo, got.error().detail});

  Response response;
  response.status = got->status;
  response.body = std::move(got->body);
  if (auto v = got->content_length()) response.content_length = *v;
  if (auto v = got->header("last-modified")) response.last_modified = *v;
  if (auto v = got->header("x-amz-bucket-region")) response.bucket_region = *v;
  if (call.sink_fd >= 0 && is_success(response.status)) response.sunk = got->body_size;
  return response;
}

Expected<S3Backend::Response, StorageError> S3Backend::perform(const Call& call) const {
  auto got = transfer(call);
  if (!got) return Unexpected(error(got.error().kind, call.op, call.key, got.error().why));
  Response& response = *got;
  if (is_success(response.status)) return std::move(response);
  const std::string code = s3::parse_error_code(response.body);
  const std::string why = "HTTP " + std::to_string(response.status) + (code.empty() ? "" : " " + code);
  if (response.status == 404) return Unexpected(error(Kind::kNotFound, call.op, call.key, why));
  if (response.status == 403) return Unexpected(error(Kind::kRefused, call.op, call.key, why));
  return Unexpected(error(Kind::kIo, call.op, call.key, why));
}

// A request on one object: its key checked before anything else, its URI encoded once.
Expected<S3Backend::Call, StorageError> S3Backend::object_call(const char* method, const std::string& key) const {
  if (auto ok = core::check_key(name_, key); !ok) return Unexpected(ok.error());
  if (prefix_.size() + key.size() > kMaxObjectKeyBytes) {
    return Unexpected(error(Kind::kBadKey, method, key.substr(0, 64), "longer than S3's 1024 bytes with the prefix"));
  }
  Call call;
  call.method = method;
  call.op = method;
  call.key = key;
  call.canonical_uri = object_uri(key);
  return call;
}

Expected<Ok, StorageError> S3Backend::put(const std::string& key, std::string_view bytes) {
  auto made = object_call("PUT", key);
  if (!made) return Unexpected(made.error());
  Call& call = *made;
  call.body = bytes;
  auto r = perform(call);
  if (!r) return Unexpected(std::move(r).error());
  return Ok{};
}

// The blob streams through a pipe, written by a thread while the client reads it: copy_to() is
// the blob's one way out and it writes to a descriptor, and a temporary file would write
// hundreds of MiB to disk only to read them back. The body is therefore not hashed first:
// it goes as UNSIGNED-PAYLOAD, its length (Content-Length) signed by TLS on https only.
Expected<Ok, StorageError> S3Backend::put_blob(const std::string& key, const core::Blob& blob) {
  auto made = object_call("PUT", key);
  if (!made) return Unexpected(made.error());
  Call& call = *made;
  call.blob = &blob;
  auto r = perform(call);
  if (!r) return Unexpected(std::move(r).error());
  return Ok{};
}

Expected<std::string, StorageError> S3Backend::get(const std::string& key, std::uint64_t max_bytes) {
  auto made = object_call("GET", key);
  if (!made) return Unexpected(made.error());
  Call& call = *made;
  call.max_body = max_bytes;
  auto r = perform(call);
  if (!r) return Unexpected(std::move(r).error());
  return std::move(r->body);
}

Expected<std::uint64_t, StorageError> S3Backend::get_to_fd(const std::string& key, int fd, std::uint64_t max_bytes) {
  auto made = object_call("GET", key);
  if (!made) return Unexpected(made.error());
  Call& call = *made;
  call.max_body = max_bytes;
  call.sink_fd = fd;
  auto r = perform(call);
  if (!r) return Unexpected(std::move(r).error());
  return r->sunk;
}

Expected<core::ObjectInfo, StorageError> S3Backend::head(const std::string& key) {
  auto made = object_call("HEAD", key);
  if (!made) return Unexpected(made.error());
  Call& call = *made;
  auto r = perform(call);
  if (!r) return Unexpected(std::move(r).error());
  core::ObjectInfo info{key, r->content_length, {}};
  if (!r->last_modified.empty()) {
    if (auto t = http::parse_http_date(r->last_modified)) info.last_modified = *t;
  }
  return info;
}

Expected<Ok, StorageError> S3Backend::remove(const std::string& key) {
  auto made = object_call("DELETE", key);
  if (!made) return Unexpected(made.error());
  Call& call = *made;
  auto r = perform(call);
  // S3 answers 204 for a key that is not there; an endpoint that says 404 means the same.
  if (!r && r.error().kind != Kind::kNotFound) return Unexpected(std::move(r).error());
  return Ok{};
}

Expected<std::vector<core::ObjectInfo>, StorageError> S3Backend::list(const std::string& prefix) {
  if (prefix_.size() + prefix.size() > kMaxObjectKeyBytes) {
    return Unexpected(error(Kind::kBadKey, "list", prefix.substr(0, 64), "prefix too long"));
  }
  std::vector<core::ObjectInfo> all;
  std::string token;
  for (;;) {
    Call call;
    call.op = "list";
    call.key = prefix;
    call.canonical_uri = bucket_uri();
    call.query = {{"list-type", "2"}, {"prefix", prefix_ + prefix}, {"max-keys", std::to_string(options_.max_keys)}};
    if (!token.empty()) call.query.emplace_back("continuation-token", token);
    call.max_body = s3::kMaxListPageBytes;
    auto r = perform(call);
    if (!r) return Unexpected(std::move(r).error());
    auto page = s3::parse_list_objects(r->body);
    if (!page) return Unexpected(error(Kind::kIo, "list", prefix, page.error()));
    // The caller's keys, without the backend's prefix (every key listed has it).
    for (auto& o : page->objects) {
      if (!o.key.starts_with(prefix_)) continue;
      o.key.erase(0, prefix_.size());
      all.push_back(std::move(o));
    }
    if (!page->truncated) break;
    // The same token twice would ask for the same page forever.
    if (page->next_continuation_token == token) {
      return Unexpected(error(Kind::kIo, "list", prefix, "the endpoint repeated its continuation token"));
    }
    token = std::move(page->next_continuation_token);
  }
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
  return all;
}

Expected<sigv4::Credentials, StorageError> S3Backend::presignable(const std::string& op, const std::string& key,
                                                                  std::chrono::seconds ttl) const {
  if (auto ok = core::check_key(name_, key); !ok) return Unexpected(ok.error());
  if (prefix_.size() + key.size() > kMaxObjectKeyBytes) {
    return Unexpected(error(Kind::kBadKey, op, key.substr(0, 64), "longer than S3's 1024 bytes with the prefix"));
  }
  if (ttl < std::chrono::seconds(1) || ttl > sigv4::kMaxPresignTtl) {
    return Unexpected(error(Kind::kUnsupported, op, key,
                            "a TTL of " + std::to_string(ttl.count()) + " s; S3 presigns for 1 s to 7 days"));
  }
  auto keys = credentials_->current();
  if (!keys) return Unexpected(error(Kind::kIo, op, key, "no credentials: " + keys.error()));
  return *keys;
}

Expected<std::string, StorageError> S3Backend::presign(const char* method, const std::string& key,
                                                       std::chrono::seconds ttl) const {
  const std::string op = std::string("presign ") + method;
  auto keys = presignable(op, key, ttl);
  if (!keys) return Unexpected(keys.error());
  const std::string uri = object_uri(key);
  const sigv4::Request req{method, uri, {}, {{"host", host_}}};
  const sigv4::Presigned p = sigv4::presign(req, ttl, *keys, region_, options_.clock());
  return scheme_ + "://" + host_ + uri + "?" + p.query;
}

// HeadBucket answers with a status and no body. A 400, 403 or 404 is asked again as a
// one-key ListObjectsV2 — the same permission (s3:ListBucket) — whose error body says which
// it was: SignatureDoesNotMatch, InvalidAccessKeyId, AccessDenied, InvalidToken,
// NoSuchBucket (or an endpoint's own: versitygw answers an unknown key id 404
// XAdminUserNotFound), each with its own fix. Without a body the status's usual code is
// named, as the SDKs name it.
Expected<Ok, StorageError> S3Backend::check_bucket() const {
  auto unreachable = [&](Kind kind, const std::string& why) {
    return Unexpected(StorageError{kind, "storage backend '" + name_ + "' (" + endpoint_ +
                                             (path_style_ ? ", path-style" : ", virtual-hosted") + "): S3 bucket '" +
                                             bucket_ + "' is not reachable: " + why});
  };
  Call head;
  head.method = "HEAD";
  head.op = "HEAD bucket";
  head.canonical_uri = bucket_uri();
  auto r = transfer(head);
  if (!r) return unreachable(r.error().kind, r.error().why);
  const long status = r->status;
  if (is_success(status)) return Ok{};
  const std::string http = "(HTTP " + std::to_string(status) + ")";
  const std::string& there = r->bucket_region;
  if (status == 301 || ((status == 400 || status == 403) && !there.empty() && there != region_)) {
    return unreachable(Kind::kIo, (status == 301 ? "PermanentRedirect " : "AuthorizationHeaderMalformed ") + http +
                                      ": the bucket is not in region '" + region_ + "'" +
                                      (there.empty() ? "" : ", S3 says it is in '" + there + "'"));
  }
  if (status != 400 && status != 403 && status != 404) return unreachable(Kind::kIo, http);
  Call list;
  list.op = "list";
  list.canonical_uri = bucket_uri();
  list.query = {{"list-type", "2"}, {"max-keys", "1"}};
  list.max_body = s3::kMaxListPageBytes;
  std::string code;
  if (auto again = transfer(list); again && again->status == status) code = s3::parse_error_code(again->body);
  if (code.empty()) code = status == 404 ? "NoSuchBucket" : status == 403 ? "AccessDenied" : "BadRequest";
  const Kind kind = status == 404 ? Kind::kNotFound : status == 403 ? Kind::kRefused : Kind::kIo;
  return unreachable(kind, code + " " + http);
}

Expected<std::string, StorageError> S3Backend::presign_get(const std::string& key, std::chrono::seconds ttl) const {
  return presign("GET", key, ttl);
}

Expected<std::string, StorageError> S3Backend::presign_put(const std::string& key, std::chrono::seconds ttl,
                                                           std::uint64_t /*max_bytes*/) const {
  // max_bytes is the worker's to enforce by HEAD (s3_backend.h says why the URL cannot).
  return presign("PUT", key, ttl);
}

Expected<core::PresignedPost, StorageError> S3Backend::presign_post(const std::string& key, std::chrono::seconds ttl,
                                                                    std::uint64_t max_bytes) const {
  auto keys = presignable("presign POST", key, ttl);
  if (!keys) return Unexpected(keys.error());
  core::PresignedPost post;
  // The form goes to the bucket itself: /<bucket> path-style, / on the bucket's own host.
  post.url = scheme_ + "://" + host_ + bucket_uri();
  post.fields =
      sigv4::post_form(sigv4::PostPolicy{bucket_, prefix_ + key, max_bytes}, ttl, *keys, region_, options_.clock());
  return post;
}

}  // namespace batlehub::adapters
