// The network scanners' pure part (src/adapters/network_scanners): the requests, the
// answers of OSV, Socket, npm, Rekor and mlab read on fixtures built from their documented
// examples (each cites its page), upstream's mappings case by case, and the refusals — each
// of which names where (AnswerError::where) the answer went wrong. No network.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "adapters/network_scanners/mlab_answer.h"
#include "adapters/network_scanners/osv_answer.h"
#include "adapters/network_scanners/sigstore_answer.h"
#include "adapters/network_scanners/socket_answer.h"
#include "api_samples.h"

namespace batlehub::adapters::net {
namespace {

using batlehub::testing::kMlabLog4ShellRecord;
using batlehub::testing::kOsvQuerySample;
using batlehub::testing::kOsvVulnSample;

using core::Finding;
using core::FindingKind;
using core::ReasonCode;
using core::Severity;
using nlohmann::json;

// `depth` arrays nested in one another.
std::string nested(int depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

// ---------------------------------------------------------------------------------------
// OSV

// The sample 200 response of https://google.github.io/osv.dev/post-v1-querybatch/ (three
// queries: a PURL, a commit, a name and version).
const char* const kOsvBatchSample = R"json({
  "results": [
    {"vulns": [
      {"id": "GHSA-vqj2-4v8m-8vrq", "modified": "2023-03-14T05:47:39.989396Z"},
      {"id": "GHSA-wp72-7hj9-5265", "modified": "2023-03-24T22:28:29.389429Z"},
      {"id": "GHSA-xg73-94fp-g449", "modified": "2023-03-24T22:54:55.516821Z"},
      {"id": "PYSEC-2022-28", "modified": "2022-03-02T06:39:30.836439Z"}]},
    {"vulns": [
      {"id": "OSV-2020-484", "modified": "2022-04-13T03:04:32.842142Z"}]},
    {"vulns": [
      {"id": "GHSA-462w-v97r-4m45", "modified": "2023-03-10T05:23:41.874079Z"},
      {"id": "GHSA-8r7q-cvjq-x353", "modified": "2023-03-08T05:47:11.461578Z"},
      {"id": "GHSA-fqh9-2qgg-h84h", "modified": "2023-03-09T05:31:42.262435Z"},
      {"id": "GHSA-g3rq-g295-4j3m", "modified": "2023-03-12T05:29:26.243227Z"},
      {"id": "GHSA-hj2j-77xm-mc5v", "modified": "2023-03-12T05:32:53.675797Z"},
      {"id": "PYSEC-2014-8", "modified": "2021-07-05T00:01:22.043149Z"},
      {"id": "PYSEC-2014-82", "modified": "2021-08-27T03:22:05.027573Z"},
      {"id": "PYSEC-2019-217", "modified": "2021-11-22T04:57:52.862665Z"},
      {"id": "PYSEC-2019-220", "modified": "2021-11-22T04:57:52.929678Z"},
      {"id": "PYSEC-2021-66", "modified": "2021-03-22T16:34:00Z"}]}
  ]
})json";

// The get-v1-vulns sample with its severity fields set as the OSV schema defines them
// (https://ossf.github.io/osv-schema/#severity-field, #database_specific-field).
std::string osv_record(const json& over) {
  json v = json::parse(kOsvVulnSample);
  for (const auto& [k, val] : over.items()) {
    if (val.is_null()) {
      v.erase(k);
    } else {
      v[k] = val;
    }
  }
  return v.dump();
}

Severity severity_of(const json& over) {
  auto v = parse_osv_vuln(osv_record(over));
  EXPECT_TRUE(v) << v.error().describe();
  return v ? v->severity : Severity::kUnknown;
}

TEST(OsvAnswer, the_requests_are_the_documented_payloads) {
  // https://google.github.io/osv.dev/post-v1-querybatch/ and /post-v1-query/
  EXPECT_EQ(
      osv_batch_request({"pkg:pypi/mlflow@0.4.0", "pkg:npm/left-pad@1.3.0"}),
      R"({"queries":[{"package":{"purl":"pkg:pypi/mlflow@0.4.0"}},{"package":{"purl":"pkg:npm/left-pad@1.3.0"}}]})");
  EXPECT_EQ(osv_batch_request({}), R"({"queries":[]})");
  EXPECT_EQ(osv_query_request("pkg:pypi/mlflow@0.4.0"), R"({"package":{"purl":"pkg:pypi/mlflow@0.4.0"}})");
  EXPECT_EQ(osv_query_request("pkg:pypi/mlflow@0.4.0", "tok\"en"),
            R"({"package":{"purl":"pkg:pypi/mlflow@0.4.0"},"page_token":"tok\"en"})");
}

TEST(OsvAnswer, the_documented_querybatch_answer_reads_one_result_per_query_in_order) {
  auto r = parse_osv_batch(kOsvBatchSample, 3);
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].ids, (std::vector<std::string>{"GHSA-vqj2-4v8m-8vrq", "GHSA-wp72-7hj9-5265", "GHSA-xg73-94fp-g449",
                                                   "PYSEC-2022-28"}));
  EXPECT_EQ((*r)[1].ids, std::vector<std::string>{"OSV-2020-484"});
  EXPECT_EQ((*r)[2].ids.size(), 10u);
  EXPECT_EQ((*r)[2].ids.back(), "PYSEC-2021-66");
  for (const auto& one : *r) EXPECT_EQ(one.next_page_token, "");
}

TEST(OsvAnswer, an_empty_result_is_no_vulnerability_and_a_paginated_one_keeps_its_token) {
  // "If a query has no matched vulnerabilities, its corresponding result entry may be an
  // empty object" (post-v1-querybatch); a paginated result carries next_page_token.
  auto r = parse_osv_batch(R"({"results":[{},{"vulns":[{"id":"OSV-2020-484"}],"next_page_token":"abc="}]})", 2);
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_TRUE((*r)[0].ids.empty());
  EXPECT_EQ((*r)[1].ids, std::vector<std::string>{"OSV-2020-484"});
  EXPECT_EQ((*r)[1].next_page_token, "abc=");
}

TEST(OsvAnswer, the_documented_record_reads_with_its_first_fixed_event) {
  auto v = parse_osv_vuln(kOsvVulnSample);
  ASSERT_TRUE(v) << v.error().describe();
  EXPECT_EQ(v->id, "OSV-2020-111");
  EXPECT_EQ(v->summary, "Heap-use-after-free in int std::__1::__cxx_atomic_fetch_sub<int>");
  EXPECT_EQ(v->fixed_version, "155f73bdd261622323491df4aebb840cde8bfee1");
  EXPECT_TRUE(v->aliases.empty());
  // affected[].ecosystem_specific.severity is not where upstream looks: no database_specific
  // severity, no severity[] — unknown.
  EXPECT_EQ(v->severity, Severity::kUnknown);
}

