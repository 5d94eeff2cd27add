// What the tests against a real S3 server (versitygw, the fixture "s3" or a server of a
// suite's own: scripts/s3-peer.sh) share: why the server cannot run here, the config of a
// backend on it, a free loopback port for a server of one's own, and a client without
// credentials — what a sandbox holding a presigned URL is.
//
// Its includer defines BATLEHUB_TEST_S3_* (batlehub_s3_test_definitions, tests/s3_fixture.cmake)
// and links CURL::libcurl.
#pragma once

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "adapters/sandbox/blob.h"
#include "config/config.h"

// A storage call that must succeed (an Expected<…, StorageError>): its message when it did not.
#define ASSERT_OK(expr)                                                 \
  do {                                                                  \
    auto r_ = (expr);                                                   \
    ASSERT_TRUE(r_.has_value()) << #expr << ": " << r_.error().message; \
  } while (0)

namespace batlehub::testing {

inline std::string env_or(const char* name, std::string fallback = "") {
  const char* v = std::getenv(name);
  return v ? v : std::move(fallback);
}

// Why the S3 server cannot run here ("" when it can): versitygw is not installed.
inline std::string s3_peer_unavailable() {
  if (::access(BATLEHUB_TEST_S3_BIN, X_OK) == 0) return "";
  return std::string("versitygw is not installed at ") + BATLEHUB_TEST_S3_BIN +
         " (scripts/install-peers.sh installs it)";
}

// A backend named `name` on the server at `endpoint`, with the test bucket, upstream's
// keys (path-style: versitygw serves no virtual hosts). Its keys are not in it: they come
// from the credential chain, test_s3_env() below.
inline config::StorageBackendConfig test_s3_config(const std::string& endpoint, const std::string& name = "s3test") {
  config::StorageBackendConfig c;
  c.name = name;
  c.type = config::StorageType::kS3;
  c.endpoint_url = endpoint;
  c.bucket = BATLEHUB_TEST_S3_BUCKET;
  c.region = "us-east-1";
  c.force_path_style = true;
  return c;
}

// An environment whose only variables are the server's keys (the chain's first link) and
// `extra`: what S3Backend::create is handed instead of the process's environment.
inline core::Env test_s3_env(std::map<std::string, std::string, std::less<>> extra = {}) {
  extra.emplace("AWS_ACCESS_KEY_ID", BATLEHUB_TEST_S3_ACCESS_KEY);
  extra.emplace("AWS_SECRET_ACCESS_KEY", BATLEHUB_TEST_S3_SECRET_KEY);
  return config::env_of(std::move(extra));
}

// A port nothing listens on now, for a server of one's own.
inline int free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

// `n` bytes of a pattern, in a file of `path_template` (mkstemp's) and as the file blob of
// it that a worker's artifact store hands out; the file itself is unlinked at once.
struct PatternedFile {
  std::string bytes;
  std::shared_ptr<const core::Blob> blob;  // null when it could not be made
  std::string error;                       // why not
};
inline PatternedFile patterned_file_blob(std::size_t n, std::string path_template) {
  PatternedFile f;
  const int fd = ::mkstemp(path_template.data());
  if (fd < 0) {
    f.error = "mkstemp " + path_template + ": " + std::strerror(errno);
    return f;
  }
  f.bytes.assign(n, '\0');
  for (std::size_t i = 0; i < n; ++i) f.bytes[i] = static_cast<char>((i * 131) ^ (i >> 11));
  const bool written = ::write(fd, f.bytes.data(), n) == static_cast<ssize_t>(n);
  ::close(fd);
  auto blob = adapters::file_blob(path_template);
  ::unlink(path_template.c_str());
  if (!written) {
    f.error = "write " + path_template + ": short";
  } else if (!blob) {
    f.error = blob.error();
  } else {
    f.blob = *blob;
  }
  return f;
}

struct HttpAnswer {
  CURLcode rc = CURLE_OK;
  std::string error;  // curl's error buffer when rc is not CURLE_OK
  long status = 0;
  std::string body;
};

struct HttpOptions {
  long timeout_seconds = 30;
  std::string ca_file;      // the only CA trusted (the system's roots when empty)
  bool https_only = false;  // refuse any other protocol
};

// One request through libcurl: `setup` adds what the method needs (a body, a form) to what
// every request here has — no signal, a timeout, the options' TLS, the answer's body kept,
// no "Expect: 100-continue".
inline HttpAnswer perform(const std::string& url, const HttpOptions& o, const std::function<void(CURL*)>& setup) {
  HttpAnswer a;
  char errbuf[CURL_ERROR_SIZE] = {};
  CURL* e = curl_easy_init();
  curl_easy_setopt(e, CURLOPT_URL, url.c_str());
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_TIMEOUT, o.timeout_seconds);
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, errbuf);
  if (o.https_only) curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "https");
  if (!o.ca_file.empty()) curl_easy_setopt(e, CURLOPT_CAINFO, o.ca_file.c_str());
  curl_easy_setopt(
      e, CURLOPT_WRITEFUNCTION, +[](char* d, std::size_t s, std::size_t n, void* u) {
        static_cast<std::string*>(u)->append(d, s * n);
        return s * n;
      });
  curl_easy_setopt(e, CURLOPT_WRITEDATA, &a.body);
  curl_slist* headers = curl_slist_append(nullptr, "Expect:");
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers);
  if (setup) setup(e);
  a.rc = curl_easy_perform(e);
  if (a.rc == CURLE_OK) {
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &a.status);
  } else {
    a.error = std::string(curl_easy_strerror(a.rc)) + ": " + errbuf;
  }
  curl_slist_free_all(headers);
  curl_easy_cleanup(e);
  return a;
}

