// A refusal of a wire document: where in it, and why.
#pragma once

#include <string>

namespace batlehub::wire {

struct WireError {
  // A JSON pointer into the document ("/entries/2/path"), or "" for the whole document.
  std::string where;
  std::string message;
  // The document is of another wire version (its `wire` is an integer, not ours): what the
  // agent answers with FailureKind::kWireVersion and the worker's probe names.
  bool other_version = false;

  // "manifest /entries/2/path: '..' is not allowed"
  std::string describe(std::string_view document) const {
    std::string out(document);
    if (!where.empty()) {
      out += ' ';
      out += where;
    }
    out += ": ";
    out += message;
    return out;
  }
};

}  // namespace batlehub::wire
