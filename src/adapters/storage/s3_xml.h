// What the S3 backend reads of S3's XML: one ListObjectsV2 page, and an error's Code.
//
// The bytes come from the endpoint, which the worker trusts with its objects but not with
// its memory: a page is refused past kMaxListPageBytes before it is parsed, and a DTD is
// refused outright (no entity is ever expanded). Pure functions, so that a fuzzer
// (tests/fuzz/fuzz_s3_xml.cc, built by clang 14) drives them alone.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/expected.h"
#include "core/storage.h"

namespace batlehub::adapters::s3 {

// A ListObjectsV2 page of 1000 keys of 1024 bytes is about 1.5 MiB.
inline constexpr std::size_t kMaxListPageBytes = 8u << 20;
// An error body is read no further than this; its Code comes first.
inline constexpr std::size_t kMaxErrorBodyBytes = 4096;

struct ListPage {
  std::vector<core::ObjectInfo> objects;  // in the page's order
  bool truncated = false;                 // <IsTruncated>true</IsTruncated>
  std::string next_continuation_token;    // never empty when truncated
};

// One <ListBucketResult>: each <Contents>'s Key, Size and LastModified, IsTruncated and
// NextContinuationToken. Anything malformed, any DTD, a <Contents> without Key or Size, or a
// truncated page without a token is an error (a message for the operator).
Expected<ListPage, std::string> parse_list_objects(std::string_view xml);

// The <Code> of an <Error> body ("NoSuchKey", "SignatureDoesNotMatch"); "" when there is
// none. A body cut short after its Code still yields it.
std::string parse_error_code(std::string_view xml);

}  // namespace batlehub::adapters::s3
