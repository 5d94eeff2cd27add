#include "adapters/storage/sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <ctime>
#include <map>

#include <nlohmann/json.hpp>

#include "adapters/storage/iso8601.h"
#include "base/percent_encode.h"
#include "wire/base64.h"

namespace batlehub::adapters::sigv4 {

namespace {

constexpr std::string_view kAlgorithm = "AWS4-HMAC-SHA256";

std::string to_hex(const unsigned char* p, std::size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(n * 2);
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back(kDigits[p[i] >> 4]);
    out.push_back(kDigits[p[i] & 0xf]);
  }
  return out;
}

std::string hmac(std::string_view key, std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
       data.size(), md, &len);
  return std::string(reinterpret_cast<const char*>(md), len);
}

// Header values are signed trimmed, with runs of spaces folded to one.
std::string canonical_value(std::string_view v) {
  std::string out;
  bool space = false;
  for (char ch : v) {
    if (ch == ' ' || ch == '\t') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(ch);
  }
  return out;
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char ch) { return static_cast<char>(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch); });
  return out;
}

struct CanonicalHeaders {
  std::string block;    // "name:value\n" each
  std::string signed_;  // "name;name"
};

CanonicalHeaders canonical_headers(const Pairs& headers) {
  std::map<std::string, std::string> by_name;
  for (const auto& [name, value] : headers) {
    std::string& slot = by_name[lower(name)];
    // A repeated header is signed as one, its values joined in order.
    if (!slot.empty()) slot += ',';
    slot += canonical_value(value);
  }
  CanonicalHeaders out;
  for (const auto& [name, value] : by_name) {
    out.block += name + ':' + value + '\n';
    if (!out.signed_.empty()) out.signed_ += ';';
    out.signed_ += name;
  }
  return out;
}

std::string canonical_query(const Pairs& query) {
  std::vector<std::pair<std::string, std::string>> encoded;
  encoded.reserve(query.size());
  for (const auto& [name, value] : query) encoded.emplace_back(uri_encode(name, false), uri_encode(value, false));
  std::sort(encoded.begin(), encoded.end());
  std::string out;
  for (const auto& [name, value] : encoded) {
    if (!out.empty()) out += '&';
    out += name + '=' + value;
  }
  return out;
}

std::string scope_of(std::string_view date8, std::string_view region) {
  return std::string(date8) + '/' + std::string(region) + "/s3/aws4_request";
}

// The day's key for `region`'s S3: what both a request's string to sign and a POST policy
// are signed with.
std::string signing_key(const Credentials& c, std::string_view date8, std::string_view region) {
  std::string key = hmac("AWS4" + c.secret_access_key, date8);
  key = hmac(key, region);
  key = hmac(key, "s3");
  return hmac(key, "aws4_request");
}

Signature signature_of(const Request& r, std::string_view query, const CanonicalHeaders& h,
                       std::string_view payload_hash, const Credentials& c, std::string_view region,
                       std::string_view date) {
  Signature s;
  s.canonical_request = r.method + '\n' + r.canonical_uri + '\n' + std::string(query) + '\n' + h.block + '\n' +
                        h.signed_ + '\n' + std::string(payload_hash);
  const std::string_view date8 = date.substr(0, 8);
  s.string_to_sign = std::string(kAlgorithm) + '\n' + std::string(date) + '\n' + scope_of(date8, region) + '\n' +
                     sha256_hex(s.canonical_request);
  const std::string mac = hmac(signing_key(c, date8, region), s.string_to_sign);
  s.signature = to_hex(reinterpret_cast<const unsigned char*>(mac.data()), mac.size());
  return s;
}

}  // namespace

std::string uri_encode(std::string_view s, bool keep_slash) {
  return base::percent_encode(s, keep_slash);
}

std::string sha256_hex(std::string_view bytes) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(bytes.data(), bytes.size(), md, &len, EVP_sha256(), nullptr);
  return to_hex(md, len);
}

