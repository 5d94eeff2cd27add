// Base64 (RFC 4648, with padding) for the manifest's inline bytes.
//
// Written here because nlohmann-json has none and the wire library links nothing else:
// OpenSSL's EVP_DecodeBlock would drag libcrypto into every consumer of the wire format.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace batlehub::wire {

std::string base64_encode(std::string_view bytes);
// nullopt on any character outside the alphabet, bad padding, or a length not a multiple
// of four. The caller bounds the input's length before calling.
std::optional<std::string> base64_decode(std::string_view text);
// The exact decoded length of a well-formed input, without decoding it.
std::size_t base64_decoded_size(std::string_view text);

}  // namespace batlehub::wire
