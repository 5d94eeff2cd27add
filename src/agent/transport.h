// Getting the bundle in and the result out, over file:// or http(s)://.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/fd.h"
#include "agent/url.h"
#include "base/expected.h"
#include "wire/run_result.h"

namespace batlehub::agent {

struct FetchError {
  wire::FailureKind kind = wire::FailureKind::kFetch;  // kFetch, or kInputSize
  std::string message;
};

// A whole document (the manifest), refused over `max` bytes before it is read.
Expected<std::string, FetchError> fetch_document(const Url& url, std::size_t max);

// An input of exactly `declared` bytes, as a readable descriptor positioned at 0: the file
// itself for file://, an anonymous memory file for http(s)://. More bytes than declared is
// refused as soon as the first extra byte is seen; fewer is refused at the end.
Expected<base::Fd, FetchError> fetch_input(const Url& url, std::uint64_t declared);

// Writes `bytes` at `url`: for file://, beside the target then renamed over it, so a
// half-written result is never seen and a symlink planted at the target is replaced, not
// followed; for http(s)://, one PUT with a Content-Length.
Expected<Ok, std::string> put_result(const Url& url, std::string_view bytes);

}  // namespace batlehub::agent
