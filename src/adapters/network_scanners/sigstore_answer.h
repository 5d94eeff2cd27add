// Sigstore provenance of npm versions: what the registry announces, the attestation bundles
// it serves, the Rekor entry each bundle cites, whether the two agree, and upstream's
// provenance findings.
//
//   npm's version document (GET /<name>/<version>): dist.attestations.{url, provenance.predicateType}
//     https://github.com/npm/registry/blob/main/docs/REGISTRY-API.md
//     https://docs.npmjs.com/generating-provenance-statements
//   npm's attestations (GET /-/npm/v1/attestations/<name>@<version>):
//     {"attestations":[{"predicateType","bundle":<Sigstore bundle>}…]}
//   the Sigstore bundle (verificationMaterial.tlogEntries[]: logIndex, logId.keyId,
//     kindVersion, integratedTime, inclusionPromise, inclusionProof, canonicalizedBody)
//     https://docs.sigstore.dev/about/bundle/
//   Rekor's GET /api/v1/log/entries?logIndex=N: {"<uuid>":{"body" (base64),
//     "integratedTime","logID","logIndex","verification"}}
//     https://github.com/sigstore/rekor/blob/main/openapi.yaml (getLogEntryByIndex, LogEntry)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/network_scanners/answers.h"
#include "core/findings.h"

namespace batlehub::adapters::net {

// What a version document announces. No dist.attestations: both empty.
struct Announced {
  std::optional<std::string> url;             // dist.attestations.url
  std::optional<std::string> predicate_type;  // dist.attestations.provenance.predicateType
};

// npm's GET /<name>/<version>. `dist` and `dist.attestations` must be objects when present,
// `url` and `predicateType` strings; a url must be printable ASCII without spaces (it is a
// URL someone may fetch), at most 4096 bytes. Capped at kMaxNpmVersionDoc.
Expected<Announced, AnswerError> parse_npm_version_doc(std::string_view body);

// One transparency-log entry a bundle cites.
struct TlogEntry {
  std::uint64_t log_index = 0;                  // at most 2^63 - 1
  std::optional<std::int64_t> integrated_time;  // when the bundle gives one
  std::string canonicalized_body;               // base64 as given; "" when the bundle carries none
  std::string log_id;                           // logId.keyId, base64 as given ("" when absent)
};

struct Bundle {
  std::string predicate_type;
  std::vector<TlogEntry> entries;  // verificationMaterial.tlogEntries, in order; may be empty
};

// npm's attestations answer: `attestations` an array of objects, each with a string
// `predicateType` and an object `bundle`; a bundle's `verificationMaterial` and its
// `tlogEntries` may be absent (no entries). Each entry's logIndex is required, as a string
// of digits or a JSON integer, non-negative, at most 2^63 - 1; integratedTime likewise
// (optional, signed); canonicalizedBody and logId.keyId strings when present. Capped at
// kMaxAttestations.
Expected<std::vector<Bundle>, AnswerError> parse_attestations(std::string_view body);

// Rekor's entry at a log index.
struct RekorEntry {
  std::string uuid;  // the key: 64 hex digits, or 80 (a tree id before them)
  std::uint64_t log_index = 0;
  std::int64_t integrated_time = 0;
  std::string body;    // base64, as given
  std::string log_id;  // hex, as given
};

// Rekor's GET /api/v1/log/entries?logIndex=N: exactly one key, the entry's UUID (hex), mapping
// to an object with a string `body`, integers `integratedTime` and `logIndex` (non-negative,
// at most 2^63 - 1), a string `logID`. Capped at kMaxRekorEntry. (Rekor's 404 — no entry at
// that index — is the caller's: it passes std::nullopt to check_entry.)
Expected<RekorEntry, AnswerError> parse_rekor_entry(std::string_view body);

enum class TlogCheck { kMatches, kAbsent, kDiffers };

// Whether Rekor holds the entry the bundle cites. kAbsent when Rekor has none at that index;
// kDiffers when the log index, the integrated time (when the bundle gives one) or the body
// (when the bundle carries canonicalizedBody; compared decoded when both are base64) disagree.
// `why` (may be null) says which, every disagreement joined with "; ", or why it is absent;
// "" on kMatches.
TlogCheck check_entry(const TlogEntry& bundle, const std::optional<RekorEntry>& rekor, std::string* why);

// Upstream's provenance findings (kind provenance).
//   PROVENANCE_MISSING high: "no provenance attestation is published for version <v>"
core::Finding provenance_missing(const std::string& scanner, const std::string& version);
//   PROVENANCE_INVALID high: "the attestation bundle names no transparency-log entry"; raw is
//   the bundles' JSON (kept when it is JSON, else carried as a JSON string).
core::Finding provenance_no_entry(const std::string& scanner, const std::string& raw_bundles_json);
//   PROVENANCE_INVALID critical: "Rekor has no entry at log index <i>, which the bundle cites"
core::Finding provenance_not_logged(const std::string& scanner, std::uint64_t index);
// Ours: PROVENANCE_INVALID critical: "Rekor's entry at log index <i> is not the bundle's: <why>"
core::Finding provenance_mismatch(const std::string& scanner, std::uint64_t index, const std::string& why);

}  // namespace batlehub::adapters::net
