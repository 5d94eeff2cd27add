#include "wire/post_form.h"

#include "base/percent_encode.h"

namespace batlehub::wire {

std::string post_form_url(std::string_view url, const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string out = std::string(kPostFormPrefix) + std::string(url);
  char sep = '?';
  for (const auto& [name, value] : fields) {
    out += sep;
    out += base::percent_encode(name, false) + '=' + base::percent_encode(value, false);
    sep = '&';
  }
  return out;
}

}  // namespace batlehub::wire