TEST(OsvAnswer, the_documented_query_answer_reads_its_records_and_its_page_token) {
  auto q = parse_osv_query(kOsvQuerySample);
  ASSERT_TRUE(q) << q.error().describe();
  ASSERT_EQ(q->first.size(), 1u);
  EXPECT_EQ(q->first[0].id, "OSV-2020-744");
  EXPECT_EQ(q->first[0].summary, "Heap-double-free in mrb_default_allocf");
  EXPECT_EQ(q->first[0].fixed_version, "97319697c8f9f6ff27b32589947e1918e3015503");
  EXPECT_EQ(q->second, "a base64 string here");
  auto none = parse_osv_query("{}");
  ASSERT_TRUE(none) << none.error().describe();
  EXPECT_TRUE(none->first.empty());
  EXPECT_EQ(none->second, "");
}

TEST(OsvAnswer, severity_is_database_specific_first_case_insensitively_moderate_being_medium) {
  EXPECT_EQ(severity_of({{"database_specific", {{"severity", "MODERATE"}}}}), Severity::kMedium);
  EXPECT_EQ(severity_of({{"database_specific", {{"severity", "moderate"}}}}), Severity::kMedium);
  EXPECT_EQ(severity_of({{"database_specific", {{"severity", "Critical"}}}}), Severity::kCritical);
  EXPECT_EQ(severity_of({{"database_specific", {{"severity", "LOW"}}}}), Severity::kLow);
  // It wins over the scores...
  EXPECT_EQ(severity_of({{"database_specific", {{"severity", "LOW"}}},
                         {"severity", {{{"type", "CVSS_V3"}, {"score", "9.8"}}}}}),
            Severity::kLow);
  // ...even when it says unknown, which it can.
  EXPECT_EQ(severity_of({{"database_specific", {{"severity", "UNKNOWN"}}},
                         {"severity", {{{"type", "CVSS_V3"}, {"score", "9.8"}}}}}),
            Severity::kUnknown);
  // A value that does not parse, or is no string, leaves it to the scores.
  EXPECT_EQ(severity_of({{"database_specific", {{"severity", "SEVERE"}}},
                         {"severity", {{{"type", "CVSS_V3"}, {"score", "7.5"}}}}}),
            Severity::kHigh);
  EXPECT_EQ(
      severity_of({{"database_specific", {{"severity", 3}}}, {"severity", {{{"type", "CVSS_V3"}, {"score", "4.0"}}}}}),
      Severity::kMedium);
}

TEST(OsvAnswer, a_numeric_score_maps_by_cvss_bands_and_the_largest_one_counts) {
  auto one = [](const json& score) { return severity_of({{"severity", {{{"type", "CVSS_V3"}, {"score", score}}}}}); };
  EXPECT_EQ(one("9.8"), Severity::kCritical);
  EXPECT_EQ(one("9.0"), Severity::kCritical);
  EXPECT_EQ(one("8.99"), Severity::kHigh);
  EXPECT_EQ(one("7.0"), Severity::kHigh);
  EXPECT_EQ(one("6.9"), Severity::kMedium);
  EXPECT_EQ(one("4.0"), Severity::kMedium);
  EXPECT_EQ(one("3.9"), Severity::kLow);
  EXPECT_EQ(one("0.1"), Severity::kLow);
  EXPECT_EQ(one("0"), Severity::kUnknown);
  EXPECT_EQ(one("-2"), Severity::kUnknown);
  EXPECT_EQ(one(9.8), Severity::kCritical);  // a JSON number is a number too
  // The max over several numeric scores, the vector among them skipped.
  EXPECT_EQ(severity_of({{"severity",
                          {{{"type", "CVSS_V3"}, {"score", "5.3"}},
                           {{"type", "CVSS_V3"}, {"score", "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"}},
                           {{"type", "CVSS_V2"}, {"score", "7.5"}},
                           {{"type", "CVSS_V4"}, {"score", "6.1"}}}}}),
            Severity::kHigh);
}

TEST(OsvAnswer, a_vector_only_record_is_unknown_for_no_score_is_computed_from_a_vector) {
  EXPECT_EQ(
      severity_of(
          {{"severity",
            {{{"type", "CVSS_V3"}, {"score", "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"}},
             {{"type", "CVSS_V4"}, {"score", "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N"}}}}}),
      Severity::kUnknown);
  // Scores that are no number whole: skipped too.
  EXPECT_EQ(
      severity_of({{"severity", {{{"type", "CVSS_V3"}, {"score", "9.8 "}}, {{"score", "high"}}, {{"score", ""}}}}}),
      Severity::kUnknown);
  // A type that is no string (osv.dev issue 2337) does not matter.
  EXPECT_EQ(severity_of({{"severity", {{{"type", 3}, {"score", "7.1"}}}}}), Severity::kHigh);
}

TEST(OsvAnswer, the_summary_falls_back_to_200_characters_of_details_then_to_the_id) {
  std::string details(150, 'a');
  details += "\n";
  details += std::string(100, 'b');
  auto from_details = parse_osv_vuln(osv_record({{"summary", nullptr}, {"details", details}}));
  ASSERT_TRUE(from_details) << from_details.error().describe();
  // The first 200 characters, made printable (the newline escaped).
  EXPECT_EQ(from_details->summary, std::string(150, 'a') + "\\n" + std::string(49, 'b'));
  auto from_id = parse_osv_vuln(osv_record({{"summary", nullptr}, {"details", nullptr}}));
  ASSERT_TRUE(from_id) << from_id.error().describe();
  EXPECT_EQ(from_id->summary, "OSV-2020-111");
  // Characters, not bytes.
  std::string wide;
  for (int i = 0; i < 210; ++i) wide += "é";
  auto utf8 = parse_osv_vuln(osv_record({{"summary", nullptr}, {"details", wide}}));
  ASSERT_TRUE(utf8) << utf8.error().describe();
  EXPECT_EQ(utf8->summary.size(), 400u);
  auto control = parse_osv_vuln(osv_record({{"summary", "evil\x1b[2Jtext\r\nnext"}}));
  ASSERT_TRUE(control);
  EXPECT_EQ(control->summary, "evil\\x1b[2Jtext\\x0d\\nnext");
}

TEST(OsvAnswer, aliases_are_the_strings_and_the_finding_is_upstreams) {
  auto v = parse_osv_vuln(osv_record(
      {{"aliases", {"CVE-2020-12345", 7, "GHSA-xxxx-yyyy-zzzz"}}, {"database_specific", {{"severity", "HIGH"}}}}));
  ASSERT_TRUE(v) << v.error().describe();
  EXPECT_EQ(v->aliases, (std::vector<std::string>{"CVE-2020-12345", "GHSA-xxxx-yyyy-zzzz"}));
  Finding f = osv_finding("osv", *v, "pkg:generic/poppler");
  EXPECT_EQ(f.scanner, "osv");
  EXPECT_EQ(f.kind, FindingKind::kVulnerability);
  EXPECT_EQ(f.code, ReasonCode::kVulnerability);
  EXPECT_EQ(f.severity, Severity::kHigh);
  EXPECT_EQ(f.reference, "OSV-2020-111");
  EXPECT_EQ(f.summary, "Heap-use-after-free in int std::__1::__cxx_atomic_fetch_sub<int>");
  EXPECT_EQ(json::parse(f.raw), json::parse(R"({"purl":"pkg:generic/poppler",
      "fixed_version":"155f73bdd261622323491df4aebb840cde8bfee1","aliases":["CVE-2020-12345","GHSA-xxxx-yyyy-zzzz"]})"));
  OsvVuln unfixed = *v;
  unfixed.fixed_version.reset();
  EXPECT_TRUE(json::parse(osv_finding("osv", unfixed, "p").raw)["fixed_version"].is_null());
}

