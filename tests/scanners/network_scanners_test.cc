// The network scanners (src/adapters/network_scanners: osv, socket, sigstore and mlab's
// enrichment) over HTTPS on loopback, against the scripted API peer (tests/helpers/api_peer.h)
// answering as the real APIs do. Each request is checked field by field against the API's
// documented schema, each answer is built from the API's documented example (its page cited
// above the fixture), and the findings are upstream's. Then every error shape, for every
// scanner (ErrorShapes): a 4xx, a 429 waited for, a 429 for ever, a 5xx, a cut answer, an
// answer over the cap, a slow one, a certificate from another CA, an answer the API does not
// document, and a job deadline already passed.
//
// The answers' parsers alone are network_answers_test's. The tests assert what happened,
// never how long it took.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "adapters/network_scanners/mlab.h"
#include "adapters/network_scanners/osv.h"
#include "adapters/network_scanners/sigstore.h"
#include "adapters/network_scanners/socket.h"
#include "api_samples.h"
#include "core/network_scanner.h"
#include "core/scanner.h"
#include "helpers/api_peer.h"

namespace batlehub::adapters::net {
namespace {

using batlehub::testing::kMlabLog4ShellRecord;
using batlehub::testing::kOsvQuerySample;
using batlehub::testing::kOsvVulnSample;

using namespace std::chrono_literals;
using batlehub::testing::ApiPeer;
using batlehub::testing::Reply;
using batlehub::testing::Route;
using batlehub::testing::Seen;
using core::Finding;
using core::FindingKind;
using core::Lookup;
using core::PackageKind;
using core::ReasonCode;
using core::ScanInput;
using core::ScannerError;
using core::Severity;
using nlohmann::json;
using Clock = std::chrono::steady_clock;
using Result = Expected<Lookup, ScannerError>;

// ---------------------------------------------------------------------------------------
// Shared

// What every scanner here is given: the peer as its API, the tests' CA, and retries quick
// enough for a test (three attempts, 50 ms apart and doubling).
ApiOptions api_options(const std::string& name, const std::string& url) {
  ApiOptions o;
  o.name = name;
  o.api_url = url;
  o.tls.ca_file = ApiPeer::ca_file();
  o.timeout = 20s;
  o.max_attempts = 3;
  o.base_delay = 50ms;
  return o;
}

Reply answer(std::string body, int status = 200, std::string type = "application/json") {
  Reply r;
  r.status = status;
  r.headers = {{"Content-Type", std::move(type)}};
  r.body = std::move(body);
  return r;
}

ScanInput input(PackageKind kind, const std::string& name, const std::string& version,
                const std::string& registry = "local") {
  ScanInput in;
  in.package.kind = kind;
  in.package.name = name;
  in.package.version = version;
  in.package.registry = registry;
  return in;
}

// As the worker calls a network scanner: under the job's deadline.
Result scan(const core::NetworkScanner& scanner, const ScanInput& in) {
  return scanner.scan(in, in.deadline);
}

// The requests the peer received for `path`, in order.
std::vector<Seen> requests_to(const ApiPeer& peer, const std::string& path) {
  std::vector<Seen> out;
  for (auto& s : peer.seen()) {
    if (s.path == path) out.push_back(std::move(s));
  }
  return out;
}

std::string header(const Seen& s, const std::string& lower_name) {
  auto it = s.headers.find(lower_name);
  return it == s.headers.end() ? std::string("<none>") : it->second;
}

// A request's JSON body; null (and a failure) when it is not JSON.
json body_of(const Seen& s) {
  json j = json::parse(s.body, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(j.is_discarded()) << "not JSON: " << s.body;
  return j.is_discarded() ? json() : j;
}

json raw_of(const Finding& f) {
  json j = json::parse(f.raw, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(j.is_discarded()) << "raw is not JSON: " << f.raw;
  return j;
}

// A GET as the scanners send one: the path, no query unless told, no body, JSON accepted, and
// no credentials.
void expect_get(const Seen& s, const std::string& path, const std::string& query = "") {
  EXPECT_EQ(s.method, "GET");
  EXPECT_EQ(s.path, path);
  EXPECT_EQ(s.query, query);
  EXPECT_EQ(s.body, "");
  EXPECT_EQ(header(s, "accept"), "application/json");
  EXPECT_EQ(s.headers.count("authorization"), 0u) << header(s, "authorization");
}

// A loopback TCP relay in front of the peer that counts the connections made through it: how
// many attempts a client made, those refused in the TLS handshake included (the peer logs a
// request, never a handshake).
class CountingRelay {
 public:
  explicit CountingRelay(int target_port) : target_port_(target_port) {
    listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a = loopback(0);
    if (listener_ < 0 || ::bind(listener_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        ::listen(listener_, 16) != 0) {
      throw std::runtime_error("relay: cannot listen on loopback");
    }
    socklen_t len = sizeof a;
    ::getsockname(listener_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    acceptor_ = std::thread([this] { accept_loop(); });
  }
  CountingRelay(const CountingRelay&) = delete;
  CountingRelay& operator=(const CountingRelay&) = delete;
  ~CountingRelay() {
    stop_ = true;
    acceptor_.join();
    for (auto& t : pipes_) t.join();
    ::close(listener_);
  }

  int connections() const { return connections_; }
  std::string url() const { return "https://127.0.0.1:" + std::to_string(port_); }

 private:
  static sockaddr_in loopback(int port) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    return a;
  }

  void accept_loop() {
    while (!stop_) {
      pollfd p{listener_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      const int client = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
      if (client < 0) continue;
      ++connections_;
      pipes_.emplace_back([this, client] { relay(client); });
    }
  }

  void relay(int client) {
    const int upstream = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a = loopback(target_port_);
    if (upstream >= 0 && ::connect(upstream, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
      pollfd fds[2] = {{client, POLLIN, 0}, {upstream, POLLIN, 0}};
      char buf[16384];
      bool open = true;
      while (open && !stop_) {
        if (::poll(fds, 2, 20) <= 0) continue;
        for (int i = 0; i < 2 && open; ++i) {
          if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
          const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
          open = n > 0 && write_all(fds[1 - i].fd, buf, static_cast<std::size_t>(n));
        }
      }
    }
    if (upstream >= 0) ::close(upstream);
    ::close(client);
  }

  static bool write_all(int fd, const char* p, std::size_t n) {
    while (n > 0) {
      const ssize_t w = ::write(fd, p, n);
      if (w <= 0) return false;
      p += w;
      n -= static_cast<std::size_t>(w);
    }
    return true;
  }

  int target_port_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> connections_{0};
  std::thread acceptor_;
  std::vector<std::thread> pipes_;  // the acceptor's alone until it is joined
};

// ---------------------------------------------------------------------------------------
// OSV fixtures

// A record in the shape of the get-v1-vulns sample: its id, and the fields `over` names
// replaced (a null drops one). Severity as the OSV schema defines it
// (https://ossf.github.io/osv-schema/#severity-field: severity[] of {type, score}; and
// #database_specific-field, where GitHub's advisories carry their "severity"); affected[] of
// a package with a SEMVER range (#affectedranges-field).
std::string osv_record(const std::string& id, const std::string& over_json = "{}") {
  json v = json::parse(kOsvVulnSample);
  v["id"] = id;
  const json over = json::parse(over_json);
  for (const auto& [k, val] : over.items()) {
    if (val.is_null()) {
      v.erase(k);
    } else {
      v[k] = val;
    }
  }
  return v.dump();
}

std::string npm_affected(const std::string& name, const std::string& fixed) {
  return R"([{"package": {"ecosystem": "npm", "name": ")" + name + R"(", "purl": "pkg:npm/)" + name +
         R"("}, "ranges": [{"type": "SEMVER", "events": [{"introduced": "0"}, {"fixed": ")" + fixed + R"("}]}]}])";
}

// A querybatch answer in the shape of the sample 200 response of
// https://google.github.io/osv.dev/post-v1-querybatch/: one result per query, in order, each
// {"vulns":[{"id","modified"}…]}; a query with no vulnerability as {} and a paginated one
// with its next_page_token (that page's "Pagination" section).
json osv_result(const std::vector<std::string>& ids, const std::string& next_page_token = "") {
  json r = json::object();
  if (!ids.empty()) {
    json vulns = json::array();
    for (const auto& id : ids) vulns.push_back(json{{"id", id}, {"modified", "2023-03-14T05:47:39.989396Z"}});
    r["vulns"] = vulns;
  }
  if (!next_page_token.empty()) r["next_page_token"] = next_page_token;
  return r;
}

std::string osv_batch(const std::vector<json>& results) {
  json doc = json::object();
  doc["results"] = json(results);
  return doc.dump();
}

OsvOptions osv_options(const std::string& url, bool fail_closed = false) {
  return OsvOptions{api_options("osv", url), fail_closed};
}

// Upstream's finding for an advisory of `purl`.
void expect_osv_finding(const Finding& f, const std::string& id, Severity severity, const std::string& summary,
                        const std::string& raw_json) {
  SCOPED_TRACE(id);
  EXPECT_EQ(f.scanner, "osv");
  EXPECT_EQ(f.kind, FindingKind::kVulnerability);
  EXPECT_EQ(f.code, ReasonCode::kVulnerability);
  EXPECT_EQ(f.reference, id);
  EXPECT_EQ(f.severity, severity) << core::to_string(f.severity);
  EXPECT_EQ(f.summary, summary);
  EXPECT_EQ(raw_of(f), json::parse(raw_json));
}

// ---------------------------------------------------------------------------------------
// OSV

TEST(OsvScanner, asks_querybatch_for_the_purl_then_each_advisory_once_and_makes_upstreams_findings) {
  ApiPeer peer;
  const std::string ghsa = "GHSA-vqj2-4v8m-8vrq", pysec = "PYSEC-2022-28", oss_fuzz = "OSV-2020-111";
  peer.script({
      {"POST", "/v1/querybatch", {answer(osv_batch({osv_result({ghsa, pysec, oss_fuzz})}))}},
      // database_specific.severity first, whatever the score says.
      {"GET",
       "/v1/vulns/" + ghsa,
       {answer(osv_record(ghsa, R"({"summary": "Path traversal in left-pad", "aliases": ["CVE-2023-1177"],
           "affected": )" + npm_affected("left-pad", "1.3.2") +
                                    R"(, "database_specific": {"severity": "MODERATE", "cwe_ids": ["CWE-22"],
           "github_reviewed": true}, "severity": [{"type": "CVSS_V3", "score": "9.8"}]})"))}},
      // No database_specific.severity: the largest numeric score, a vector being no number.
      {"GET",
       "/v1/vulns/" + pysec,
       {answer(osv_record(pysec, R"({"summary": "Uncontrolled resource consumption in left-pad",
           "aliases": ["CVE-2022-0736", "GHSA-xg73-94fp-g449"], "affected": )" +
                                     npm_affected("left-pad", "1.3.3") + R"(, "severity": [
             {"type": "CVSS_V3", "score": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"},
             {"type": "CVSS_V2", "score": "7.5"}]})"))}},
      // The documented record as it is: no severity at all, its first fixed event a commit.
      {"GET", "/v1/vulns/" + oss_fuzz, {answer(kOsvVulnSample)}},
  });

  OsvScanner osv(osv_options(peer.url()));
  auto got = scan(osv, input(PackageKind::kNpm, "left-pad", "1.3.1"));
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_TRUE(got->tolerated.empty());
  ASSERT_EQ(got->findings.size(), 3u);
  expect_osv_finding(got->findings[0], ghsa, Severity::kMedium, "Path traversal in left-pad",
                     R"({"purl":"pkg:npm/left-pad@1.3.1","fixed_version":"1.3.2","aliases":["CVE-2023-1177"]})");
  expect_osv_finding(got->findings[1], pysec, Severity::kHigh, "Uncontrolled resource consumption in left-pad",
                     R"({"purl":"pkg:npm/left-pad@1.3.1","fixed_version":"1.3.3",
                         "aliases":["CVE-2022-0736","GHSA-xg73-94fp-g449"]})");
  expect_osv_finding(got->findings[2], oss_fuzz, Severity::kUnknown,
                     "Heap-use-after-free in int std::__1::__cxx_atomic_fetch_sub<int>",
                     R"({"purl":"pkg:npm/left-pad@1.3.1","fixed_version":"155f73bdd261622323491df4aebb840cde8bfee1",
                         "aliases":[]})");

