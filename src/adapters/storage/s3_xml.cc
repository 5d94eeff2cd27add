#include "adapters/storage/s3_xml.h"

#include <expat.h>

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

using ParserPtr = std::unique_ptr<XML_ParserStruct, decltype(&XML_ParserFree)>;

// Element names and the text of the innermost one, for handlers that look at the path.
struct Walk {
  XML_Parser parser = nullptr;
  std::vector<std::string> path;
  std::string text;
  std::string error;  // why a handler stopped the parser
  // Expat may still call a handler or two after XML_StopParser; they then do nothing.
  bool stopped = false;

  void stop(std::string why) {
    if (stopped) return;
    stopped = true;
    error = std::move(why);
    XML_StopParser(parser, XML_FALSE);
  }
  bool at(std::initializer_list<std::string_view> want) const {
    if (path.size() != want.size()) return false;
    std::size_t i = 0;
    for (std::string_view w : want) {
      if (path[i++] != w) return false;
    }
    return true;
  }
};

// Entities would let a small body grow in memory: an S3 response never declares a DTD.
void XMLCALL refuse_doctype(void* data, const XML_Char*, const XML_Char*, const XML_Char*, int) {
  static_cast<Walk*>(data)->stop("a DTD");
}

void XMLCALL on_text(void* data, const XML_Char* s, int len) {
  auto* w = static_cast<Walk*>(data);
  if (w->stopped) return;
  if (w->text.size() + static_cast<std::size_t>(len) > kMaxFieldBytes) {
    w->stop("a text field longer than " + std::to_string(kMaxFieldBytes) + " bytes");
    return;
  }
  w->text.append(s, static_cast<std::size_t>(len));
}

void push(Walk* w, const XML_Char* name) {
  if (w->path.size() >= kMaxDepth) {
    w->stop("elements nested deeper than " + std::to_string(kMaxDepth));
    return;
  }
  w->path.emplace_back(name);
  w->text.clear();
}

std::optional<std::uint64_t> parse_size(std::string_view s) {
  if (s.empty() || s.size() > 19) return std::nullopt;  // 19 digits always fit in 64 bits
  std::uint64_t v = 0;
  for (char ch : s) {
    if (ch < '0' || ch > '9') return std::nullopt;
    v = v * 10 + static_cast<std::uint64_t>(ch - '0');
  }
  return v;
}

// "2009-10-12T17:50:30.000Z": S3's ISO 8601, always UTC; the fraction is dropped.
std::optional<std::chrono::system_clock::time_point> parse_time(std::string_view s) {
  auto num = [&](std::size_t pos, std::size_t n) -> int {
    if (pos + n > s.size()) return -1;
    int v = 0;
    for (std::size_t i = pos; i < pos + n; ++i) {
      if (s[i] < '0' || s[i] > '9') return -1;
      v = v * 10 + (s[i] - '0');
    }
    return v;
  };
  if (s.size() < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s.back() != 'Z') {
    return std::nullopt;
  }
  std::tm tm{};
  tm.tm_year = num(0, 4) - 1900;
  tm.tm_mon = num(5, 2) - 1;
  tm.tm_mday = num(8, 2);
  tm.tm_hour = num(11, 2);
  tm.tm_min = num(14, 2);
  tm.tm_sec = num(17, 2);
  // system_clock counts nanoseconds: a year far from now would overflow it (UB), and no
  // object was written before 1970 or will be after 2200.
  if (tm.tm_year < 70 || tm.tm_year > 300 || tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 ||
      tm.tm_hour < 0 || tm.tm_hour > 23 || tm.tm_min < 0 || tm.tm_min > 59 || tm.tm_sec < 0 || tm.tm_sec > 60) {
    return std::nullopt;
  }
  const std::string_view rest = s.substr(19, s.size() - 20);  // between the seconds and 'Z'
  if (!rest.empty()) {
    if (rest[0] != '.' || rest.size() < 2 || rest.size() > 10) return std::nullopt;
    for (char ch : rest.substr(1)) {
      if (ch < '0' || ch > '9') return std::nullopt;
    }
  }
  return std::chrono::system_clock::from_time_t(timegm(&tm));
}

struct ListWalk : Walk {
  ListPage page;
  core::ObjectInfo current;
  bool has_key = false;
  bool has_size = false;
  bool seen_root = false;
};

void XMLCALL list_start(void* data, const XML_Char* name, const XML_Char**) {
  auto* w = static_cast<ListWalk*>(data);
  if (w->stopped) return;
  if (w->path.empty()) {
    if (std::string_view(name) != "ListBucketResult") {
      w->stop(std::string("the root element is <") + name + ">, not <ListBucketResult>");
      return;
    }
    w->seen_root = true;
  }
  push(w, name);
  if (w->at({"ListBucketResult", "Contents"})) {
    w->current = {};
    w->has_key = w->has_size = false;
  }
}

void XMLCALL list_end(void* data, const XML_Char*) {
  auto* w = static_cast<ListWalk*>(data);
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
  w->path.pop_back();
  w->text.clear();
}

template <class W>
std::string run(XML_Parser p, W* w, std::string_view xml) {
  w->parser = p;
  XML_SetUserData(p, w);
  XML_SetCharacterDataHandler(p, on_text);
  XML_SetStartDoctypeDeclHandler(p, refuse_doctype);
  if (XML_Parse(p, xml.data(), static_cast<int>(xml.size()), XML_TRUE) == XML_STATUS_OK) return "";
  if (w->stopped) return w->error;
  return std::string(XML_ErrorString(XML_GetErrorCode(p))) + " at line " + std::to_string(XML_GetCurrentLineNumber(p));
}

struct ErrorWalk : Walk {
  std::string code;
};

void XMLCALL error_start(void* data, const XML_Char* name, const XML_Char**) {
  auto* w = static_cast<ErrorWalk*>(data);
  if (!w->stopped) push(w, name);
}

void XMLCALL error_end(void* data, const XML_Char*) {
  auto* w = static_cast<ErrorWalk*>(data);
  if (w->stopped || w->path.empty()) return;
  if (w->at({"Error", "Code"})) {
    w->code = w->text;
    return w->stop("");  // nothing after the Code is read
  }
  w->path.pop_back();
  w->text.clear();
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
  if (std::string err = run(p.get(), &w, xml); !err.empty()) return Unexpected("ListObjectsV2: " + err);
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
  run(p.get(), &w, xml);
  return w.code;
}

}  // namespace batlehub::adapters::s3