TEST(OsvAnswer, refusals_name_where) {
  // Oversize, refused before parsing: the body is not even JSON.
  auto big = parse_osv_batch(std::string(kMaxOsvAnswer + 1, '['), 1);
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().where, "osv querybatch");
  EXPECT_NE(big.error().what.find("16777217 bytes"), std::string::npos) << big.error().what;
  auto deep = parse_osv_vuln(nested(65));
  ASSERT_FALSE(deep);
  EXPECT_EQ(deep.error().where, "osv vuln");
  EXPECT_NE(deep.error().what.find("deeper than 64"), std::string::npos) << deep.error().what;
  auto not_json = parse_osv_query("<html>502 Bad Gateway</html>");
  ASSERT_FALSE(not_json);
  EXPECT_EQ(not_json.error().where, "osv query");
  EXPECT_NE(not_json.error().what.find("not JSON"), std::string::npos) << not_json.error().what;
  auto not_object = parse_osv_batch("[]", 0);
  ASSERT_FALSE(not_object);
  EXPECT_EQ(not_object.error().where, "osv querybatch");

  auto count = parse_osv_batch(kOsvBatchSample, 4);
  ASSERT_FALSE(count);
  EXPECT_EQ(count.error().where, "osv querybatch /results");
  EXPECT_EQ(count.error().what, "has 3 results for 4 queries");
  auto no_results = parse_osv_batch("{}", 1);
  ASSERT_FALSE(no_results);
  EXPECT_EQ(no_results.error().where, "osv querybatch /results");
  auto results_type = parse_osv_batch(R"({"results":{}})", 1);
  ASSERT_FALSE(results_type);
  EXPECT_EQ(results_type.error().where, "osv querybatch /results");
  auto vulns_type = parse_osv_batch(R"({"results":[{"vulns":"GHSA-1"}]})", 1);
  ASSERT_FALSE(vulns_type);
  EXPECT_EQ(vulns_type.error().where, "osv querybatch /results/0/vulns");
  auto token_type = parse_osv_batch(R"({"results":[{},{"next_page_token":5}]})", 2);
  ASSERT_FALSE(token_type);
  EXPECT_EQ(token_type.error().where, "osv querybatch /results/1/next_page_token");

  for (const char* bad : {R"("")", R"("GHSA 1")", R"("a/b\n")", R"(12)", R"("é")"}) {
    auto r = parse_osv_batch(std::string(R"({"results":[{"vulns":[{"id":"OSV-1"},{"id":)") + bad + "}]}]}", 1);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().where, "osv querybatch /results/0/vulns/1/id") << bad;
  }
  auto long_id = parse_osv_batch(R"({"results":[{"vulns":[{"id":")" + std::string(129, 'A') + R"("}]}]})", 1);
  ASSERT_FALSE(long_id);
  EXPECT_EQ(long_id.error().where, "osv querybatch /results/0/vulns/0/id");
  EXPECT_TRUE(parse_osv_batch(R"({"results":[{"vulns":[{"id":")" + std::string(128, 'A') + R"("}]}]})", 1));
  auto no_id = parse_osv_batch(R"({"results":[{"vulns":[{"modified":"2023-03-14T05:47:39Z"}]}]})", 1);
  ASSERT_FALSE(no_id);
  EXPECT_EQ(no_id.error().where, "osv querybatch /results/0/vulns/0/id");

  auto record_id = parse_osv_vuln(osv_record({{"id", "OSV 2020 111"}}));
  ASSERT_FALSE(record_id);
  EXPECT_EQ(record_id.error().where, "osv vuln /id");
  auto summary_type = parse_osv_vuln(osv_record({{"summary", {{"text", "x"}}}}));
  ASSERT_FALSE(summary_type);
  EXPECT_EQ(summary_type.error().where, "osv vuln /summary");
  auto aliases_type = parse_osv_vuln(osv_record({{"aliases", "CVE-2020-1"}}));
  ASSERT_FALSE(aliases_type);
  EXPECT_EQ(aliases_type.error().where, "osv vuln /aliases");
  json events = json::parse(kOsvVulnSample);
  events["affected"][0]["ranges"][0]["events"][1]["fixed"] = 155;
  auto fixed_type = parse_osv_vuln(events.dump());
  ASSERT_FALSE(fixed_type);
  EXPECT_EQ(fixed_type.error().where, "osv vuln /affected/0/ranges/0/events/1/fixed");
  auto query_record = parse_osv_query(R"({"vulns":[{"id":"OSV-1"},{"id":"OSV-2","details":[]}]})");
  ASSERT_FALSE(query_record);
  EXPECT_EQ(query_record.error().where, "osv query /vulns/1/details");
  EXPECT_EQ(query_record.error().describe(), "osv query /vulns/1/details: is not a string but a JSON array");
}

// ---------------------------------------------------------------------------------------
// Socket

// The request is the example of https://docs.socket.dev/reference/batchpackagefetch; each
// answer line is an artifact with the fields that page's schema gives an artifact and its
// alerts (type, name, version, alerts[]: key, type, severity — low, middle, high, critical —
// category, file, props, action).
std::string socket_line(const json& alerts) {
  return json{{"id", "93042176534"},
              {"type", "npm"},
              {"name", "express"},
              {"version", "4.19.2"},
              {"inputPurl", "pkg:npm/express@4.19.2"},
              {"alerts", alerts}}
      .dump();
}

json alert(const std::string& type, const std::string& severity, const std::string& category,
           json props = json::object()) {
  return {{"key", "QhWbYXmRcYqFvUZvLtXhbyBqaXJybMQeoA6vPCfgnGTM"},
          {"type", type},
          {"severity", severity},
          {"category", category},
          {"file", "package/package.json"},
          {"props", std::move(props)},
          {"action", "warn"}};
}

TEST(SocketAnswer, the_request_is_the_documented_payload) {
  EXPECT_EQ(socket_request({"pkg:npm/express@4.19.2"}), R"({"components":[{"purl":"pkg:npm/express@4.19.2"}]})");
}