  // https://google.github.io/osv.dev/post-v1-querybatch/: {"queries":[{"package":{"purl"}}]}.
  const auto seen = peer.seen();
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[0].method, "POST");
  EXPECT_EQ(seen[0].path, "/v1/querybatch");
  EXPECT_EQ(seen[0].query, "");
  EXPECT_EQ(header(seen[0], "content-type"), "application/json");
  EXPECT_EQ(seen[0].headers.count("authorization"), 0u);
  EXPECT_EQ(body_of(seen[0]), json::parse(R"({"queries":[{"package":{"purl":"pkg:npm/left-pad@1.3.1"}}]})"));
  // https://google.github.io/osv.dev/get-v1-vulns/: GET /v1/vulns/{id}, each once.
  expect_get(seen[1], "/v1/vulns/" + ghsa);
  expect_get(seen[2], "/v1/vulns/" + pysec);
  expect_get(seen[3], "/v1/vulns/" + oss_fuzz);
}

// A CycloneDX 1.5 document (https://cyclonedx.org/docs/1.5/json/: components[] with purl,
// and components nested in a component) naming the version itself again, a component twice,
// and a file without a PURL.
const char* const kSbom = R"json({
  "bomFormat": "CycloneDX",
  "specVersion": "1.5",
  "serialNumber": "urn:uuid:3e671687-395b-41f5-a30f-a58921a69b79",
  "version": 1,
  "metadata": {"component": {"type": "library", "name": "left-pad", "version": "1.3.1",
                             "purl": "pkg:npm/left-pad@1.3.1"}},
  "components": [
    {"type": "library", "bom-ref": "pkg:npm/lodash@4.17.20", "name": "lodash", "version": "4.17.20",
     "purl": "pkg:npm/lodash@4.17.20",
     "components": [
       {"type": "library", "name": "minimist", "version": "1.2.5", "purl": "pkg:npm/minimist@1.2.5"},
       {"type": "library", "name": "lodash", "version": "4.17.20", "purl": "pkg:npm/lodash@4.17.20"}]},
    {"type": "library", "name": "left-pad", "version": "1.3.1", "purl": "pkg:npm/left-pad@1.3.1"},
    {"type": "file", "name": "README.md"}
  ]
})json";

TEST(OsvScanner, sbom_components_join_the_one_batch_once_each_and_a_shared_advisory_is_fetched_once) {
  ApiPeer peer;
  const std::string shared = "GHSA-35jh-r3h4-6jhm", lodash = "GHSA-p6mc-m468-83gw", minimist = "GHSA-xvch-5gv4-984h";
  peer.script({
      {"POST",
       "/v1/querybatch",
       {answer(osv_batch({osv_result({}), osv_result({shared, lodash}), osv_result({minimist, shared})}))}},
      {"GET",
       "/v1/vulns/" + shared,
       {answer(osv_record(shared, R"({"summary": "Command Injection in lodash", "aliases": ["CVE-2021-23337"],
           "affected": )" + npm_affected("lodash", "4.17.21") +
                                      R"(, "database_specific": {"severity": "HIGH"}})"))}},
      {"GET",
       "/v1/vulns/" + lodash,
       {answer(osv_record(lodash, R"({"summary": "Regular Expression Denial of Service (ReDoS) in lodash",
           "affected": )" + npm_affected("lodash", "4.17.21") +
                                      R"(, "database_specific": {"severity": "MODERATE"}})"))}},
      {"GET",
       "/v1/vulns/" + minimist,
       {answer(osv_record(minimist, R"({"summary": "Prototype Pollution in minimist",
           "affected": )" + npm_affected("minimist", "1.2.6") +
                                        R"(, "database_specific": {"severity": "CRITICAL"}})"))}},
  });

  OsvScanner osv(osv_options(peer.url()));
  ScanInput in = input(PackageKind::kNpm, "left-pad", "1.3.1");
  in.sbom = kSbom;
  auto got = scan(osv, in);
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_TRUE(got->tolerated.empty());

  // One querybatch: the version's PURL, then each component's once, nested ones included.
  const auto batches = requests_to(peer, "/v1/querybatch");
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(body_of(batches[0]), json::parse(R"({"queries":[{"package":{"purl":"pkg:npm/left-pad@1.3.1"}},
      {"package":{"purl":"pkg:npm/lodash@4.17.20"}},{"package":{"purl":"pkg:npm/minimist@1.2.5"}}]})"));
  // Each distinct advisory once, though two PURLs share one.
  for (const auto& id : {shared, lodash, minimist}) {
    EXPECT_EQ(requests_to(peer, "/v1/vulns/" + id).size(), 1u) << id;
  }
  EXPECT_EQ(peer.seen().size(), 4u);

  // A finding per advisory per PURL it names, each with its PURL.
  ASSERT_EQ(got->findings.size(), 4u);
  expect_osv_finding(got->findings[0], shared, Severity::kHigh, "Command Injection in lodash",
                     R"({"purl":"pkg:npm/lodash@4.17.20","fixed_version":"4.17.21",
                         "aliases":["CVE-2021-23337"]})");
  expect_osv_finding(got->findings[1], lodash, Severity::kMedium,
                     "Regular Expression Denial of Service (ReDoS) in lodash",
                     R"({"purl":"pkg:npm/lodash@4.17.20","fixed_version":"4.17.21",
                         "aliases":[]})");
  expect_osv_finding(got->findings[2], minimist, Severity::kCritical, "Prototype Pollution in minimist",
                     R"({"purl":"pkg:npm/minimist@1.2.5","fixed_version":"1.2.6",
                         "aliases":[]})");
  // The advisory's first fixed event, whichever PURL it names (upstream's).
  expect_osv_finding(got->findings[3], shared, Severity::kHigh, "Command Injection in lodash",
                     R"({"purl":"pkg:npm/minimist@1.2.5","fixed_version":"4.17.21",
                         "aliases":["CVE-2021-23337"]})");
}

