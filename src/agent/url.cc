#include "agent/url.h"

#include "base/percent_encode.h"
#include "wire/post_form.h"

namespace batlehub::agent {

namespace {
using base::hex_digit;

bool printable_ascii(std::string_view s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) <= 0x20 || static_cast<unsigned char>(c) >= 0x7f) return false;
  }
  return true;
}

// `where` names the part of the URL for the error: "file URL", "the form's fields".
Expected<std::string, std::string> percent_decode(std::string_view s, std::string_view where) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size() || hex_digit(s[i + 1]) < 0 || hex_digit(s[i + 2]) < 0) {
      return Unexpected("bad percent-escape in " + std::string(where));
    }
    out += static_cast<char>(hex_digit(s[i + 1]) * 16 + hex_digit(s[i + 2]));
    i += 2;
  }
  return out;
}

// The fields of a post+ URL's query. Each goes into a multipart part as it is, so none may
// break one: no CR, LF or NUL anywhere, no quote in a name, no empty name.
Expected<std::vector<std::pair<std::string, std::string>>, std::string> form_fields(std::string_view query) {
  std::vector<std::pair<std::string, std::string>> fields;
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    const std::size_t eq = pair.find('=');
    if (eq == std::string_view::npos) return Unexpected(std::string("a form field without '='"));
    auto name = percent_decode(pair.substr(0, eq), "the form's fields");
    if (!name) return Unexpected(name.error());
    auto value = percent_decode(pair.substr(eq + 1), "the form's fields");
    if (!value) return Unexpected(value.error());
    if (name->empty() || name->find_first_of(std::string_view("\r\n\0\"", 4)) != std::string::npos ||
        value->find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos) {
      return Unexpected(std::string("a form field that would break its part (empty name, a quote, CR, LF or NUL)"));
    }
    fields.emplace_back(std::move(*name), std::move(*value));
  }
  if (fields.empty()) return Unexpected(std::string("a post+ URL with no form fields"));
  return fields;
}
}  // namespace

Expected<Url, std::string> parse_url(std::string_view text) {
  Url u;
  if (text.starts_with("file://")) {
    std::string_view rest = text.substr(7);
    if (!rest.starts_with('/')) return Unexpected(std::string("a file URL must be file:///absolute/path"));
    if (rest.find_first_of("?#") != std::string_view::npos) {
      return Unexpected(std::string("a file URL may not carry a query or a fragment"));
    }
    auto path = percent_decode(rest, "file URL");
    if (!path) return Unexpected(path.error());
    if (path->find('\0') != std::string::npos) return Unexpected(std::string("file URL decodes to a NUL"));
    u.path = std::move(*path);
    u.scheme = Url::Scheme::kFile;
    return u;
  }
  if (text.starts_with(wire::kPostFormPrefix)) {
    auto u2 = parse_url(text.substr(wire::kPostFormPrefix.size()));
    if (!u2) return u2;
    if (u2->scheme == Url::Scheme::kFile || u2->post_form) {
      return Unexpected(std::string("a post+ URL must be post+http or post+https"));
    }
    const std::size_t q = u2->target.find('?');
    if (q == std::string::npos) return Unexpected(std::string("a post+ URL with no form fields"));
    auto fields = form_fields(std::string_view(u2->target).substr(q + 1));
    if (!fields) return Unexpected(fields.error());
    u2->target.resize(q);
    u2->post_form = true;
    u2->form = std::move(*fields);
    return u2;
  }
  std::string_view rest;
  if (text.starts_with("https://")) {
    u.scheme = Url::Scheme::kHttps;
    u.port = 443;
    rest = text.substr(8);
  } else if (text.starts_with("http://")) {
    u.scheme = Url::Scheme::kHttp;
    u.port = 80;
    rest = text.substr(7);
  } else {
    return Unexpected("'" + std::string(text.substr(0, 16)) + "…' is not a file, http or https URL");
  }
  if (!printable_ascii(rest)) return Unexpected(std::string("URL contains a space or a non-ASCII byte"));
  std::size_t slash = rest.find_first_of("/?");
  u.authority = std::string(rest.substr(0, slash));
  u.target = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
  if (u.target.front() == '?') u.target.insert(0, "/");
  if (auto hash = u.target.find('#'); hash != std::string::npos) u.target.resize(hash);
  if (u.authority.empty()) return Unexpected(std::string("URL has no host"));
  if (u.authority.find('@') != std::string::npos) return Unexpected(std::string("URL may not carry credentials"));
  std::string_view hostport = u.authority;
  std::string_view port_text;
  if (hostport.starts_with('[')) {
    auto close = hostport.find(']');
    if (close == std::string_view::npos) return Unexpected(std::string("unterminated IPv6 literal"));
    u.host = std::string(hostport.substr(1, close - 1));
    std::string_view after = hostport.substr(close + 1);
    if (!after.empty()) {
      if (!after.starts_with(':')) return Unexpected(std::string("junk after IPv6 literal"));
      port_text = after.substr(1);
    }
  } else {
    auto colon = hostport.rfind(':');
    u.host = std::string(hostport.substr(0, colon));
    if (colon != std::string_view::npos) port_text = hostport.substr(colon + 1);
  }
  if (u.host.empty()) return Unexpected(std::string("URL has no host"));
  if (!port_text.empty()) {
    unsigned v = 0;
    if (port_text.size() > 5) return Unexpected(std::string("bad port"));
    for (char c : port_text) {
      if (c < '0' || c > '9') return Unexpected(std::string("bad port"));
      v = v * 10 + static_cast<unsigned>(c - '0');
    }
    if (v == 0 || v > 65535) return Unexpected(std::string("bad port"));
    u.port = static_cast<std::uint16_t>(v);
  }
  return u;
}

}  // namespace batlehub::agent
