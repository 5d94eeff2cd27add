// The result URL of a presigned POST, as the worker hands it to the agent (docs/wire-format.md,
// "Where the result goes"): "post+", then the form's http(s) URL with the form's fields as its
// query — names and values percent-encoded, in the order they are sent. The agent POSTs them
// as multipart/form-data, the result last as the field "file". A POST rather than a PUT
// because only a POST policy can bound the upload's size on the server (S3's
// content-length-range): a sandbox cannot write more than the worker will read.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace batlehub::wire {

inline constexpr std::string_view kPostFormPrefix = "post+";

std::string post_form_url(std::string_view url, const std::vector<std::pair<std::string, std::string>>& fields);

}  // namespace batlehub::wire