TEST(OsvScanner, a_next_page_token_is_followed_with_querybatch_carrying_it_as_page_token) {
  ApiPeer peer;
  const std::string first = "GHSA-vqj2-4v8m-8vrq", last = "PYSEC-2022-28";
  peer.script({
      // The querybatch page's pagination example: "token for query 1"; then the page asked
      // with it, itself paginated ("a base64 string here", the post-v1-query sample's token),
      // then a last page without a token.
      {"POST",
       "/v1/querybatch",
       {answer(osv_batch({osv_result({first}, "token for query 1")})),
        answer(osv_batch({osv_result({"OSV-2020-744"}, "a base64 string here")})),
        answer(osv_batch({osv_result({last})}))}},
      {"GET", "/v1/vulns/" + first, {answer(osv_record(first, R"({"summary": "Path traversal in mlflow"})"))}},
      {"GET", "/v1/vulns/OSV-2020-744", {answer(json::parse(kOsvQuerySample)["vulns"][0].dump())}},
      {"GET", "/v1/vulns/" + last, {answer(osv_record(last, R"({"summary": "Path traversal in mlflow"})"))}},
  });

  OsvScanner osv(osv_options(peer.url()));
  // The querybatch page's request sample: pkg:pypi/mlflow@0.4.0.
  auto got = scan(osv, input(PackageKind::kPypi, "mlflow", "0.4.0"));
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_TRUE(got->tolerated.empty());

  const auto batches = requests_to(peer, "/v1/querybatch");
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_TRUE(requests_to(peer, "/v1/query").empty());
  // https://google.github.io/osv.dev/post-v1-querybatch/ ("Pagination"): the query again,
  // in a querybatch, with its page_token.
  EXPECT_EQ(body_of(batches[0]), json::parse(R"({"queries":[{"package":{"purl":"pkg:pypi/mlflow@0.4.0"}}]})"));
  EXPECT_EQ(body_of(batches[1]), json::parse(R"({"queries":[{"package":{"purl":"pkg:pypi/mlflow@0.4.0"},
                                                             "page_token":"token for query 1"}]})"));
  EXPECT_EQ(body_of(batches[2]), json::parse(R"({"queries":[{"package":{"purl":"pkg:pypi/mlflow@0.4.0"},
                                                             "page_token":"a base64 string here"}]})"));

  ASSERT_EQ(got->findings.size(), 3u);
  EXPECT_EQ(got->findings[0].reference, first);
  EXPECT_EQ(got->findings[1].reference, "OSV-2020-744");
  EXPECT_EQ(got->findings[1].summary, "Heap-double-free in mrb_default_allocf");
  EXPECT_EQ(raw_of(got->findings[1])["fixed_version"], "97319697c8f9f6ff27b32589947e1918e3015503");
  EXPECT_EQ(got->findings[2].reference, last);
  for (const auto& f : got->findings) EXPECT_EQ(raw_of(f)["purl"], "pkg:pypi/mlflow@0.4.0");
  for (const auto& id : {first, std::string("OSV-2020-744"), last}) {
    EXPECT_EQ(requests_to(peer, "/v1/vulns/" + id).size(), 1u) << id;
  }
}

TEST(OsvScanner, an_advisory_whose_record_fails_stands_at_unknown_severity_and_the_failure_is_tolerated) {
  ApiPeer peer;
  const std::string down = "GHSA-vqj2-4v8m-8vrq", fine = "OSV-2020-111", wrong = "PYSEC-2022-28";
  peer.script({
      {"POST", "/v1/querybatch", {answer(osv_batch({osv_result({down, fine, wrong})}))}},
      {"GET",
       "/v1/vulns/" + down,
       {answer("upstream connect error or disconnect/reset before headers", 503, "text/plain")}},
      {"GET", "/v1/vulns/" + fine, {answer(kOsvVulnSample)}},
      // A record for another advisory than the one asked for.
      {"GET", "/v1/vulns/" + wrong, {answer(osv_record("PYSEC-2022-29"))}},
  });
  const std::string url = peer.url();

  OsvScanner osv(osv_options(url));
  auto got = scan(osv, input(PackageKind::kNpm, "left-pad", "1.3.1"));
  ASSERT_TRUE(got) << got.error().message;
  ASSERT_EQ(got->findings.size(), 3u);
  // Named, at unknown severity, without what only the record says.
  const char* const bare = R"({"purl":"pkg:npm/left-pad@1.3.1","fixed_version":null,"aliases":[]})";
  expect_osv_finding(got->findings[0], down, Severity::kUnknown, down, bare);
  expect_osv_finding(got->findings[1], fine, Severity::kUnknown,
                     "Heap-use-after-free in int std::__1::__cxx_atomic_fetch_sub<int>",
                     R"({"purl":"pkg:npm/left-pad@1.3.1","fixed_version":"155f73bdd261622323491df4aebb840cde8bfee1",
                         "aliases":[]})");
  expect_osv_finding(got->findings[2], wrong, Severity::kUnknown, wrong, bare);
  ASSERT_EQ(got->tolerated.size(), 2u);
  EXPECT_EQ(got->tolerated[0].kind, ScannerError::Kind::kUpstream);
  EXPECT_EQ(core::error_class(got->tolerated[0].kind), "upstream");
  EXPECT_EQ(got->tolerated[0].message, "osv: GET " + url + "/v1/vulns/" + down +
                                           ": HTTP 503: upstream connect error or disconnect/reset before headers");
  EXPECT_EQ(got->tolerated[1].kind, ScannerError::Kind::kOutput);
  EXPECT_EQ(got->tolerated[1].message, "osv: GET " + url + "/v1/vulns/" + wrong +
                                           ": the answer is not what the API documents: asked for " + wrong +
                                           ", answered PYSEC-2022-29");
  EXPECT_EQ(requests_to(peer, "/v1/vulns/" + down).size(), 3u);  // a 5xx is retried

  // on_outage = "error": the first failure is the scanner's error.
  peer.forget();
  OsvScanner strict(osv_options(url, /*fail_closed=*/true));
  auto refused = scan(strict, input(PackageKind::kNpm, "left-pad", "1.3.1"));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ScannerError::Kind::kUpstream);
  EXPECT_EQ(refused.error().message, got->tolerated[0].message);
  EXPECT_EQ(requests_to(peer, "/v1/vulns/" + fine).size(), 0u);
}

TEST(OsvScanner, what_has_no_purl_or_an_sbom_that_is_not_json_is_refused_before_any_request) {
  ApiPeer peer;
  OsvScanner osv(osv_options(peer.url()));
  // A Maven name without its group has no PURL.
  auto unsupported = scan(osv, input(PackageKind::kMaven, "log4j-core", "2.14.1"));
  ASSERT_FALSE(unsupported);
  EXPECT_EQ(unsupported.error().kind, ScannerError::Kind::kUnsupported);
  EXPECT_TRUE(unsupported.error().message.starts_with("osv: local:log4j-core@2.14.1 ")) << unsupported.error().message;
  // The SBOM is the worker's own record, not an outage: refused even under upstream's default.
  ScanInput in = input(PackageKind::kNpm, "left-pad", "1.3.1");
  in.sbom = "<bom xmlns=\"http://cyclonedx.org/schema/bom/1.5\"/>";
  auto unreadable_sbom = scan(osv, in);
  ASSERT_FALSE(unreadable_sbom);
  EXPECT_EQ(unreadable_sbom.error().kind, ScannerError::Kind::kOutput);
  EXPECT_TRUE(unreadable_sbom.error().message.starts_with("osv: the SBOM: ")) << unreadable_sbom.error().message;
  EXPECT_TRUE(peer.seen().empty());
}

