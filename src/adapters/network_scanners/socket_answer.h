// Socket (socket.dev): the batch PURL lookup the socket scanner sends and the stream it
// reads back, and upstream's findings from its alerts.
//
//   POST /v0/purl (batchPackageFetch)  https://docs.socket.dev/reference/batchpackagefetch
//
// The answer is newline-delimited JSON: one artifact object per line
// ({"type","name","version",…,"alerts":[{"key","type","severity","category","props",…}]}),
// and, with the matching query parameters, rows of another kind: {"_type":"purlError",
// "value":{"inputPurl","error",…}} for a PURL Socket could not resolve, and a closing
// {"_type":"summary","value":{…}}. An error answer is {"error":{"message",…}}.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "adapters/network_scanners/answers.h"
#include "core/findings.h"

namespace batlehub::adapters::net {

// {"components":[{"purl":"…"}, …]}, one component per PURL, in order.
std::string socket_request(const std::vector<std::string>& purls);

// Upstream's findings from a /v0/purl answer, one per alert that has a string `type`, in
// the order of the stream.
//
//   kind / code      installScripts, gitDependency, httpDependency → install_hook /
//                    INSTALL_HOOK; didYouMean, typosquat → typosquat / TYPOSQUAT_SUSPECT;
//                    cve, vulnerability, criticalCVE, mediumCVE, mildCVE → vulnerability /
//                    VULNERABILITY; any other type → malware_signal / MALWARE_SIGNAL.
//   severity         `severity` as upstream's Severity::parse reads it (unknown, low, medium,
//                    moderate, high, critical, any case); anything else, Socket's "middle"
//                    among them, and none at all → medium.
//   summary          "socket: <type>" or "socket: <type> (<category>)", printable.
//   reference        props.note, else props.cveId, when a non-empty string: its first 120
//                    characters, printable.
//   raw              the alert object, compact.
//
// Refused (AnswerError, `where` "socket purl line <n>" and the field's pointer): an answer
// over kMaxSocketAnswer, a line over kMaxSocketLine, a line that is not a JSON object, a
// row with an `error` member, a purlError row, a row of any other `_type` than "summary"
// (skipped), `alerts` that is not an array, an alert that is not an object. Lines end in \n,
// optionally preceded by \r; blank lines are skipped.
Expected<std::vector<core::Finding>, AnswerError> parse_socket_ndjson(std::string_view body,
                                                                      const std::string& scanner);

}  // namespace batlehub::adapters::net
