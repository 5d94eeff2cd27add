// The APIs' documented answers, as the tests of the network scanners' parsers
// (network_answers_test.cc) and of the scanners over HTTPS (network_scanners_test.cc) both
// serve them: one copy, each cited where it comes from.
#pragma once

namespace batlehub::testing {

// The sample 200 response of https://google.github.io/osv.dev/get-v1-vulns/ (OSV-2020-111).
const char* const kOsvVulnSample = R"json({
  "id": "OSV-2020-111",
  "summary": "Heap-use-after-free in int std::__1::__cxx_atomic_fetch_sub<int>",
  "details": "OSS-Fuzz report: https://bugs.chromium.org/p/oss-fuzz/issues/detail?id=21604\n\n```\nCrash type: Heap-use-after-free WRITE 4\nCrash state:\nint std::__1::__cxx_atomic_fetch_sub<int>\nstd::__1::__atomic_base<int, true>::operator--\nObject::free\n```\n",
  "modified": "2022-04-13T03:04:37.331327Z",
  "published": "2020-06-24T01:51:14.570467Z",
  "references": [{"type": "REPORT", "url": "https://bugs.chromium.org/p/oss-fuzz/issues/detail?id=21604"}],
  "affected": [{
    "package": {"name": "poppler", "ecosystem": "OSS-Fuzz", "purl": "pkg:generic/poppler"},
    "ranges": [{
      "type": "GIT",
      "repo": "https://anongit.freedesktop.org/git/poppler/poppler.git",
      "events": [{"introduced": "e4badf4d745b8e8f9a0a25b6c3cc97fbadbbb499"},
                 {"fixed": "155f73bdd261622323491df4aebb840cde8bfee1"}]}],
    "ecosystem_specific": {"severity": "HIGH"},
    "database_specific": {"source": "https://github.com/google/oss-fuzz-vulns/blob/main/vulns/poppler/OSV-2020-111.yaml"}
  }],
  "schema_version": "1.4.0"
})json";

// The sample 200 response of https://google.github.io/osv.dev/post-v1-query/ (OSV-2020-744),
// with the page's pagination form: the same record and a next_page_token.
const char* const kOsvQuerySample = R"json({
  "vulns": [{
    "id": "OSV-2020-744",
    "summary": "Heap-double-free in mrb_default_allocf",
    "details": "OSS-Fuzz report: https://bugs.chromium.org/p/oss-fuzz/issues/detail?id=23801\n\n```\nCrash type: Heap-double-free\nCrash state:\nmrb_default_allocf\nmrb_free\nobj_free\n```\n",
    "modified": "2022-04-13T03:04:39.780694Z",
    "published": "2020-07-04T00:00:01.948828Z",
    "references": [{"type": "REPORT", "url": "https://bugs.chromium.org/p/oss-fuzz/issues/detail?id=23801"}],
    "affected": [{
      "package": {"name": "mruby", "ecosystem": "OSS-Fuzz", "purl": "pkg:generic/mruby"},
      "ranges": [{"type": "GIT", "repo": "https://github.com/mruby/mruby",
                  "events": [{"introduced": "9cdf439db52b66447b4e37c61179d54fad6c8f33"},
                             {"fixed": "97319697c8f9f6ff27b32589947e1918e3015503"}]}],
      "versions": ["2.1.2", "2.1.2-rc", "2.1.2-rc2"],
      "ecosystem_specific": {"severity": "HIGH"},
      "database_specific": {"source": "https://github.com/google/oss-fuzz-vulns/blob/main/vulns/mruby/OSV-2020-744.yaml"}
    }],
    "schema_version": "1.4.0"
  }],
  "next_page_token": "a base64 string here"
})json";

const char* const kMlabLog4ShellRecord = R"json({
  "id": "CVE-2021-44228",
  "cvss_score": 10.0,
  "cvss_severity": "CRITICAL",
  "cvss_vector": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H",
  "epss_score": 0.97565,
  "epss_percentile": 0.99996,
  "in_kev": true,
  "kev_date_added": "2021-12-10",
  "kev_due_date": "2021-12-24"
})json";

}  // namespace batlehub::testing