// ---------------------------------------------------------------------------------------
// Socket fixtures

// One artifact line of the POST /v0/purl answer (https://docs.socket.dev/reference/batchpackagefetch:
// newline-delimited JSON, one artifact per line, with the fields that page's schema gives an
// artifact — id, type, namespace, name, version, inputPurl, alerts[] of {key, type, severity
// (low, middle, high, critical), category, file, props, action}).
std::string socket_artifact(const std::string& name, const std::string& version, const std::string& purl,
                            const json& alerts) {
  json a = {{"id", "93042176534"}, {"type", "npm"},     {"name", name},
            {"version", version},  {"inputPurl", purl}, {"alerts", alerts}};
  return a.dump() + "\n";
}

json socket_alert(const std::string& type, const std::string& severity, const std::string& category,
                  const std::string& props_json = "{}") {
  return json{{"key", "QhWbYXmRcYqFvUZvLtXhbyBqaXJybMQeoA6vPCfgnGTM"},
              {"type", type},
              {"severity", severity},
              {"category", category},
              {"file", "package/package.json"},
              {"props", json::parse(props_json)},
              {"action", "warn"}};
}

// A Socket API key (sktsec_…) and its Basic credentials: base64("<key>:"), the key as the
// user name with an empty password.
const char* const kSocketKey = "sktsec_9Xq2LkVb7TnW";
const char* const kSocketBasic = "Basic c2t0c2VjXzlYcTJMa1ZiN1RuVzo=";

SocketOptions socket_options(const std::string& url) {
  return SocketOptions{api_options("socket", url), kSocketKey};
}

// ---------------------------------------------------------------------------------------
// Socket

TEST(SocketScanner, posts_the_purl_with_basic_auth_and_makes_a_finding_of_each_alert_by_its_family) {
  ApiPeer peer;
  const json alerts = json::array({
      socket_alert("installScripts", "high", "supplyChainRisk",
                   R"({"script": "postinstall", "source": "node install.js"})"),
      socket_alert("didYouMean", "critical", "supplyChainRisk", R"({"alternatePackage": "expres", "editDistance": 1})"),
      socket_alert("criticalCVE", "critical", "vulnerability",
                   R"({"cveId": "CVE-2024-29041", "title": "Express.js Open Redirect in malformed URLs"})"),
      socket_alert("malware", "critical", "supplyChainRisk", R"({"note": "Exfiltrates environment variables"})"),
      socket_alert("envVars", "middle", "supplyChainRisk", R"({"envVars": "HOME,PATH"})"),
  });
  peer.script({{"POST",
                "/v0/purl",
                {answer(socket_artifact("express", "4.19.2", "pkg:npm/express@4.19.2", alerts), 200,
                        "application/x-ndjson")}}});

  SocketScanner socket_scanner(socket_options(peer.url()));
  auto got = scan(socket_scanner, input(PackageKind::kNpm, "express", "4.19.2"));
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_TRUE(got->tolerated.empty());

  // https://docs.socket.dev/reference/batchpackagefetch: POST /v0/purl?alerts=true&compact=true,
  // {"components":[{"purl"}]}.
  const auto seen = peer.seen();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].method, "POST");
  EXPECT_EQ(seen[0].path, "/v0/purl");
  EXPECT_EQ(seen[0].query, "alerts=true&compact=true");
  EXPECT_EQ(header(seen[0], "content-type"), "application/json");
  EXPECT_EQ(header(seen[0], "authorization"), kSocketBasic);
  EXPECT_EQ(body_of(seen[0]), json::parse(R"({"components":[{"purl":"pkg:npm/express@4.19.2"}]})"));

  struct Want {
    FindingKind kind;
    ReasonCode code;
    Severity severity;
    std::string summary;
    std::optional<std::string> reference;
  };
  const std::vector<Want> want = {
      {FindingKind::kInstallHook, ReasonCode::kInstallHook, Severity::kHigh, "socket: installScripts (supplyChainRisk)",
       std::nullopt},
      {FindingKind::kTyposquat, ReasonCode::kTyposquatSuspect, Severity::kCritical,
       "socket: didYouMean (supplyChainRisk)", std::nullopt},
      {FindingKind::kVulnerability, ReasonCode::kVulnerability, Severity::kCritical,
       "socket: criticalCVE (vulnerability)", "CVE-2024-29041"},
      {FindingKind::kMalwareSignal, ReasonCode::kMalwareSignal, Severity::kCritical,
       "socket: malware (supplyChainRisk)", "Exfiltrates environment variables"},
      // Socket's "middle" is no severity upstream reads: medium.
      {FindingKind::kMalwareSignal, ReasonCode::kMalwareSignal, Severity::kMedium, "socket: envVars (supplyChainRisk)",
       std::nullopt},
  };
  ASSERT_EQ(got->findings.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    const Finding& f = got->findings[i];
    SCOPED_TRACE(f.summary);
    EXPECT_EQ(f.scanner, "socket");
    EXPECT_EQ(f.kind, want[i].kind);
    EXPECT_EQ(f.code, want[i].code);
    EXPECT_EQ(f.severity, want[i].severity);
    EXPECT_EQ(f.summary, want[i].summary);
    EXPECT_EQ(f.reference, want[i].reference);
    EXPECT_EQ(raw_of(f), alerts[i]);
  }
}

TEST(SocketScanner, a_scoped_npm_name_is_asked_as_its_purl_and_an_artifact_without_alerts_is_clean) {
  ApiPeer peer;
  peer.script({{"POST",
                "/v0/purl",
                {answer(socket_artifact("core", "7.24.0", "pkg:npm/%40babel/core@7.24.0", json::array()), 200,
                        "application/x-ndjson")}}});
  SocketScanner socket_scanner(socket_options(peer.url()));
  auto got = scan(socket_scanner, input(PackageKind::kNpm, "@babel/core", "7.24.0"));
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_TRUE(got->findings.empty());
  const auto seen = peer.seen();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(body_of(seen[0]), json::parse(R"({"components":[{"purl":"pkg:npm/%40babel/core@7.24.0"}]})"));
}

// ---------------------------------------------------------------------------------------
// Sigstore fixtures

// A version document as npm's registry serves one (GET /<name>/<version>,
// https://github.com/npm/registry/blob/main/docs/REGISTRY-API.md), with dist.attestations as
// npm publishes it for a version built with provenance
// (https://docs.npmjs.com/generating-provenance-statements) when `attestations_url` is given.
std::string npm_version_doc(const std::string& name, const std::string& version,
                            const std::optional<std::string>& attestations_url) {
  json dist = {
      {"integrity", "sha512-ZpzWAFHIFqyFE56dXqgX/DkDRZdz+rRcjoIk/RQU4IX0wiCv1l8S7ZrXDHcCc+uaf+6o7w3h2l3g6GYG5TKN9Q=="},
      {"shasum", "08dc6c0c425263e9fdab85ffdb6477550e2c63d1"},
      {"tarball",
       "https://registry.npmjs.org/" + name + "/-/" + name.substr(name.find('/') + 1) + "-" + version + ".tgz"},
      {"signatures",
       json::array({json{{"keyid", "SHA256:jl3bwswu80PjjokCgh0o2w5c2U4LhQAE57gj9cz1kzA"},
                         {"sig",
                          "MEUCIQDv7cqsfzcbiGHBmvG4hzlNsDiPjKBwymCvXKeA2sNzIgIgcXf7vL3GMvvKWyBDGzzXeVLzMU4j"
                          "gKj8ZCP3BzK3kiU="}}})}};
  if (attestations_url) {
    dist["attestations"] = {{"url", *attestations_url},
                            {"provenance", {{"predicateType", "https://slsa.dev/provenance/v1"}}}};
  }
  return json{{"name", name}, {"version", version}, {"dist", dist}}.dump();
}

// canonicalizedBody of the documented bundle's tlog entry (https://docs.sigstore.dev/about/bundle/,
// sigstore-java-1.0.0.jar), abridged to its first 132 base64 characters; and a second body, a
// DSSE entry's, for npm's second attestation.
const char* const kBody =
    "eyJhcGlWZXJzaW9uIjoiMC4wLjEiLCJraW5kIjoiaGFzaGVkcmVrb3JkIiwic3BlYyI6eyJkYXRhIjp7Imhhc2giOnsiYWxnb3JpdGhtIjoic2"
    "hhMjU2IiwidmFsdWUiOiI1";
