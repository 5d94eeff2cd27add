#include "adapters/storage/s3_xml.h"

#include "adapters/storage/iso8601.h"
#include "adapters/storage/xml_walk.h"

#include <chrono>
#include <cstdint>
#include <ctime>
#include <initializer_list>
#include <memory>
#include <optional>

namespace batlehub::adapters::s3 {

namespace {

// Keys are at most 1024 bytes (S3's own bound); a continuation token is opaque but short.
constexpr std::size_t kMaxFieldBytes = 4096;
constexpr std::size_t kMaxDepth = 16;

using xml::ParserPtr;
using xml::walk_of;

std::optional<std::uint64_t> parse_size(std::string_view s) {
  if (s.empty() || s.size() > 19) return std::nullopt;  // 19 digits always fit in 64 bits
  std::uint64_t v = 0;
  for (char ch : s) {
    if (ch < '0' || ch > '9') return std::nullopt;
    v = v * 10 + static_cast<std::uint64_t>(ch - '0');
  }
  return v;
}

// "2009-10-12T17:50:30.000Z": S3's ISO 8601, always UTC.
std::optional<std::chrono::system_clock::time_point> parse_time(std::string_view s) {
  if (s.empty() || s.back() != 'Z') return std::nullopt;
  return parse_iso8601(s);
}

struct ListWalk : xml::Walk {
  ListWalk() : Walk(kMaxFieldBytes, kMaxDepth) {}
  ListPage page;
  core::ObjectInfo current;
  bool has_key = false;
  bool has_size = false;
  bool seen_root = false;
};

void XMLCALL list_start(void* data, const XML_Char* name, const XML_Char**) {
  auto* w = walk_of<ListWalk>(data);
  if (w->stopped) return;
  if (w->path.empty()) {
    if (std::string_view(name) != "ListBucketResult") {
      w->stop(std::string("the root element is <") + name + ">, not <ListBucketResult>");
      return;
    }
    w->seen_root = true;
  }
  w->push(name);
  if (w->at({"ListBucketResult", "Contents"})) {
    w->current = {};
    w->has_key = w->has_size = false;
  }
}

void XMLCALL list_end(void* data, const XML_Char*) {
  auto* w = walk_of<ListWalk>(data);
  if (w->stopped || w->path.empty()) return;
  if (w->at({"ListBucketResult", "Contents", "Key"})) {
    w->current.key = w->text;
    w->has_key = true;
  } else if (w->at({"ListBucketResult", "Contents", "Size"})) {
    auto size = parse_size(w->text);
    if (!size) return w->stop("a <Size> that is not a byte count: '" + w->text + "'");
    w->current.size = *size;
    w->has_size = true;
  } else if (w->at({"ListBucketResult", "Contents", "LastModified"})) {
    auto t = parse_time(w->text);
    if (!t) return w->stop("a <LastModified> that is not an ISO 8601 UTC time: '" + w->text + "'");
    w->current.last_modified = *t;
  } else if (w->at({"ListBucketResult", "Contents"})) {
    if (!w->has_key || !w->has_size) return w->stop("a <Contents> without <Key> or <Size>");
    w->page.objects.push_back(std::move(w->current));
  } else if (w->at({"ListBucketResult", "IsTruncated"})) {
    if (w->text == "true") {
      w->page.truncated = true;
    } else if (w->text != "false") {
      return w->stop("an <IsTruncated> that is neither true nor false");
    }
  } else if (w->at({"ListBucketResult", "NextContinuationToken"})) {
    w->page.next_continuation_token = w->text;
  }
  w->pop();
}

struct ErrorWalk : xml::Walk {
  ErrorWalk() : Walk(kMaxFieldBytes, kMaxDepth) {}
  std::string code;
};

void XMLCALL error_start(void* data, const XML_Char* name, const XML_Char**) {
  auto* w = walk_of<ErrorWalk>(data);
  if (!w->stopped) w->push(name);
}

void XMLCALL error_end(void* data, const XML_Char*) {
  auto* w = walk_of<ErrorWalk>(data);
  if (w->stopped || w->path.empty()) return;
  if (w->at({"Error", "Code"})) {
    w->code = w->text;
    return w->stop("");  // nothing after the Code is read
  }
  w->pop();
}

}  // namespace

Expected<ListPage, std::string> parse_list_objects(std::string_view xml) {
  if (xml.size() > kMaxListPageBytes) {
    return Unexpected("ListObjectsV2: a page of " + std::to_string(xml.size()) + " bytes, more than " +
                      std::to_string(kMaxListPageBytes));
  }
  ParserPtr p(XML_ParserCreate("UTF-8"), XML_ParserFree);
  if (!p) return Unexpected(std::string("ListObjectsV2: out of memory"));
  ListWalk w;
  XML_SetElementHandler(p.get(), list_start, list_end);
  if (std::string err = xml::run(p.get(), w, xml); !err.empty()) return Unexpected("ListObjectsV2: " + err);
  if (!w.seen_root) return Unexpected(std::string("ListObjectsV2: no <ListBucketResult>"));
  // Without a token the next page cannot be asked for; asking from the start would loop.
  if (w.page.truncated && w.page.next_continuation_token.empty()) {
    return Unexpected(std::string("ListObjectsV2: a truncated page without <NextContinuationToken>"));
  }
  return std::move(w.page);
}

std::string parse_error_code(std::string_view xml) {
  if (xml.size() > kMaxErrorBodyBytes) xml = xml.substr(0, kMaxErrorBodyBytes);
  ParserPtr p(XML_ParserCreate("UTF-8"), XML_ParserFree);
  if (!p) return "";
  ErrorWalk w;
  XML_SetElementHandler(p.get(), error_start, error_end);
  xml::run(p.get(), w, xml);
  return w.code;
}

}  // namespace batlehub::adapters::s3
