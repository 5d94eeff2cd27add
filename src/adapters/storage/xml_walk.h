// A bounded walk over an XML answer with expat, shared by the S3 readers (s3_xml.cc) and
// STS's (aws_credentials.cc): the path of open elements, the text of the innermost one, a
// DTD refused (entities would let a small body grow in memory; no S3 or STS answer declares
// one), and bounds on a text field and on nesting. A reader derives its own walk from Walk,
// sets its element handlers, and calls run().
#pragma once

#include <expat.h>

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace batlehub::adapters::xml {

using ParserPtr = std::unique_ptr<XML_ParserStruct, decltype(&XML_ParserFree)>;

struct Walk {
  Walk(std::size_t max_field_bytes, std::size_t max_depth) : max_field(max_field_bytes), max_nesting(max_depth) {}
  virtual ~Walk() = default;

  XML_Parser parser = nullptr;
  std::vector<std::string> path;
  std::string text;
  std::string error;  // why a handler stopped the parser
  // Expat may still call a handler or two after XML_StopParser; they then do nothing.
  bool stopped = false;
  std::size_t max_field;
  std::size_t max_nesting;

  void stop(std::string why);
  // Whether the open elements are exactly `want`, outermost first.
  bool at(std::initializer_list<std::string_view> want) const;
  // An element opens (refused past max_nesting) / closes; either way the text restarts.
  void push(const XML_Char* name);
  void pop();
};

// The walk of a handler's user data: run() hands expat the Walk base, so that the cast back
// is exact whatever the derived type's layout.
template <class W>
W* walk_of(void* data) {
  return static_cast<W*>(static_cast<Walk*>(data));
}

// Parses the whole of `xml` with `w`'s handlers (set on `p` before): "" when it parsed, else
// why — the handler's reason when one stopped it, else expat's with its line.
std::string run(XML_Parser p, Walk& w, std::string_view xml);

}  // namespace batlehub::adapters::xml