const char* const kDsseBody =
    "eyJhcGlWZXJzaW9uIjoiMC4wLjEiLCJraW5kIjoiZHNzZSIsInNwZWMiOnsicGF5bG9hZEhhc2giOnsiYWxnb3JpdGhtIjoic2hhMjU2IiwidmFs"
    "dWUiOiI4ZDlkNzk3MmY2NzY1MTZjIn19fQ==";
const char* const kKeyId = "wNI9atQGlz+VWfO6LRygH4QUfY/8W4RFwiT5i5WRgB0=";
constexpr std::uint64_t kIndex = 125680200;
constexpr std::uint64_t kPublishIndex = 125680201;
constexpr std::int64_t kIntegrated = 1724870676;

// A tlog entry of that bundle (verificationMaterial.tlogEntries[]: logIndex and integratedTime
// as protobuf's JSON gives int64s, strings of digits).
json tlog_entry(std::uint64_t index, const std::string& body) {
  return json{
      {"logIndex", std::to_string(index)},
      {"logId", {{"keyId", kKeyId}}},
      {"kindVersion", {{"kind", "hashedrekord"}, {"version", "0.0.1"}}},
      {"integratedTime", std::to_string(kIntegrated)},
      {"inclusionPromise",
       {{"signedEntryTimestamp",
         "MEYCIQCAKWrmj0LZ77rfiMXEat9gCCJxX4pgQfZqNc+tvF7gaAIhAJFtyypsWCbLDJ+NAMzPoY1AkQ1inhhQ3pZC5PaBCI8C"}}},
      {"inclusionProof",
       {{"logIndex", "3775938"},
        {"rootHash", "nEpjeg/gaT1EOcKQAr3q/XGdnuKzLsf4UhgZrwtTU+8="},
        {"treeSize", "3775939"},
        {"hashes", json::array({"vNwG4wbIsTeCSn9JageqhtCb6VvgYEKSw3Xro8zMF3s="})},
        {"checkpoint",
         {{"envelope",
           "rekor.sigstore.dev - 1193050959916656506\n3775939\nnEpjeg/gaT1EOcKQAr3q/XGdnuKzLsf4UhgZrwtTU+8=\n"}}}}},
      {"canonicalizedBody", body}};
}

// npm's attestations answer (GET /-/npm/v1/attestations/<name>@<version>,
// {"attestations":[{"predicateType","bundle"}…]}: npm's publish attestation and the SLSA
// provenance, https://docs.npmjs.com/generating-provenance-statements), each bundle a Sigstore
// bundle (https://docs.sigstore.dev/about/bundle/) around a DSSE envelope.
json attestation(const std::string& predicate_type, const json& tlog_entries) {
  json bundle = {
      {"mediaType", "application/vnd.dev.sigstore.bundle.v0.3+json"},
      {"verificationMaterial", {{"tlogEntries", tlog_entries}, {"certificate", {{"rawBytes", "MIIHZDCC"}}}}},
      {"dsseEnvelope",
       {{"payload", "eyJfdHlwZSI6Imh0dHBzOi8vaW4tdG90by5pby9TdGF0ZW1lbnQvdjEifQ=="},
        {"payloadType", "application/vnd.in-toto+json"},
        {"signatures",
         json::array({json{{"sig",
                            "MEUCIAlVM9GGEFWgWb2st+GEYUUJaMxFev1bW6MTsWdgbK5bAiEAoXXJNQACRF4o68LtWGoTWJeeszDk"
                            "EveQka8T6+8Xy4A="},
                           {"keyid", ""}}})}}}};
  return json{{"predicateType", predicate_type}, {"bundle", bundle}};
}
const char* const kPublishType = "https://github.com/npm/attestation/tree/main/specs/publish/v0.1";
const char* const kSlsaType = "https://slsa.dev/provenance/v1";

std::string npm_attestations(const std::vector<json>& attestations) {
  json doc = json::object();
  doc["attestations"] = json(attestations);
  return doc.dump();
}

// Rekor's answer to GET /api/v1/log/entries?logIndex=N: one LogEntry keyed by its UUID
// (https://github.com/sigstore/rekor/blob/main/openapi.yaml, getLogEntryByIndex and LogEntry:
// body base64, integratedTime, logID, logIndex, verification).
const char* const kUuid = "24296fb24b8ad77a27dbac48342e32d86ca2e056106ff7e94cd4a6ed2a12de00b7ffc57fc2f2c2e4";
const char* const kPublishUuid = "24296fb24b8ad77a16367aacb67a4a017c8da8ab95682ccb390863780f7114dda0a0e0c55644c7c4";
std::string rekor_entry(const std::string& uuid, std::uint64_t index, const std::string& body,
                        std::int64_t integrated = kIntegrated) {
  json e = {{"body", body},
            {"integratedTime", integrated},
            {"logID", "c0d23d6ad406973f9559f3ba2d1ca01f84147d8ffc5b8445c224f98b9591801d"},
            {"logIndex", index},
            {"verification",
             {{"inclusionProof", {{"logIndex", 3775938}, {"treeSize", 3775939}}},
              {"signedEntryTimestamp",
               "MEYCIQCAKWrmj0LZ77rfiMXEat9gCCJxX4pgQfZqNc+tvF7gaAIhAJFtyypsWCbLDJ+NAMzPoY1AkQ1inhhQ3pZC5PaBCI8C"}}}};
  json doc = json::object();
  doc[uuid] = e;
  return doc.dump();
}

// ---------------------------------------------------------------------------------------
// Sigstore: the registry and Rekor are two peers, so that each request is seen where it went.

class SigstoreScannerTest : public ::testing::Test {
 protected:
  static constexpr const char* kName = "@sigstore/sign";
  static constexpr const char* kVersion = "3.1.0";
  // npm's paths for a scoped name: the scope's '/' as %2f.
  static constexpr const char* kDocPath = "/@sigstore%2fsign/3.1.0";
  static constexpr const char* kAttestationsPath = "/-/npm/v1/attestations/@sigstore%2fsign@3.1.0";

  // The registry "npmjs" maps to the registry peer; the default registry is a path on Rekor's
  // peer that nothing may ask for.
  SigstoreScanner scanner(std::vector<PackageKind> require_for = {}) const {
    return SigstoreScanner(SigstoreOptions{api_options("sigstore", rekor_.url()),
                                           std::move(require_for),
                                           {{"npmjs", registry_.url() + "/"}},
                                           rekor_.url("/not-the-registry")});
  }
  ScanInput package() const { return input(PackageKind::kNpm, kName, kVersion, "npmjs"); }
  // The document announces its attestations at a URL of its own choosing, here one on Rekor's
  // peer: asked for, it would show there.
  std::string announced() const { return rekor_.url(kAttestationsPath); }

  // The registry's two answers, as documented.
  void registry_answers(const std::vector<json>& attestations) {
    registry_.script({{"GET", kDocPath, {answer(npm_version_doc(kName, kVersion, announced()))}},
                      {"GET", kAttestationsPath, {answer(npm_attestations(attestations))}}});
  }

  ApiPeer registry_;
  ApiPeer rekor_;
};

TEST_F(SigstoreScannerTest, asks_the_registry_for_the_document_and_attestations_then_rekor_for_each_entry) {
  registry_answers({attestation(kPublishType, json::array({tlog_entry(kPublishIndex, kDsseBody)})),
                    attestation(kSlsaType, json::array({tlog_entry(kIndex, kBody)}))});
  rekor_.script(
      {{"GET",
        "/api/v1/log/entries",
        {answer(rekor_entry(kPublishUuid, kPublishIndex, kDsseBody)), answer(rekor_entry(kUuid, kIndex, kBody))}}});

  auto got = scan(scanner(), package());
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_TRUE(got->findings.empty());  // every entry is logged, as the bundle says
  EXPECT_TRUE(got->tolerated.empty());

  // The registry itself, for both: the document's own URL is not where the attestations are
  // asked for.
  const auto registry = registry_.seen();
  ASSERT_EQ(registry.size(), 2u);
  expect_get(registry[0], kDocPath);
  expect_get(registry[1], kAttestationsPath);
  // https://github.com/sigstore/rekor/blob/main/openapi.yaml: GET /api/v1/log/entries?logIndex=N.
  const auto rekor = rekor_.seen();
  ASSERT_EQ(rekor.size(), 2u);
  expect_get(rekor[0], "/api/v1/log/entries", "logIndex=" + std::to_string(kPublishIndex));
  expect_get(rekor[1], "/api/v1/log/entries", "logIndex=" + std::to_string(kIndex));
}