// A request without credentials: what a sandbox holding a presigned URL is. `body` is
// what a PUT sends.
inline HttpAnswer http(const std::string& method, const std::string& url, const std::string& body = "",
                       const HttpOptions& o = {}) {
  struct Up {
    const std::string* body;
    std::size_t sent = 0;
  } up{&body};
  return perform(url, o, [&](CURL* e) {
    if (method != "PUT") return;
    curl_easy_setopt(e, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(e, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(body.size()));
    curl_easy_setopt(e, CURLOPT_READDATA, &up);
    curl_easy_setopt(
        e, CURLOPT_READFUNCTION, +[](char* d, std::size_t s, std::size_t n, void* u) {
          auto* p = static_cast<Up*>(u);
          const std::size_t len = std::min(s * n, p->body->size() - p->sent);
          std::memcpy(d, p->body->data() + p->sent, len);
          p->sent += len;
          return len;
        });
  });
}

// A post+ URL (wire/post_form.h) taken apart by this test's own hand: the form's URL, and its
// fields decoded, in order.
struct PostForm {
  std::string url;
  std::vector<std::pair<std::string, std::string>> fields;
};
inline PostForm post_form_of(const std::string& post_url) {
  auto decode = [](std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '%' && i + 2 < s.size()) {
        out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
        i += 2;
      } else {
        out += s[i];
      }
    }
    return out;
  };
  PostForm f;
  const std::string rest = post_url.substr(post_url.find("post+") == 0 ? 5 : 0);
  const std::size_t q = rest.find('?');
  f.url = rest.substr(0, q);
  std::string_view query = q == std::string::npos ? std::string_view{} : std::string_view(rest).substr(q + 1);
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    const std::size_t eq = pair.find('=');
    f.fields.emplace_back(decode(pair.substr(0, eq)), decode(pair.substr(eq + 1)));
  }
  return f;
}

// POSTs a post+ URL's form with `body` as its file, through libcurl's own multipart encoder
// (not the agent's), as a sandbox holding it would; `field`, when set, replaces that field's
// value (a tampered form).
inline HttpAnswer post(const std::string& post_url, const std::string& body,
                       const std::pair<std::string, std::string>& field = {}) {
  const PostForm f = post_form_of(post_url);
  curl_mime* mime = nullptr;
  HttpAnswer a = perform(f.url, HttpOptions{.timeout_seconds = 60}, [&](CURL* e) {
    mime = curl_mime_init(e);
    for (const auto& [name, value] : f.fields) {
      curl_mimepart* part = curl_mime_addpart(mime);
      curl_mime_name(part, name.c_str());
      const std::string& v = name == field.first ? field.second : value;
      curl_mime_data(part, v.data(), v.size());
    }
    curl_mimepart* file = curl_mime_addpart(mime);
    curl_mime_name(file, "file");
    curl_mime_filename(file, "out.tar");
    curl_mime_data(file, body.data(), body.size());
    curl_easy_setopt(e, CURLOPT_MIMEPOST, mime);
  });
  curl_mime_free(mime);
  return a;
}

}  // namespace batlehub::testing
