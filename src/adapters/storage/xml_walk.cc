#include "adapters/storage/xml_walk.h"

namespace batlehub::adapters::xml {
namespace {

void XMLCALL refuse_doctype(void* data, const XML_Char*, const XML_Char*, const XML_Char*, int) {
  walk_of<Walk>(data)->stop("a DTD");
}

void XMLCALL on_text(void* data, const XML_Char* s, int len) {
  auto* w = walk_of<Walk>(data);
  if (w->stopped) return;
  if (w->text.size() + static_cast<std::size_t>(len) > w->max_field) {
    w->stop("a text field longer than " + std::to_string(w->max_field) + " bytes");
    return;
  }
  w->text.append(s, static_cast<std::size_t>(len));
}

}  // namespace

void Walk::stop(std::string why) {
  if (stopped) return;
  stopped = true;
  error = std::move(why);
  XML_StopParser(parser, XML_FALSE);
}

bool Walk::at(std::initializer_list<std::string_view> want) const {
  if (path.size() != want.size()) return false;
  std::size_t i = 0;
  for (std::string_view w : want) {
    if (path[i++] != w) return false;
  }
  return true;
}

void Walk::push(const XML_Char* name) {
  if (path.size() >= max_nesting) {
    stop("elements nested deeper than " + std::to_string(max_nesting));
    return;
  }
  path.emplace_back(name);
  text.clear();
}

void Walk::pop() {
  if (!path.empty()) path.pop_back();
  text.clear();
}

std::string run(XML_Parser p, Walk& w, std::string_view xml) {
  w.parser = p;
  XML_SetUserData(p, static_cast<Walk*>(&w));
  XML_SetCharacterDataHandler(p, on_text);
  XML_SetStartDoctypeDeclHandler(p, refuse_doctype);
  if (XML_Parse(p, xml.data(), static_cast<int>(xml.size()), XML_TRUE) == XML_STATUS_OK) return "";
  if (w.stopped) return w.error;
  return std::string(XML_ErrorString(XML_GetErrorCode(p))) + " at line " + std::to_string(XML_GetCurrentLineNumber(p));
}

}  // namespace batlehub::adapters::xml