TEST(SocketAnswer, alert_types_map_to_upstreams_four_families) {
  const std::string body =
      socket_line(json::array({alert("installScripts", "high", "supplyChainRisk", {{"script", "postinstall"}}),
                               alert("gitDependency", "low", "supplyChainRisk"),
                               alert("httpDependency", "low", "supplyChainRisk"),
                               alert("didYouMean", "critical", "supplyChainRisk", {{"alternatePackage", "expres"}}),
                               alert("typosquat", "high", "supplyChainRisk")})) +
      "\n" +
      socket_line(
          json::array({alert("cve", "high", "vulnerability"), alert("vulnerability", "low", "vulnerability"),
                       alert("criticalCVE", "critical", "vulnerability"), alert("mediumCVE", "middle", "vulnerability"),
                       alert("mildCVE", "low", "vulnerability"), alert("malware", "critical", "supplyChainRisk"),
                       alert("obfuscatedFile", "high", "supplyChainRisk"), alert("someNewAlert", "low", "")})) +
      "\n";
  auto fs = parse_socket_ndjson(body, "socket");
  ASSERT_TRUE(fs) << fs.error().describe();
  ASSERT_EQ(fs->size(), 13u);
  const std::vector<std::pair<FindingKind, ReasonCode>> want = {
      {FindingKind::kInstallHook, ReasonCode::kInstallHook},
      {FindingKind::kInstallHook, ReasonCode::kInstallHook},
      {FindingKind::kInstallHook, ReasonCode::kInstallHook},
      {FindingKind::kTyposquat, ReasonCode::kTyposquatSuspect},
      {FindingKind::kTyposquat, ReasonCode::kTyposquatSuspect},
      {FindingKind::kVulnerability, ReasonCode::kVulnerability},
      {FindingKind::kVulnerability, ReasonCode::kVulnerability},
      {FindingKind::kVulnerability, ReasonCode::kVulnerability},
      {FindingKind::kVulnerability, ReasonCode::kVulnerability},
      {FindingKind::kVulnerability, ReasonCode::kVulnerability},
      {FindingKind::kMalwareSignal, ReasonCode::kMalwareSignal},
      {FindingKind::kMalwareSignal, ReasonCode::kMalwareSignal},
      {FindingKind::kMalwareSignal, ReasonCode::kMalwareSignal},
  };
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ((*fs)[i].kind, want[i].first) << i << " " << (*fs)[i].summary;
    EXPECT_EQ((*fs)[i].code, want[i].second) << i << " " << (*fs)[i].summary;
    EXPECT_EQ((*fs)[i].scanner, "socket");
  }
  EXPECT_EQ((*fs)[0].summary, "socket: installScripts (supplyChainRisk)");
  EXPECT_EQ((*fs)[0].severity, Severity::kHigh);
  EXPECT_EQ((*fs)[3].severity, Severity::kCritical);
  EXPECT_EQ((*fs)[12].summary, "socket: someNewAlert");  // no category, no parentheses
  EXPECT_EQ(json::parse((*fs)[0].raw), alert("installScripts", "high", "supplyChainRisk", {{"script", "postinstall"}}));
}

TEST(SocketAnswer, severity_reads_as_upstreams_severity_parse_and_middle_is_medium) {
  json alerts = json::array();
  for (const char* s : {"middle", "low", "MODERATE", "Critical", "unknown", "high", "medium", "whatever"}) {
    alerts.push_back(alert("malware", s, "supplyChainRisk"));
  }
  json no_severity = alert("malware", "", "supplyChainRisk");
  no_severity.erase("severity");
  alerts.push_back(no_severity);
  json number_severity = alert("malware", "", "supplyChainRisk");
  number_severity["severity"] = 3;
  alerts.push_back(number_severity);
  auto fs = parse_socket_ndjson(socket_line(alerts), "socket");
  ASSERT_TRUE(fs) << fs.error().describe();
  std::vector<Severity> got;
  for (const Finding& f : *fs) got.push_back(f.severity);
  EXPECT_EQ(got, (std::vector<Severity>{Severity::kMedium, Severity::kLow, Severity::kMedium, Severity::kCritical,
                                        Severity::kUnknown, Severity::kHigh, Severity::kMedium, Severity::kMedium,
                                        Severity::kMedium, Severity::kMedium}));
}

TEST(SocketAnswer, the_reference_is_the_note_else_the_cve_id_cut_at_120_characters) {
  json long_note = alert("malware", "critical", "supplyChainRisk", {{"note", std::string(130, 'n')}});
  auto fs = parse_socket_ndjson(
      socket_line(
          json::array({alert("malware", "critical", "supplyChainRisk", {{"note", "steals npm tokens"}, {"cveId", "x"}}),
                       alert("criticalCVE", "critical", "vulnerability", {{"cveId", "CVE-2024-29041"}}),
                       alert("mildCVE", "low", "vulnerability", {{"note", 5}, {"cveId", "CVE-2024-43796"}}),
                       alert("malware", "critical", "supplyChainRisk", {{"note", ""}, {"cveId", "CVE-2024-0001"}}),
                       long_note, alert("installScripts", "high", "supplyChainRisk")})),
      "socket");
  ASSERT_TRUE(fs) << fs.error().describe();
  ASSERT_EQ(fs->size(), 6u);
  EXPECT_EQ((*fs)[0].reference, "steals npm tokens");
  EXPECT_EQ((*fs)[1].reference, "CVE-2024-29041");
  EXPECT_EQ((*fs)[2].reference, "CVE-2024-43796");  // a note that is no string is no note
  EXPECT_EQ((*fs)[3].reference, "CVE-2024-0001");
  EXPECT_EQ((*fs)[4].reference, std::string(120, 'n'));
  EXPECT_EQ((*fs)[5].reference, std::nullopt);
}

TEST(SocketAnswer, lines_may_end_in_crlf_blank_lines_and_summary_rows_are_skipped_and_typeless_alerts_too) {
  json typeless = alert("malware", "high", "x");
  typeless.erase("type");
  json numeric_type = alert("malware", "high", "x");
  numeric_type["type"] = 7;
  const std::string body = "\r\n" + socket_line(json::array({alert("malware", "high", "supplyChainRisk")})) +
                           "\r\n  \n\n" + socket_line(json::array({typeless, numeric_type})) + "\n" +
                           json{{"id", "1"}, {"type", "npm"}, {"name", "clean"}, {"version", "1.0.0"}}.dump() + "\n" +
                           R"({"_type":"summary","value":{"purl_input":3,"resolved":3}})";  // no final newline
  auto fs = parse_socket_ndjson(body, "socket");
  ASSERT_TRUE(fs) << fs.error().describe();
  ASSERT_EQ(fs->size(), 1u);
  EXPECT_EQ((*fs)[0].summary, "socket: malware (supplyChainRisk)");
  auto empty = parse_socket_ndjson("", "socket");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
}

TEST(SocketAnswer, answer_text_is_printable_in_the_summary) {
  auto fs = parse_socket_ndjson(socket_line(json::array({alert("mal\nware", "high", "a\tb\x1b")})), "socket");
  ASSERT_TRUE(fs) << fs.error().describe();
  EXPECT_EQ((*fs)[0].summary, "socket: mal\\nware (a\\tb\\x1b)");
}