TEST_F(SigstoreScannerTest, a_version_without_attestations_is_provenance_missing_only_when_npm_requires_them) {
  registry_.script({{"GET", kDocPath, {answer(npm_version_doc(kName, kVersion, std::nullopt))}}});

  auto optional = scan(scanner(), package());
  ASSERT_TRUE(optional) << optional.error().message;
  EXPECT_TRUE(optional->findings.empty());

  auto required = scan(scanner({PackageKind::kNpm}), package());
  ASSERT_TRUE(required) << required.error().message;
  ASSERT_EQ(required->findings.size(), 1u);
  const Finding& f = required->findings[0];
  EXPECT_EQ(f.scanner, "sigstore");
  EXPECT_EQ(f.kind, FindingKind::kProvenance);
  EXPECT_EQ(f.code, ReasonCode::kProvenanceMissing);
  EXPECT_EQ(f.severity, Severity::kHigh);
  EXPECT_EQ(f.summary, "no provenance attestation is published for version 3.1.0");

  // The document alone each time: nothing announced, nothing more to ask.
  const auto registry = registry_.seen();
  ASSERT_EQ(registry.size(), 2u);
  expect_get(registry[0], kDocPath);
  expect_get(registry[1], kDocPath);
  EXPECT_TRUE(rekor_.seen().empty());
}

TEST_F(SigstoreScannerTest, a_bundle_that_names_no_log_entry_is_provenance_invalid_without_asking_rekor) {
  registry_answers({attestation(kSlsaType, json::array())});
  auto got = scan(scanner(), package());
  ASSERT_TRUE(got) << got.error().message;
  ASSERT_EQ(got->findings.size(), 1u);
  const Finding& f = got->findings[0];
  EXPECT_EQ(f.kind, FindingKind::kProvenance);
  EXPECT_EQ(f.code, ReasonCode::kProvenanceInvalid);
  EXPECT_EQ(f.severity, Severity::kHigh);
  EXPECT_EQ(f.summary, "the attestation bundle names no transparency-log entry");
  EXPECT_EQ(raw_of(f), json::parse(npm_attestations({attestation(kSlsaType, json::array())})));
  EXPECT_TRUE(rekor_.seen().empty());
}

TEST_F(SigstoreScannerTest, an_entry_rekor_does_not_hold_is_provenance_invalid_and_its_404_is_not_retried) {
  registry_answers({attestation(kSlsaType, json::array({tlog_entry(kIndex, kBody)}))});
  // Rekor's 404 for an index it has no entry at (openapi.yaml: getLogEntryByIndex, 404 Error).
  rekor_.script({{"GET", "/api/v1/log/entries", {answer(R"({"code":404,"message":"entry not found"})", 404)}}});
  auto got = scan(scanner(), package());
  ASSERT_TRUE(got) << got.error().message;
  ASSERT_EQ(got->findings.size(), 1u);
  const Finding& f = got->findings[0];
  EXPECT_EQ(f.kind, FindingKind::kProvenance);
  EXPECT_EQ(f.code, ReasonCode::kProvenanceInvalid);
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_EQ(f.summary, "Rekor has no entry at log index 125680200, which the bundle cites");
  EXPECT_EQ(raw_of(f), json::parse(R"({"log_index":125680200})"));
  EXPECT_EQ(rekor_.seen().size(), 1u);
}

TEST_F(SigstoreScannerTest, a_rekor_entry_whose_body_or_time_is_not_the_bundles_is_provenance_invalid) {
  registry_answers({attestation(kSlsaType, json::array({tlog_entry(kIndex, kBody)}))});
  struct Case {
    std::string entry;
    std::string why;
  };
  const std::vector<Case> cases = {
      {rekor_entry(kUuid, kIndex, kDsseBody), "its body is not the bundle's canonicalizedBody"},
      {rekor_entry(kUuid, kIndex, kBody, kIntegrated + 3600),
       "Rekor integrated it at 1724874276, the bundle says 1724870676"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.why);
    rekor_.script({{"GET", "/api/v1/log/entries", {answer(c.entry)}}});
    auto got = scan(scanner(), package());
    ASSERT_TRUE(got) << got.error().message;
    ASSERT_EQ(got->findings.size(), 1u);
    const Finding& f = got->findings[0];
    EXPECT_EQ(f.kind, FindingKind::kProvenance);
    EXPECT_EQ(f.code, ReasonCode::kProvenanceInvalid);
    EXPECT_EQ(f.severity, Severity::kCritical);
    EXPECT_EQ(f.summary, "Rekor's entry at log index 125680200 is not the bundle's: " + c.why);
    EXPECT_EQ(raw_of(f), (json{{"log_index", kIndex}, {"why", c.why}}));
  }
}

// ---------------------------------------------------------------------------------------
// mlab fixtures

const char* const kQsPollution = R"json({
  "id": "CVE-2022-24999",
  "cvss_score": 7.5,
  "cvss_severity": "HIGH",
  "cvss_vector": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H",
  "epss_score": 0.00595,
  "epss_percentile": 0.77,
  "in_kev": false,
  "kev_date_added": null,
  "kev_due_date": null
})json";

Finding vulnerability(const std::string& scanner, const std::string& reference, Severity severity,
                      const std::string& summary, const std::string& raw) {
  Finding f;
  f.scanner = scanner;
  f.kind = FindingKind::kVulnerability;
  f.code = ReasonCode::kVulnerability;
  f.severity = severity;
  f.reference = reference;
  f.summary = summary;
  f.raw = raw;
  return f;
}

// What osv makes of Log4Shell: the GHSA advisory, the CVE among its aliases.
Finding log4shell_from_osv() {
  return vulnerability(
      "osv", "GHSA-jfh8-c2jp-5v3q", Severity::kHigh, "Remote code injection in Log4j",
      R"({"purl":"pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1","fixed_version":"2.15.0","aliases":["CVE-2021-44228"]})");
}

MlabOptions mlab_options(const std::string& url, const std::string& key = "") {
  return MlabOptions{api_options("mlab", url), key};
}

// ---------------------------------------------------------------------------------------
// mlab

TEST(MlabEnricher, a_kev_listed_cve_is_raised_to_critical_with_its_record_and_each_cve_is_looked_up_once) {
  ApiPeer peer;
  peer.script({{"GET", "/api/v1/cve/CVE-2021-44228", {answer(kMlabLog4ShellRecord)}},
               {"GET", "/api/v1/cve/CVE-2022-24999", {answer(kQsPollution)}},
               {"GET", "/api/v1/cve/CVE-2021-99999", {answer(R"({"detail":"CVE not found"})", 404)}}});

  Finding other_kind = vulnerability("yara", "CVE-2020-0001", Severity::kLow, "a rule named a CVE", "{}");
  other_kind.kind = FindingKind::kMalwareSignal;
  other_kind.code = ReasonCode::kMalwareSignal;
  const std::vector<Finding> before = {
      log4shell_from_osv(),
      // Socket's alert, the CVE as its reference.
      vulnerability("socket", "CVE-2021-44228", Severity::kMedium, "socket: criticalCVE (vulnerability)",
                    R"({"type":"criticalCVE","props":{"cveId":"CVE-2021-44228"}})"),
      vulnerability("osv", "GHSA-hrpp-h998-j3pp", Severity::kHigh, "qs vulnerable to Prototype Pollution",
                    R"({"purl":"pkg:npm/qs@6.10.2","fixed_version":"6.10.3","aliases":["CVE-2022-24999"]})"),
      vulnerability("osv", "GHSA-0000-0000-0000", Severity::kMedium, "not in mlab's database",
                    R"({"purl":"pkg:npm/left-pad@1.3.1","fixed_version":null,"aliases":["CVE-2021-99999"]})"),
      other_kind,
      vulnerability("osv", "OSV-2020-111", Severity::kUnknown, "no CVE at all",
                    R"({"purl":"pkg:npm/left-pad@1.3.1","fixed_version":null,"aliases":[]})"),
  };
  std::vector<Finding> findings = before;
  MlabEnricher mlab(mlab_options(peer.url()));
  auto done = mlab.enrich(findings, Clock::time_point::max());
  ASSERT_TRUE(done) << done.error().message;

  // One GET per distinct CVE of a vulnerability finding, no key: no Authorization.
  const auto seen = peer.seen();
  ASSERT_EQ(seen.size(), 3u);
  expect_get(seen[0], "/api/v1/cve/CVE-2021-44228");
  expect_get(seen[1], "/api/v1/cve/CVE-2022-24999");
  expect_get(seen[2], "/api/v1/cve/CVE-2021-99999");

  const json kev = json::parse(R"({"cvss_score":10.0,"cvss_severity":"CRITICAL",
      "cvss_vector":"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H","epss_score":0.97565,"epss_percentile":0.99996,
      "in_kev":true,"kev_date_added":"2021-12-10","kev_due_date":"2021-12-24","source":"mlab"})");
  ASSERT_EQ(findings.size(), before.size());
  for (std::size_t i : {0u, 1u}) {
    SCOPED_TRACE(i);
    EXPECT_EQ(findings[i].severity, Severity::kCritical);
    EXPECT_EQ(findings[i].summary, before[i].summary + " (CISA KEV: exploited in the wild)");
    EXPECT_EQ(findings[i].reference, before[i].reference);
    json raw = raw_of(before[i]);
    raw["enrichment"] = kev;
    EXPECT_EQ(raw_of(findings[i]), raw);
  }
  // Not in KEV: the record, and the severity the scanner gave.
  EXPECT_EQ(findings[2].severity, Severity::kHigh);
  EXPECT_EQ(findings[2].summary, before[2].summary);
  EXPECT_EQ(raw_of(findings[2])["enrichment"], json::parse(R"({"cvss_score":7.5,"cvss_severity":"HIGH",
      "cvss_vector":"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H","epss_score":0.00595,"epss_percentile":0.77,
      "in_kev":false,"kev_date_added":null,"kev_due_date":null,"source":"mlab"})"));
  // A CVE mlab does not know (404), another kind of finding, a vulnerability without a CVE:
  // left as they were.
  for (std::size_t i : {3u, 4u, 5u}) EXPECT_EQ(findings[i], before[i]) << i;
}