std::string amz_date(std::chrono::system_clock::time_point t) {
  const std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

SignedRequest sign(const Request& r, std::string_view payload_hash, const Credentials& c, std::string_view region,
                   std::chrono::system_clock::time_point now) {
  const std::string date = amz_date(now);
  SignedRequest out;
  out.headers.emplace_back("x-amz-date", date);
  out.headers.emplace_back("x-amz-content-sha256", std::string(payload_hash));
  if (!c.session_token.empty()) out.headers.emplace_back("x-amz-security-token", c.session_token);

  Pairs all = r.headers;
  all.insert(all.end(), out.headers.begin(), out.headers.end());
  const CanonicalHeaders h = canonical_headers(all);
  out.detail = signature_of(r, canonical_query(r.query), h, payload_hash, c, region, date);
  out.headers.emplace_back("Authorization", std::string(kAlgorithm) + " Credential=" + c.access_key_id + '/' +
                                                scope_of(std::string_view(date).substr(0, 8), region) +
                                                ",SignedHeaders=" + h.signed_ + ",Signature=" + out.detail.signature);
  return out;
}

Presigned presign(const Request& r, std::chrono::seconds expires, const Credentials& c, std::string_view region,
                  std::chrono::system_clock::time_point now) {
  const std::string date = amz_date(now);
  const CanonicalHeaders h = canonical_headers(r.headers);
  Pairs query = r.query;
  query.emplace_back("X-Amz-Algorithm", std::string(kAlgorithm));
  query.emplace_back("X-Amz-Credential", c.access_key_id + '/' + scope_of(std::string_view(date).substr(0, 8), region));
  query.emplace_back("X-Amz-Date", date);
  query.emplace_back("X-Amz-Expires", std::to_string(expires.count()));
  query.emplace_back("X-Amz-SignedHeaders", h.signed_);
  // S3 signs the token as part of the query (other services append it afterwards).
  if (!c.session_token.empty()) query.emplace_back("X-Amz-Security-Token", c.session_token);

  Presigned out;
  const std::string canonical = canonical_query(query);
  out.detail = signature_of(r, canonical, h, kUnsignedPayload, c, region, date);
  out.query = canonical + "&X-Amz-Signature=" + out.detail.signature;
  return out;
}

Pairs post_form(const PostPolicy& p, std::chrono::seconds expires, const Credentials& c, std::string_view region,
                std::chrono::system_clock::time_point now) {
  const std::string date = amz_date(now);
  const std::string date8 = date.substr(0, 8);
  const std::string credential = c.access_key_id + '/' + scope_of(date8, region);
  const std::string expiration = format_iso8601(now + expires);

  Pairs fields{{"key", p.key},
               {"x-amz-algorithm", std::string(kAlgorithm)},
               {"x-amz-credential", credential},
               {"x-amz-date", date}};
  if (!c.session_token.empty()) fields.emplace_back("x-amz-security-token", c.session_token);
  // Every field but the policy and its signature is a condition, matched exactly; the body's
  // size is bounded by content-length-range.
  nlohmann::json conditions = nlohmann::json::array();
  conditions.push_back({{"bucket", p.bucket}});
  for (const auto& [name, value] : fields) conditions.push_back({{name, value}});
  conditions.push_back(nlohmann::json::array({"content-length-range", 0, p.max_bytes}));
  const nlohmann::json policy = {{"expiration", expiration}, {"conditions", conditions}};
  const std::string text = policy.dump();

  const std::string b64 = wire::base64_encode(text);
  const std::string mac = hmac(signing_key(c, date8, region), b64);
  fields.emplace_back("policy", b64);
  fields.emplace_back("x-amz-signature", to_hex(reinterpret_cast<const unsigned char*>(mac.data()), mac.size()));
  return fields;
}

}  // namespace batlehub::adapters::sigv4