TEST(SocketAnswer, refusals_name_the_line_and_the_field) {
  auto big = parse_socket_ndjson(std::string(kMaxSocketAnswer + 1, '{'), "socket");
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().where, "socket purl");
  auto long_line =
      parse_socket_ndjson(socket_line(json::array()) + "\n" + std::string(kMaxSocketLine + 1, ' ') + "x", "socket");
  ASSERT_FALSE(long_line);
  EXPECT_EQ(long_line.error().where, "socket purl line 2");
  auto not_json = parse_socket_ndjson(socket_line(json::array()) + "\n\nnot json\n", "socket");
  ASSERT_FALSE(not_json);
  EXPECT_EQ(not_json.error().where, "socket purl line 3");
  auto deep = parse_socket_ndjson(nested(65), "socket");
  ASSERT_FALSE(deep);
  EXPECT_EQ(deep.error().where, "socket purl line 1");
  auto not_object = parse_socket_ndjson("[]", "socket");
  ASSERT_FALSE(not_object);
  EXPECT_EQ(not_object.error().where, "socket purl line 1");
  // Socket's error body: {"error":{"message":…}}.
  auto error_line = parse_socket_ndjson(R"({"error":{"message":"Unauthorized: invalid API key"}})", "socket");
  ASSERT_FALSE(error_line);
  EXPECT_EQ(error_line.error().where, "socket purl line 1 /error");
  EXPECT_NE(error_line.error().what.find("Unauthorized: invalid API key"), std::string::npos);
  // A PURL Socket could not resolve (purlErrors=true): {"_type":"purlError","value":{…}}.
  auto purl_error = parse_socket_ndjson(socket_line(json::array()) +
                                            "\n{\"_type\":\"purlError\",\"value\":{\"inputPurl\":\"pkg:npm/"
                                            "nope@0.0.0\",\"error\":\"package_not_found\"}}",
                                        "socket");
  ASSERT_FALSE(purl_error);
  EXPECT_EQ(purl_error.error().where, "socket purl line 2 /_type");
  EXPECT_NE(purl_error.error().what.find("pkg:npm/nope@0.0.0"), std::string::npos) << purl_error.error().what;
  auto unknown_row = parse_socket_ndjson(R"({"_type":"somethingNew","value":{}})", "socket");
  ASSERT_FALSE(unknown_row);
  EXPECT_EQ(unknown_row.error().where, "socket purl line 1 /_type");
  auto alerts_type = parse_socket_ndjson(socket_line("none"), "socket");
  ASSERT_FALSE(alerts_type);
  EXPECT_EQ(alerts_type.error().where, "socket purl line 1 /alerts");
  auto alert_type = parse_socket_ndjson(socket_line(json::array({alert("malware", "high", "x"), "malware"})), "socket");
  ASSERT_FALSE(alert_type);
  EXPECT_EQ(alert_type.error().where, "socket purl line 1 /alerts/1");
}

// ---------------------------------------------------------------------------------------
// Sigstore: npm's version document and attestations, Rekor's entry

// dist.attestations as npm's registry serves it for a version published with provenance
// (https://docs.npmjs.com/generating-provenance-statements; the registry's version document,
// https://github.com/npm/registry/blob/main/docs/REGISTRY-API.md).
const char* const kNpmVersionDoc = R"json({
  "name": "sigstore", "version": "3.1.0",
  "dist": {
    "integrity": "sha512-ZpzWAFHIFqyFE56dXqgX/DkDRZdz+rRcjoIk/RQU4IX0wiCv1l8S7ZrXDHcCc+uaf+6o7w3h2l3g6GYG5TKN9Q==",
    "shasum": "08dc6c0c425263e9fdab85ffdb6477550e2c63d1",
    "tarball": "https://registry.npmjs.org/sigstore/-/sigstore-3.1.0.tgz",
    "attestations": {
      "url": "https://registry.npmjs.org/-/npm/v1/attestations/sigstore@3.1.0",
      "provenance": {"predicateType": "https://slsa.dev/provenance/v1"}
    }
  }
})json";

// The tlogEntries of the documented message-signature bundle
// (https://docs.sigstore.dev/about/bundle/, sigstore-java-1.0.0.jar), canonicalizedBody
// abridged to its first 132 base64 characters (99 bytes), inside npm's attestations answer
// ({"attestations":[{"predicateType","bundle"}]}, /-/npm/v1/attestations/<name>@<version>).
const char* const kBody =
    "eyJhcGlWZXJzaW9uIjoiMC4wLjEiLCJraW5kIjoiaGFzaGVkcmVrb3JkIiwic3BlYyI6eyJkYXRhIjp7Imhhc2giOnsiYWxnb3JpdGhtIjoic2hhMj"
    "U2IiwidmFsdWUiOiI1";
const char* const kKeyId = "wNI9atQGlz+VWfO6LRygH4QUfY/8W4RFwiT5i5WRgB0=";

json tlog_entry() {
  return {{"logIndex", "125680200"},
          {"logId", {{"keyId", kKeyId}}},
          {"kindVersion", {{"kind", "hashedrekord"}, {"version", "0.0.1"}}},
          {"integratedTime", "1724870676"},
          {"inclusionPromise",
           {{"signedEntryTimestamp",
             "MEYCIQCAKWrmj0LZ77rfiMXEat9gCCJxX4pgQfZqNc+tvF7gaAIhAJFtyypsWCbLDJ+NAMzPoY1AkQ1inhhQ3pZC5PaBCI8C"}}},
          {"inclusionProof",
           {{"logIndex", "3775938"},
            {"rootHash", "nEpjeg/gaT1EOcKQAr3q/XGdnuKzLsf4UhgZrwtTU+8="},
            {"treeSize", "3775939"},
            {"hashes", {"vNwG4wbIsTeCSn9JageqhtCb6VvgYEKSw3Xro8zMF3s="}},
            {"checkpoint",
             {{"envelope",
               "rekor.sigstore.dev - 1193050959916656506\n3775939\nnEpjeg/gaT1EOcKQAr3q/XGdnuKzLsf4UhgZrwtTU+8=\n"}}}}},
          {"canonicalizedBody", kBody}};
}

std::string attestations(const json& entries) {
  json bundle = {
      {"mediaType", "application/vnd.dev.sigstore.bundle.v0.3+json"},
      {"verificationMaterial", {{"tlogEntries", entries}, {"certificate", {{"rawBytes", "MIIHZDCC"}}}}},
      {"messageSignature",
       {{"messageDigest", {{"algorithm", "SHA2_256"}, {"digest", "W+JvF3ejUaL3cOkdvOrgqqP24m6K0hjGrBbKp4Olqg0="}}},
        {"signature",
         "MEUCIAlVM9GGEFWgWb2st+GEYUUJaMxFev1bW6MTsWdgbK5bAiEAoXXJNQACRF4o68LtWGoTWJeeszDkEveQka8T6+8Xy4A="}}}};
  return json{{"attestations", {{{"predicateType", "https://slsa.dev/provenance/v1"}, {"bundle", bundle}}}}}.dump();
}