TEST(MlabEnricher, a_configured_key_is_sent_as_a_bearer_token) {
  ApiPeer peer;
  peer.script({{"GET", "/api/v1/cve/CVE-2021-44228", {answer(kMlabLog4ShellRecord)}}});
  std::vector<Finding> findings = {log4shell_from_osv()};
  MlabEnricher mlab(mlab_options(peer.url(), "mlab_7f3c9a1e"));
  auto done = mlab.enrich(findings, Clock::time_point::max());
  ASSERT_TRUE(done) << done.error().message;
  const auto seen = peer.seen();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(header(seen[0], "authorization"), "Bearer mlab_7f3c9a1e");
  EXPECT_EQ(findings[0].severity, Severity::kCritical);
}

// ---------------------------------------------------------------------------------------
// Every error shape, for every scanner

// A scanner as the error shapes see it: one of its requests, which the shape answers, after
// the requests before it answered as documented.
struct Subject {
  std::string label;  // the test's name
  std::string name;   // the scanner's: its errors start with it
  std::string method;
  std::string path;
  std::vector<Route> before;  // the requests made before that one, answered as documented
  Reply ok;                   // a documented answer to it, with which the scan succeeds
  Reply undocumented;         // an answer that is not what the API documents…
  std::string where;          // …and where in it the scanner says so
  bool tolerates = false;     // osv's default: a failure is a clean answer, the error handed back
  bool first = true;          // that request is the scan's first
  // The scan with `api` (api_url the peer) under the job's `deadline`.
  std::function<Result(const ApiOptions& api, Clock::time_point deadline)> run;
};

void PrintTo(const Subject& s, std::ostream* os) {
  *os << s.label;
}

Subject osv_subject(bool fail_closed) {
  Subject s;
  s.label = fail_closed ? "osv_on_outage_error" : "osv_by_default";
  s.name = "osv";
  s.method = "POST";
  s.path = "/v1/querybatch";
  s.ok = answer(osv_batch({osv_result({})}));
  s.undocumented =
      answer(R"({"results":[{"vulns":{"id":"GHSA-vqj2-4v8m-8vrq","modified":"2023-03-14T05:47:39.989396Z"}}]})");
  s.where = "osv querybatch /results/0/vulns";
  s.tolerates = !fail_closed;
  s.run = [fail_closed](const ApiOptions& api, Clock::time_point deadline) {
    OsvScanner osv(OsvOptions{api, fail_closed});
    ScanInput in = input(PackageKind::kNpm, "left-pad", "1.3.1");
    in.deadline = deadline;
    return scan(osv, in);
  };
  return s;
}

Subject socket_subject() {
  Subject s;
  s.label = "socket";
  s.name = "socket";
  s.method = "POST";
  s.path = "/v0/purl";
  s.ok = answer(socket_artifact("express", "4.19.2", "pkg:npm/express@4.19.2", json::array()), 200,
                "application/x-ndjson");
  // alerts as an object keyed by type, not the documented array.
  s.undocumented = answer(socket_artifact("express", "4.19.2", "pkg:npm/express@4.19.2",
                                          json{{"installScripts", socket_alert("installScripts", "high", "x")}}),
                          200, "application/x-ndjson");
  s.where = "socket purl line 1 /alerts";
  s.run = [](const ApiOptions& api, Clock::time_point deadline) {
    SocketScanner socket_scanner(SocketOptions{api, kSocketKey});
    ScanInput in = input(PackageKind::kNpm, "express", "4.19.2");
    in.deadline = deadline;
    return scan(socket_scanner, in);
  };
  return s;
}

// Sigstore with the registry and Rekor on one peer (the default registry): the version
// document (`rekor` false) or Rekor's entry is the request the shape answers.
Subject sigstore_subject(bool rekor) {
  Subject s;
  s.label = rekor ? "sigstore_rekor" : "sigstore_registry";
  s.name = "sigstore";
  s.method = "GET";
  const std::string announced = "https://127.0.0.1/-/npm/v1/attestations/sigstore@3.1.0";
  if (rekor) {
    s.path = "/api/v1/log/entries";
    s.before = {{"GET", "/sigstore/3.1.0", {answer(npm_version_doc("sigstore", "3.1.0", announced))}},
                {"GET",
                 "/-/npm/v1/attestations/sigstore@3.1.0",
                 {answer(npm_attestations({attestation(kSlsaType, json::array({tlog_entry(kIndex, kBody)}))}))}}};
    s.ok = answer(rekor_entry(kUuid, kIndex, kBody));
    // integratedTime as words, not the documented integer.
    json entry = json::parse(rekor_entry(kUuid, kIndex, kBody));
    entry[kUuid]["integratedTime"] = "yesterday";
    s.undocumented = answer(entry.dump());
    s.where = std::string("rekor entry /") + kUuid + "/integratedTime";
    s.first = false;
  } else {
    s.path = "/sigstore/3.1.0";
    s.ok = answer(npm_version_doc("sigstore", "3.1.0", std::nullopt));
    // dist.attestations as a bare URL, not the documented object.
    json doc = json::parse(npm_version_doc("sigstore", "3.1.0", std::nullopt));
    doc["dist"]["attestations"] = announced;
    s.undocumented = answer(doc.dump());
    s.where = "npm version document /dist/attestations";
  }
  s.run = [](const ApiOptions& api, Clock::time_point deadline) {
    SigstoreScanner sigstore(SigstoreOptions{api, {}, {}, api.api_url});
    ScanInput in = input(PackageKind::kNpm, "sigstore", "3.1.0");
    in.deadline = deadline;
    return scan(sigstore, in);
  };
  return s;
}

Subject mlab_subject() {
  Subject s;
  s.label = "mlab";
  s.name = "mlab";
  s.method = "GET";
  s.path = "/api/v1/cve/CVE-2021-44228";
  s.ok = answer(kMlabLog4ShellRecord);
  json record = json::parse(kMlabLog4ShellRecord);
  record["in_kev"] = "yes";
  s.undocumented = answer(record.dump());
  s.where = "mlab cve /in_kev";
  s.run = [](const ApiOptions& api, Clock::time_point deadline) -> Result {
    MlabEnricher mlab(MlabOptions{api, ""});
    const std::vector<Finding> before = {log4shell_from_osv()};
    std::vector<Finding> findings = before;
    auto done = mlab.enrich(findings, deadline);
    if (!done) {
      EXPECT_EQ(findings, before) << "an error leaves the findings as they were";
      return Unexpected(done.error());
    }
    return Lookup{std::move(findings), {}};
  };
  return s;
}

class ErrorShapes : public ::testing::TestWithParam<Subject> {
 protected:
  const Subject& subject() const { return GetParam(); }

  // The subject's request answered by `replies` (the last one repeating), the requests before
  // it as documented; the peer's log started over.
  void answer_with(std::vector<Reply> replies) {
    std::vector<Route> routes = subject().before;
    routes.push_back(Route{subject().method, subject().path, std::move(replies)});
    peer_.script(routes);
    peer_.forget();
  }