// Rekor's answer to GET /api/v1/log/entries?logIndex=125680200 for that entry: the LogEntry
// of https://github.com/sigstore/rekor/blob/main/openapi.yaml (one key, the entry's UUID),
// its logID the hex of the bundle's keyId. The UUID has the shape Rekor gives one (a 16-hex-digit
// tree id, then the entry's 64: openapi.yaml's entryUUID pattern).
const char* const kUuid = "24296fb24b8ad77a27dbac48342e32d86ca2e056106ff7e94cd4a6ed2a12de00b7ffc57fc2f2c2e4";
std::string rekor_answer(const json& over = json::object()) {
  json e = {{"body", kBody},
            {"integratedTime", 1724870676},
            {"logID", "c0d23d6ad406973f9559f3ba2d1ca01f84147d8ffc5b8445c224f98b9591801d"},
            {"logIndex", 125680200},
            {"verification",
             {{"inclusionProof", {{"logIndex", 3775938}, {"treeSize", 3775939}}},
              {"signedEntryTimestamp",
               "MEYCIQCAKWrmj0LZ77rfiMXEat9gCCJxX4pgQfZqNc+tvF7gaAIhAJFtyypsWCbLDJ+NAMzPoY1AkQ1inhhQ3pZC5PaBCI8C"}}}};
  for (const auto& [k, v] : over.items()) e[k] = v;
  return json{{kUuid, e}}.dump();
}

TEST(SigstoreAnswer, the_version_document_announces_its_attestations) {
  auto a = parse_npm_version_doc(kNpmVersionDoc);
  ASSERT_TRUE(a) << a.error().describe();
  EXPECT_EQ(a->url, "https://registry.npmjs.org/-/npm/v1/attestations/sigstore@3.1.0");
  EXPECT_EQ(a->predicate_type, "https://slsa.dev/provenance/v1");
  json without = json::parse(kNpmVersionDoc);
  without["dist"].erase("attestations");
  auto none = parse_npm_version_doc(without.dump());
  ASSERT_TRUE(none) << none.error().describe();
  EXPECT_EQ(none->url, std::nullopt);
  EXPECT_EQ(none->predicate_type, std::nullopt);
  auto no_dist = parse_npm_version_doc(R"({"name":"x","version":"1.0.0"})");
  ASSERT_TRUE(no_dist);
  EXPECT_EQ(no_dist->url, std::nullopt);
}

TEST(SigstoreAnswer, the_documented_bundle_reads_its_tlog_entry) {
  auto bs = parse_attestations(attestations(json::array({tlog_entry()})));
  ASSERT_TRUE(bs) << bs.error().describe();
  ASSERT_EQ(bs->size(), 1u);
  EXPECT_EQ((*bs)[0].predicate_type, "https://slsa.dev/provenance/v1");
  ASSERT_EQ((*bs)[0].entries.size(), 1u);
  const TlogEntry& e = (*bs)[0].entries[0];
  EXPECT_EQ(e.log_index, 125680200u);
  EXPECT_EQ(e.integrated_time, 1724870676);
  EXPECT_EQ(e.canonicalized_body, kBody);
  EXPECT_EQ(e.log_id, kKeyId);
  // Numbers as JSON integers read the same; no integratedTime, no body: absent.
  json bare = {{"logIndex", 125680200}};
  auto numeric = parse_attestations(attestations(json::array({bare})));
  ASSERT_TRUE(numeric) << numeric.error().describe();
  EXPECT_EQ((*numeric)[0].entries[0].log_index, 125680200u);
  EXPECT_EQ((*numeric)[0].entries[0].integrated_time, std::nullopt);
  EXPECT_EQ((*numeric)[0].entries[0].canonicalized_body, "");
  // A bundle with no tlogEntries: no entries, for provenance_no_entry to say so.
  auto empty = parse_attestations(attestations(json::array()));
  ASSERT_TRUE(empty);
  EXPECT_TRUE((*empty)[0].entries.empty());
  // The largest index there can be.
  json top = {{"logIndex", "9223372036854775807"}};
  auto max = parse_attestations(attestations(json::array({top})));
  ASSERT_TRUE(max) << max.error().describe();
  EXPECT_EQ((*max)[0].entries[0].log_index, 9223372036854775807u);
}

TEST(SigstoreAnswer, rekors_entry_reads_and_matches_the_bundles) {
  auto r = parse_rekor_entry(rekor_answer());
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ(r->uuid, kUuid);
  EXPECT_EQ(r->log_index, 125680200u);
  EXPECT_EQ(r->integrated_time, 1724870676);
  EXPECT_EQ(r->body, kBody);
  EXPECT_EQ(r->log_id, "c0d23d6ad406973f9559f3ba2d1ca01f84147d8ffc5b8445c224f98b9591801d");
  auto bs = parse_attestations(attestations(json::array({tlog_entry()})));
  ASSERT_TRUE(bs);
  const TlogEntry& e = (*bs)[0].entries[0];
  std::string why = "stale";
  EXPECT_EQ(check_entry(e, *r, &why), TlogCheck::kMatches);
  EXPECT_EQ(why, "");
  EXPECT_EQ(check_entry(e, std::nullopt, &why), TlogCheck::kAbsent);
  EXPECT_EQ(why, "Rekor has no entry at log index 125680200");
  EXPECT_EQ(check_entry(e, std::nullopt, nullptr), TlogCheck::kAbsent);
}

TEST(SigstoreAnswer, a_differing_entry_says_which_part_differs) {
  auto bs = parse_attestations(attestations(json::array({tlog_entry()})));
  ASSERT_TRUE(bs);
  const TlogEntry& e = (*bs)[0].entries[0];
  std::string why;
  auto other_index = parse_rekor_entry(rekor_answer({{"logIndex", 125680201}}));
  ASSERT_TRUE(other_index);
  EXPECT_EQ(check_entry(e, *other_index, &why), TlogCheck::kDiffers);
  EXPECT_EQ(why, "Rekor's entry is at log index 125680201, the bundle's at 125680200");
  auto other_time = parse_rekor_entry(rekor_answer({{"integratedTime", 1724870677}}));
  ASSERT_TRUE(other_time);
  EXPECT_EQ(check_entry(e, *other_time, &why), TlogCheck::kDiffers);
  EXPECT_EQ(why, "Rekor integrated it at 1724870677, the bundle says 1724870676");
  auto other_body = parse_rekor_entry(rekor_answer({{"body", "eyJhcGlWZXJzaW9uIjoiMC4wLjIifQ=="}}));
  ASSERT_TRUE(other_body);
  EXPECT_EQ(check_entry(e, *other_body, &why), TlogCheck::kDiffers);
  EXPECT_EQ(why, "its body is not the bundle's canonicalizedBody");
  auto all = parse_rekor_entry(
      rekor_answer({{"logIndex", 1}, {"integratedTime", 2}, {"body", "eyJhcGlWZXJzaW9uIjoiMC4wLjIifQ=="}}));
  ASSERT_TRUE(all);
  EXPECT_EQ(check_entry(e, *all, &why), TlogCheck::kDiffers);
  EXPECT_EQ(why,
            "Rekor's entry is at log index 1, the bundle's at 125680200; Rekor integrated it at 2, the bundle says "
            "1724870676; its body is not the bundle's canonicalizedBody");
  // What the bundle does not carry is not compared.
  TlogEntry bare;
  bare.log_index = 125680200;
  EXPECT_EQ(check_entry(bare, *other_time, &why), TlogCheck::kMatches);
  EXPECT_EQ(check_entry(bare, *other_body, &why), TlogCheck::kMatches);
}

TEST(SigstoreAnswer, the_findings_are_upstreams) {
  Finding missing = provenance_missing("sigstore", "3.1.0");
  EXPECT_EQ(missing.kind, FindingKind::kProvenance);
  EXPECT_EQ(missing.code, ReasonCode::kProvenanceMissing);
  EXPECT_EQ(missing.severity, Severity::kHigh);
  EXPECT_EQ(missing.summary, "no provenance attestation is published for version 3.1.0");
  Finding no_entry = provenance_no_entry("sigstore", attestations(json::array()));
  EXPECT_EQ(no_entry.code, ReasonCode::kProvenanceInvalid);
  EXPECT_EQ(no_entry.severity, Severity::kHigh);
  EXPECT_EQ(no_entry.summary, "the attestation bundle names no transparency-log entry");
  EXPECT_EQ(json::parse(no_entry.raw), json::parse(attestations(json::array())));
  EXPECT_EQ(json::parse(provenance_no_entry("s", "not json\n").raw), "not json\n");
  Finding not_logged = provenance_not_logged("sigstore", 125680200);
  EXPECT_EQ(not_logged.code, ReasonCode::kProvenanceInvalid);
  EXPECT_EQ(not_logged.severity, Severity::kCritical);
  EXPECT_EQ(not_logged.summary, "Rekor has no entry at log index 125680200, which the bundle cites");
  Finding mismatch = provenance_mismatch("sigstore", 125680200, "its body is not the bundle's canonicalizedBody");
  EXPECT_EQ(mismatch.kind, FindingKind::kProvenance);
  EXPECT_EQ(mismatch.code, ReasonCode::kProvenanceInvalid);
  EXPECT_EQ(mismatch.severity, Severity::kCritical);
  EXPECT_EQ(mismatch.summary,
            "Rekor's entry at log index 125680200 is not the bundle's: its body is not the bundle's canonicalizedBody");
  for (const Finding* f : {&missing, &no_entry, &not_logged, &mismatch}) {
    EXPECT_EQ(f->scanner, "sigstore");
    EXPECT_TRUE(json::accept(f->raw)) << f->raw;
  }
}

TEST(SigstoreAnswer, refusals_name_where) {
  auto big = parse_attestations(std::string(kMaxAttestations + 1, '{'));
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().where, "npm attestations");
  auto big_doc = parse_npm_version_doc(std::string(kMaxNpmVersionDoc + 1, ' '));
  ASSERT_FALSE(big_doc);
  EXPECT_EQ(big_doc.error().where, "npm version document");
  auto big_rekor = parse_rekor_entry(std::string(kMaxRekorEntry + 1, ' '));
  ASSERT_FALSE(big_rekor);
  EXPECT_EQ(big_rekor.error().where, "rekor entry");
  auto deep = parse_attestations(R"({"attestations":)" + nested(70) + "}");
  ASSERT_FALSE(deep);
  EXPECT_EQ(deep.error().where, "npm attestations");
  auto not_json = parse_rekor_entry("{\"");
  ASSERT_FALSE(not_json);
  EXPECT_EQ(not_json.error().where, "rekor entry");

  const std::string p = "npm attestations /attestations/0/bundle/verificationMaterial/tlogEntries/0/logIndex";
  struct Case {
    json index;
    const char* says;
  };
  for (const Case& c :
       {Case{"-1", "negative"}, Case{-1, "negative"}, Case{"9223372036854775808", "too big"},
        Case{9223372036854775808u, "too big"}, Case{"99999999999999999999999", "too big"}, Case{1e30, "too big"},
        Case{"12a", "not a number"}, Case{"", "not a number"}, Case{"0x10", "not a number"},
        Case{1.5, "not an integer"}, Case{true, "not a number"}, Case{json::object(), "not a number"}}) {
    json e = tlog_entry();
    e["logIndex"] = c.index;
    auto r = parse_attestations(attestations(json::array({e})));
    ASSERT_FALSE(r) << c.index;
    EXPECT_EQ(r.error().where, p) << c.index;
    EXPECT_NE(r.error().what.find(c.says), std::string::npos) << c.index << ": " << r.error().what;
  }
  json no_index = tlog_entry();
  no_index.erase("logIndex");
  auto missing = parse_attestations(attestations(json::array({no_index})));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().where, p);
  json bad_time = tlog_entry();
  bad_time["integratedTime"] = "yesterday";
  auto time = parse_attestations(attestations(json::array({bad_time})));
  ASSERT_FALSE(time);
  EXPECT_EQ(time.error().where,
            "npm attestations /attestations/0/bundle/verificationMaterial/tlogEntries/0/integratedTime");
  auto entries_type = parse_attestations(attestations("none"));
  ASSERT_FALSE(entries_type);
  EXPECT_EQ(entries_type.error().where, "npm attestations /attestations/0/bundle/verificationMaterial/tlogEntries");
  auto no_list = parse_attestations("{}");
  ASSERT_FALSE(no_list);
  EXPECT_EQ(no_list.error().where, "npm attestations /attestations");
  auto no_type = parse_attestations(R"({"attestations":[{"bundle":{}}]})");
  ASSERT_FALSE(no_type);
  EXPECT_EQ(no_type.error().where, "npm attestations /attestations/0/predicateType");

  json doc = json::parse(kNpmVersionDoc);
  doc["dist"]["attestations"]["url"] = 5;
  auto url_type = parse_npm_version_doc(doc.dump());
  ASSERT_FALSE(url_type);
  EXPECT_EQ(url_type.error().where, "npm version document /dist/attestations/url");
  doc["dist"]["attestations"]["url"] = "https://registry.npmjs.org/x\r\nHost: evil";
  auto url_crlf = parse_npm_version_doc(doc.dump());
  ASSERT_FALSE(url_crlf);
  EXPECT_EQ(url_crlf.error().where, "npm version document /dist/attestations/url");
  doc["dist"]["attestations"] = "yes";
  auto attestations_type = parse_npm_version_doc(doc.dump());
  ASSERT_FALSE(attestations_type);
  EXPECT_EQ(attestations_type.error().where, "npm version document /dist/attestations");

  json two = json::parse(rekor_answer());
  two[std::string(64, 'a')] = two[kUuid];
  auto two_keys = parse_rekor_entry(two.dump());
  ASSERT_FALSE(two_keys);
  EXPECT_EQ(two_keys.error().where, "rekor entry");
  EXPECT_NE(two_keys.error().what.find("holds 2 entries"), std::string::npos) << two_keys.error().what;
  auto none = parse_rekor_entry("{}");
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().where, "rekor entry");
  auto bad_key = parse_rekor_entry(R"({"../../etc":{"body":"","integratedTime":1,"logID":"a","logIndex":1}})");
  ASSERT_FALSE(bad_key);
  EXPECT_EQ(bad_key.error().where, "rekor entry");
  auto negative = parse_rekor_entry(rekor_answer({{"logIndex", -5}}));
  ASSERT_FALSE(negative);
  EXPECT_EQ(negative.error().where, std::string("rekor entry /") + kUuid + "/logIndex");
  auto body_type = parse_rekor_entry(rekor_answer({{"body", {{"kind", "hashedrekord"}}}}));
  ASSERT_FALSE(body_type);
  EXPECT_EQ(body_type.error().where, std::string("rekor entry /") + kUuid + "/body");
}