  Result run(const std::string& api_url, const std::string& ca_file = ApiPeer::ca_file(),
             std::chrono::milliseconds timeout = 20s, Clock::time_point deadline = Clock::time_point::max()) {
    ApiOptions api = api_options(subject().name, api_url);
    api.tls.ca_file = ca_file;
    api.timeout = timeout;
    return subject().run(api, deadline);
  }
  Result run() { return run(peer_.url()); }

  // How every error about the subject's request starts: "<scanner>: <METHOD> <URL>: ", the
  // URL without its query.
  std::string named(const std::string& api_url) const {
    return subject().name + ": " + subject().method + " " + api_url + subject().path + ": ";
  }
  std::string named() const { return named(peer_.url()); }

  // How many times the subject's request was made.
  std::size_t hits() const { return requests_to(peer_, subject().path).size(); }

  // The failure a scan came back with: the scanner's error, or — osv under upstream's default
  // — the one failure it tolerated, the scan clean (no finding).
  ScannerError failure(const Result& got) const {
    if (!subject().tolerates) {
      if (got) {
        ADD_FAILURE() << "the scan succeeded, " << got->findings.size() << " findings";
        return {};
      }
      return got.error();
    }
    if (!got) {
      ADD_FAILURE() << "osv failed instead of tolerating: " << got.error().message;
      return got.error();
    }
    EXPECT_TRUE(got->findings.empty());
    if (got->tolerated.size() != 1u) {
      ADD_FAILURE() << got->tolerated.size() << " failures tolerated, not one";
      return {};
    }
    return got->tolerated[0];
  }

  ApiPeer peer_;
};

TEST_P(ErrorShapes, a_4xx_is_an_upstream_error_at_once) {
  for (int status : {400, 401, 403}) {
    SCOPED_TRACE(status);
    answer_with({answer(R"({"code":3,"message":"refused by the test"})", status)});
    const ScannerError e = failure(run());
    EXPECT_EQ(e.kind, ScannerError::Kind::kUpstream);
    EXPECT_EQ(e.message,
              named() + "HTTP " + std::to_string(status) + R"(: {"code":3,"message":"refused by the test"})");
    EXPECT_EQ(hits(), 1u);  // a client error is not retried
  }
}

TEST_P(ErrorShapes, a_429_is_waited_for_as_its_retry_after_says_then_the_answer_is_read) {
  Reply limited = answer(R"({"message":"rate limited"})", 429);
  limited.headers.emplace_back("Retry-After", "1");
  answer_with({limited, subject().ok});
  auto got = run();
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_TRUE(got->tolerated.empty());
  EXPECT_EQ(hits(), 2u);
}

TEST_P(ErrorShapes, a_429_for_ever_is_the_scanners_error_naming_the_429) {
  answer_with({answer(R"({"message":"rate limited"})", 429)});
  const ScannerError e = failure(run());
  EXPECT_EQ(e.kind, ScannerError::Kind::kUpstream);
  EXPECT_EQ(e.message, named() + "HTTP 429 (rate limited)");
  EXPECT_EQ(hits(), 3u);  // max_attempts
}

TEST_P(ErrorShapes, a_5xx_is_retried_then_an_upstream_error_naming_the_scanner_the_request_and_the_status) {
  const std::string gateway = "upstream connect error or disconnect/reset before headers. reset reason: overflow";
  answer_with({answer(gateway, 503, "text/plain")});
  const ScannerError e = failure(run());
  EXPECT_EQ(e.kind, ScannerError::Kind::kUpstream);
  EXPECT_EQ(core::error_class(e.kind), "upstream");
  EXPECT_EQ(e.message, named() + "HTTP 503: " + gateway);
  EXPECT_EQ(e.message.find('?'), std::string::npos) << "the query is left out";
  EXPECT_EQ(hits(), 3u);
}

TEST_P(ErrorShapes, a_cut_answer_is_retried_then_an_upstream_error) {
  Reply cut = subject().ok;
  cut.truncate = true;  // twice the body declared, the body sent, the connection closed
  answer_with({cut});
  const ScannerError e = failure(run());
  EXPECT_EQ(e.kind, ScannerError::Kind::kUpstream);
  EXPECT_TRUE(e.message.starts_with(named())) << e.message;
  EXPECT_EQ(hits(), 3u);
}

TEST_P(ErrorShapes, an_answer_over_the_cap_is_an_output_error_and_is_not_read_to_its_end) {
  // A chunked body that never ends (2^40 pieces of 64 KiB): a client that read it to its end
  // would meet ApiOptions.timeout and say Timeout. Output says it stopped at its cap.
  Reply endless = answer(std::string(64 * 1024, ' '));
  endless.repeat = std::uint64_t{1} << 40;
  endless.chunked = true;
  answer_with({endless});
  const ScannerError e = failure(run());
  EXPECT_EQ(e.kind, ScannerError::Kind::kOutput) << e.message;
  EXPECT_EQ(core::error_class(e.kind), "output");
  EXPECT_TRUE(e.message.starts_with(named())) << e.message;
  EXPECT_EQ(hits(), 1u);  // an answer too large is not asked for again
}

TEST_P(ErrorShapes, an_answer_slower_than_the_timeout_is_a_timeout) {
  Reply slow = subject().ok;
  slow.delay_ms = 5000;
  answer_with({slow});
  const ScannerError e = failure(run(peer_.url(), ApiPeer::ca_file(), 500ms));
  EXPECT_EQ(e.kind, ScannerError::Kind::kTimeout) << e.message;
  EXPECT_EQ(core::error_class(e.kind), "timeout");
  EXPECT_TRUE(e.message.starts_with(named())) << e.message;
  EXPECT_GE(hits(), 1u);
  EXPECT_LE(hits(), 3u);
}

TEST_P(ErrorShapes, a_certificate_from_another_ca_is_an_error_after_one_attempt) {
  answer_with({subject().ok});
  CountingRelay relay(peer_.port());
  const ScannerError e = failure(run(relay.url(), ApiPeer::wrong_ca_file()));
  EXPECT_EQ(e.kind, ScannerError::Kind::kUpstream) << e.message;
  EXPECT_TRUE(e.message.starts_with(subject().name + ": GET " + relay.url() + "/") ||
              e.message.starts_with(subject().name + ": POST " + relay.url() + "/"))
      << e.message;
  // The first request fails the handshake (sigstore's is the registry's, whatever the
  // subject): not retried, and nothing after it.
  if (subject().first) {
    EXPECT_TRUE(e.message.starts_with(named(relay.url()))) << e.message;
  }
  EXPECT_EQ(relay.connections(), 1);
  EXPECT_TRUE(peer_.seen().empty());

  // The relay sees every attempt: with the right CA, a 503 for ever is three more
  // connections (and one for each request before it).
  answer_with({answer("unavailable", 503, "text/plain")});
  (void)failure(run(relay.url()));
  EXPECT_EQ(relay.connections(), 1 + static_cast<int>(subject().before.size()) + 3);
}

TEST_P(ErrorShapes, an_answer_the_api_does_not_document_is_an_output_error_saying_where) {
  answer_with({subject().undocumented});
  const ScannerError e = failure(run());
  EXPECT_EQ(e.kind, ScannerError::Kind::kOutput) << e.message;
  EXPECT_TRUE(e.message.starts_with(named() + "the answer is not what the API documents: " + subject().where + ": "))
      << e.message;
  EXPECT_EQ(hits(), 1u);
}

TEST_P(ErrorShapes, a_job_deadline_already_passed_is_a_timeout_with_no_request_made) {
  answer_with({subject().ok});
  const ScannerError e = failure(run(peer_.url(), ApiPeer::ca_file(), 20s, Clock::now() - 1s));
  EXPECT_EQ(e.kind, ScannerError::Kind::kTimeout) << e.message;
  EXPECT_NE(e.message.find("the job's time ran out before the request"), std::string::npos) << e.message;
  if (subject().first) {
    EXPECT_TRUE(e.message.starts_with(named())) << e.message;
  }
  EXPECT_TRUE(peer_.seen().empty());
}

INSTANTIATE_TEST_SUITE_P(Scanners, ErrorShapes,
                         ::testing::Values(osv_subject(/*fail_closed=*/true), osv_subject(/*fail_closed=*/false),
                                           socket_subject(), sigstore_subject(/*rekor=*/false),
                                           sigstore_subject(/*rekor=*/true), mlab_subject()),
                         [](const ::testing::TestParamInfo<Subject>& p) { return p.param.label; });

}  // namespace
}  // namespace batlehub::adapters::net