// ---------------------------------------------------------------------------------------
// mlab

TEST(MlabAnswer, a_record_picks_its_fields_and_says_mlab) {
  auto r = parse_mlab_cve(kMlabLog4ShellRecord);
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_TRUE(r->in_kev);
  EXPECT_EQ(r->enrichment, json::parse(R"({"cvss_score":10.0,"cvss_severity":"CRITICAL",
      "cvss_vector":"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H","epss_score":0.97565,"epss_percentile":0.99996,
      "in_kev":true,"kev_date_added":"2021-12-10","kev_due_date":"2021-12-24","source":"mlab"})"));
  auto sparse = parse_mlab_cve(R"({"cvss_score":5.3,"kev_due_date":null})");
  ASSERT_TRUE(sparse) << sparse.error().describe();
  EXPECT_FALSE(sparse->in_kev);
  EXPECT_EQ(sparse->enrichment, json::parse(R"({"cvss_score":5.3,"cvss_severity":null,"cvss_vector":null,
      "epss_score":null,"epss_percentile":null,"in_kev":null,"kev_date_added":null,"kev_due_date":null,
      "source":"mlab"})"));
}

TEST(MlabAnswer, cve_ids_are_recognised_in_the_reference_then_in_the_aliases) {
  EXPECT_TRUE(is_cve_id("CVE-2021-44228"));
  EXPECT_TRUE(is_cve_id("CVE-2021-1"));
  EXPECT_FALSE(is_cve_id("CVE-2021"));  // eight characters: not longer than 8
  EXPECT_FALSE(is_cve_id("cve-2021-44228"));
  EXPECT_FALSE(is_cve_id("CVE-2021-4422x"));
  EXPECT_FALSE(is_cve_id("GHSA-jfh8-c2jp-5v3q"));
  Finding f;
  f.reference = "CVE-2021-44228";
  EXPECT_EQ(cve_of(f), "CVE-2021-44228");
  f.reference = "GHSA-jfh8-c2jp-5v3q";
  f.raw = R"({"purl":"pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1","fixed_version":"2.15.0",
              "aliases":[7,"GHSA-x","CVE-2021-44228","CVE-2021-45046"]})";
  EXPECT_EQ(cve_of(f), "CVE-2021-44228");
  f.raw = R"({"aliases":["GHSA-x"]})";
  EXPECT_EQ(cve_of(f), std::nullopt);
  f.raw = "not json";
  EXPECT_EQ(cve_of(f), std::nullopt);
  f.raw = R"({"aliases":)" + nested(100) + "}";
  EXPECT_EQ(cve_of(f), std::nullopt);
  f.reference.reset();
  f.raw = "";
  EXPECT_EQ(cve_of(f), std::nullopt);
}

TEST(MlabAnswer, enrichment_lands_in_raw_and_kev_makes_it_critical_once) {
  auto r = parse_mlab_cve(kMlabLog4ShellRecord);
  ASSERT_TRUE(r);
  OsvVuln v;
  v.id = "GHSA-jfh8-c2jp-5v3q";
  v.summary = "Remote code injection in Log4j";
  v.severity = Severity::kHigh;
  v.aliases = {"CVE-2021-44228"};
  Finding f = osv_finding("osv", v, "pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1");
  apply_enrichment(f, *r);
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_EQ(f.summary, "Remote code injection in Log4j (CISA KEV: exploited in the wild)");
  json raw = json::parse(f.raw);
  EXPECT_EQ(raw["purl"], "pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1");
  EXPECT_EQ(raw["enrichment"], r->enrichment);
  apply_enrichment(f, *r);
  EXPECT_EQ(f.summary, "Remote code injection in Log4j (CISA KEV: exploited in the wild)");

  auto not_kev = parse_mlab_cve(R"({"cvss_score":5.3,"in_kev":false})");
  ASSERT_TRUE(not_kev);
  Finding g;
  g.severity = Severity::kLow;
  g.summary = "s";
  g.raw = "[1,2]";  // not an object: replaced
  apply_enrichment(g, *not_kev);
  EXPECT_EQ(g.severity, Severity::kLow);
  EXPECT_EQ(g.summary, "s");
  EXPECT_EQ(json::parse(g.raw), json({{"enrichment", not_kev->enrichment}}));
  g.raw = "{broken";
  apply_enrichment(g, *not_kev);
  EXPECT_EQ(json::parse(g.raw), json({{"enrichment", not_kev->enrichment}}));
}

TEST(MlabAnswer, refusals_name_where) {
  auto big = parse_mlab_cve(std::string(kMaxMlabRecord + 1, '['));
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().where, "mlab cve");
  auto deep = parse_mlab_cve(nested(65));
  ASSERT_FALSE(deep);
  EXPECT_EQ(deep.error().where, "mlab cve");
  auto not_json = parse_mlab_cve("Not Found");
  ASSERT_FALSE(not_json);
  EXPECT_EQ(not_json.error().where, "mlab cve");
  auto not_object = parse_mlab_cve("[]");
  ASSERT_FALSE(not_object);
  EXPECT_EQ(not_object.error().where, "mlab cve");
  for (const auto& [field, value] : std::vector<std::pair<std::string, json>>{{"cvss_score", "9.8"},
                                                                              {"cvss_severity", 4},
                                                                              {"cvss_vector", json::array()},
                                                                              {"epss_score", true},
                                                                              {"epss_percentile", "0.5"},
                                                                              {"in_kev", "true"},
                                                                              {"kev_date_added", 20211210},
                                                                              {"kev_due_date", json::object()}}) {
    auto r = parse_mlab_cve(json{{field, value}}.dump());
    ASSERT_FALSE(r) << field;
    EXPECT_EQ(r.error().where, "mlab cve /" + field);
  }
}

}  // namespace
}  // namespace batlehub::adapters::net
