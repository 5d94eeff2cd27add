#include "adapters/storage/aws_credentials.h"

#include <arpa/inet.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <initializer_list>
#include <mutex>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "adapters/http/http_client.h"
#include "adapters/storage/xml_walk.h"
#include "base/file.h"

namespace batlehub::adapters::aws {

namespace {

using TimePoint = std::chrono::system_clock::time_point;
using Resolved = Expected<std::shared_ptr<CredentialsProvider>, std::string>;

// An unset variable and an empty one are the same to every SDK.
std::string var(const core::Env& env, std::string_view name) {
  if (!env) return "";
  auto v = env(name);
  return v ? *v : "";
}

bool is_blank(char c) {
  return c == ' ' || c == '\t';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (is_blank(s.front()) || s.front() == '\r' || s.front() == '\n')) s.remove_prefix(1);
  while (!s.empty() && (is_blank(s.back()) || s.back() == '\r' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

// A file of the chain's: a regular file, its size checked before it is read. nullopt when
// it does not exist and `absent_ok`.
Expected<std::optional<std::string>, std::string> read_file(const std::string& path, const std::string& what,
                                                            bool absent_ok) {
  auto f = base::read_regular_file(path, kMaxFileBytes);
  if (f) return std::optional<std::string>(std::move(f->bytes));
  const base::FileError& e = f.error();
  switch (e.kind) {
    case base::FileError::Kind::kOpen:
      if (absent_ok && e.err == ENOENT) return std::optional<std::string>();
      return Unexpected(what + " " + path + " cannot be opened: " + std::strerror(e.err));
    case base::FileError::Kind::kNotRegular:
      return Unexpected(what + " " + path + " is not a regular file");
    case base::FileError::Kind::kTooLarge:
      return Unexpected(what + " " + path + " is larger than " + std::to_string(kMaxFileBytes) + " bytes");
    case base::FileError::Kind::kStat:
    case base::FileError::Kind::kRead:
      break;
  }
  return Unexpected(what + " " + path + " cannot be read: " + std::strerror(e.err));
}

// A token file (web identity, the container's authorization): re-read at every fetch, its
// trailing newline (an `echo` wrote it) not part of the token.
Expected<std::string, std::string> read_token(const std::string& path, const std::string& what) {
  auto f = read_file(path, what, false);
  if (!f) return Unexpected(f.error());
  std::string token(trim(**f));
  if (token.empty()) return Unexpected(what + " " + path + " is empty");
  return token;
}

// ---------------------------------------------------------------------------------------
// HTTP: one small request, its answer bounded while it is received.

struct HttpAnswer {
  long status = 0;
  std::string body;
};

// `post` null: a GET. TLS is verified against the system's roots; a redirect is not
// followed (a credential endpoint that redirects is not one). The error is the client's
// words without the request (the caller names the endpoint its own way).
Expected<HttpAnswer, std::string> http_request(const std::string& url, const std::string* post, http::Headers headers,
                                               std::chrono::seconds timeout) {
  const std::chrono::seconds secs = std::max(timeout, std::chrono::seconds(1));
  http::Request r;
  r.method = post != nullptr ? "POST" : "GET";
  r.url = url;
  r.headers = std::move(headers);
  if (post != nullptr) r.body = *post;
  r.max_body = kMaxResponseBytes;
  r.timeout = secs;
  r.connect_timeout = std::min(secs, std::chrono::seconds(5));
  auto got = http::Client().send(r);
  if (!got) {
    if (got.error().kind == http::ErrorKind::kTooLarge) {
      return Unexpected("an answer larger than " + std::to_string(kMaxResponseBytes) + " bytes");
    }
    return Unexpected(got.error().detail);
  }
  return HttpAnswer{got->status, std::move(got->body)};
}

// What an error body may show of itself: printable ASCII, cut short.
std::string excerpt(std::string_view body) {
  std::string out;
  for (char c : body.substr(0, 200)) out += (c >= 0x20 && c < 0x7f) ? c : ' ';
  return std::string(trim(out));
}

// An endpoint's words with what the request carried taken out: a proxy's error page may
// echo a request, and the message ends up in the log.
std::string redacted(std::string text, std::initializer_list<std::string_view> secrets) {
  for (std::string_view secret : secrets) {
    if (secret.size() < 4) continue;
    for (std::size_t at; (at = text.find(secret)) != std::string::npos;) text.replace(at, secret.size(), "<redacted>");
  }
  return text;
}

// ---------------------------------------------------------------------------------------
// The providers.

class Static final : public CredentialsProvider {
 public:
  Static(sigv4::Credentials keys, std::string source) : keys_(std::move(keys)), source_(std::move(source)) {}
  Expected<sigv4::Credentials, std::string> current() override { return keys_; }
  const std::string& source() const override { return source_; }

 private:
  const sigv4::Credentials keys_;
  const std::string source_;
};

class Refreshing final : public CredentialsProvider {
 public:
  Refreshing(Fetch fetch, std::string source, Clock clock)
      : fetch_(std::move(fetch)), source_(std::move(source)), clock_(std::move(clock)) {}

  Expected<sigv4::Credentials, std::string> current() override {
    // One fetch at a time: the threads that ask meanwhile wait for its keys rather than each
    // asking STS for their own.
    std::lock_guard lock(mu_);
    const TimePoint now = clock_();
    if (cached_ && (!cached_->expiration || now < *cached_->expiration - kRefreshWindow)) return cached_->keys;
    auto fresh = fetch_();
    if (fresh && fresh->expiration && *fresh->expiration <= now) {
      fresh =
          Unexpected("the keys it gave (" + fresh->keys.access_key_id + ") expired at " +
                     format_iso8601(*fresh->expiration) + ", before they were used (now " + format_iso8601(now) + ")");
    }
    if (!fresh) {
      // Keys that still work are better than none; the next request tries again.
      if (cached_ && cached_->expiration && now < *cached_->expiration) return cached_->keys;
      return Unexpected(source_ + ": " + fresh.error());
    }
    cached_ = std::move(*fresh);
    return cached_->keys;
  }

  const std::string& source() const override { return source_; }

 private:
  const Fetch fetch_;
  const std::string source_;
  const Clock clock_;
  std::mutex mu_;
  std::optional<TimedCredentials> cached_;
};

std::string form_encode(std::string_view s) {
  return sigv4::uri_encode(s, false);
}

struct WebIdentity {
  std::string role_arn;
  std::string token_file;
  std::string session_name;
  std::string endpoint;
};

std::shared_ptr<CredentialsProvider> web_identity_provider(WebIdentity w, const ChainOptions& o, std::string source) {
  Fetch fetch = [w = std::move(w), timeout = o.timeout]() -> Expected<TimedCredentials, std::string> {
    auto token = read_token(w.token_file, "the web identity token file");
    if (!token) return Unexpected(token.error());
    // Unsigned, as the SDKs send it: the token is the proof.
    const std::string body = "Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=" + form_encode(w.role_arn) +
                             "&RoleSessionName=" + form_encode(w.session_name) +
                             "&WebIdentityToken=" + form_encode(*token);
    const std::string where = "STS AssumeRoleWithWebIdentity at " + w.endpoint;
    auto a = http_request(
        w.endpoint, &body,
        {{"Content-Type", "application/x-www-form-urlencoded; charset=utf-8"}, {"Accept", "text/xml"}}, timeout);
    if (!a) return Unexpected(where + ": " + a.error());
    if (a->status != 200) {
      // STS's <ErrorResponse> says "<Code>: <Message>"; anything else is shown as it came.
      auto parsed = parse_sts_response(a->body);
      std::string why = parsed ? "" : parsed.error();
      if (parsed || why.starts_with("an answer") || why.starts_with("no <Credentials>")) why = excerpt(a->body);
      why = redacted(why, {*token, form_encode(*token)});
      return Unexpected(where + ": HTTP " + std::to_string(a->status) + (why.empty() ? "" : " " + why));
    }
    auto c = parse_sts_response(a->body);
    if (!c) return Unexpected(where + ": " + c.error());
    return c;
  };
  return std::make_shared<Refreshing>(std::move(fetch), std::move(source), o.clock);
}

std::string default_session_name() {
  return "batlehub-worker-" + std::to_string(::getpid()) + "-" +
         std::to_string(
             std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
                 .count());
}

// ---------------------------------------------------------------------------------------
// The links. Each says it does not apply (and why, for the chain's message), or resolves to
// a provider or to the reason the link that applies cannot give one.

struct Link {
  std::optional<Resolved> resolved;
  std::string why_not;
};

Link not_applicable(std::string why) {
  return Link{std::nullopt, std::move(why)};
}
Link failed(std::string why) {
  return Link{Resolved(Unexpected(std::move(why))), ""};
}
Link provider(std::shared_ptr<CredentialsProvider> p) {
  return Link{Resolved(std::move(p)), ""};
}

Link environment_link(const core::Env& env) {
  const std::string id = var(env, "AWS_ACCESS_KEY_ID");
  const std::string secret = var(env, "AWS_SECRET_ACCESS_KEY");
  if (id.empty() && secret.empty()) return not_applicable("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are unset");
  if (id.empty()) return failed("AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not");
  if (secret.empty()) return failed("AWS_ACCESS_KEY_ID (" + id + ") is set but AWS_SECRET_ACCESS_KEY is not");
  return provider(std::make_shared<Static>(sigv4::Credentials{id, secret, var(env, "AWS_SESSION_TOKEN")},
                                           "the environment (AWS_ACCESS_KEY_ID " + id + ")"));
}

std::string at(const ProfileValue& v) {
  return v.file + ":" + std::to_string(v.line);
}

// What one profile holds. Static keys win over what this build cannot do
// (credential_process, SSO): a profile that has both works as its keys say. A role to
// assume from another source is refused outright, because every SDK would assume it and
// the keys beside it are not what it would sign with.
Link profile_provider(const Profile& p, const std::string& name, const std::string& files, const core::Env& env,
                      const ChainOptions& o) {
  auto get = [&](std::string_view key) -> const ProfileValue* {
    auto it = p.find(key);
    return it == p.end() || it->second.value.empty() ? nullptr : &it->second;
  };
  const std::string who = "profile '" + name + "'";
  const ProfileValue* role = get("role_arn");
  const ProfileValue* token_file = get("web_identity_token_file");
  if (role != nullptr && token_file != nullptr) {
    const ProfileValue* session = get("role_session_name");
    const std::string session_name = session != nullptr       ? session->value
                                     : o.session_name.empty() ? default_session_name()
                                                              : o.session_name;
    WebIdentity w{role->value, token_file->value, session_name, sts_endpoint(env)};
    std::string source = "web identity of " + who + " (" + at(*role) + "; role " + role->value + ", token file " +
                         token_file->value + ", STS " + w.endpoint + ")";
    return provider(web_identity_provider(std::move(w), o, std::move(source)));
  }
  if (role != nullptr) {
    return failed(at(*role) + ": " + who +
                  " assumes a role from another source (role_arn with source_profile or credential_source), which is "
                  "not supported by this build; give the profile aws_access_key_id and aws_secret_access_key, or use "
                  "web identity (role_arn with web_identity_token_file)");
  }
  if (token_file != nullptr)
    return failed(at(*token_file) + ": " + who + " has web_identity_token_file but no role_arn");
  const ProfileValue* id = get("aws_access_key_id");
  const ProfileValue* secret = get("aws_secret_access_key");
  const ProfileValue* token = get("aws_session_token");
  if (id != nullptr && secret != nullptr) {
    return provider(std::make_shared<Static>(
        sigv4::Credentials{id->value, secret->value, token != nullptr ? token->value : ""},
        "the shared files (" + who + ", " + at(*id) + ", aws_access_key_id " + id->value + ")"));
  }
  if (id != nullptr) return failed(at(*id) + ": " + who + " has aws_access_key_id but no aws_secret_access_key");
  if (secret != nullptr)
    return failed(at(*secret) + ": " + who + " has aws_secret_access_key but no aws_access_key_id");
  if (token != nullptr) return failed(at(*token) + ": " + who + " has aws_session_token but no keys");
  if (const ProfileValue* process = get("credential_process")) {
    return failed(at(*process) + ": " + who +
                  " gets its keys from credential_process, which is not supported by this build");
  }
  for (const char* sso : {"sso_session", "sso_start_url", "sso_account_id", "sso_role_name"}) {
    if (const ProfileValue* v = get(sso)) {
      return failed(at(*v) + ": " + who + " signs in with SSO (" + sso + "), which is not supported by this build");
    }
  }
  if (const ProfileValue* source = get("credential_source")) {
    return failed(at(*source) + ": " + who +
                  " has credential_source without role_arn, which is not supported by this build");
  }
  return not_applicable(who + " in " + files + " holds no credentials");
}

Link shared_files_link(const core::Env& env, const ChainOptions& o) {
  const std::string home = var(env, "HOME");
  auto path_of = [&](std::string_view variable, const std::string& in_home) -> std::string {
    std::string p = var(env, variable);
    if (p.empty()) return home.empty() ? "" : home + "/" + in_home;
    if ((p == "~" || p.starts_with("~/")) && !home.empty()) return home + p.substr(1);
    return p;
  };
  const std::string credentials_path = path_of("AWS_SHARED_CREDENTIALS_FILE", ".aws/credentials");
  const std::string config_path = path_of("AWS_CONFIG_FILE", ".aws/config");
  if (credentials_path.empty() && config_path.empty()) {
    return not_applicable("HOME, AWS_SHARED_CREDENTIALS_FILE and AWS_CONFIG_FILE are unset");
  }
  std::vector<std::string> named;
  if (!credentials_path.empty()) named.push_back(credentials_path);
  if (!config_path.empty()) named.push_back(config_path);
  const std::string files = named.size() == 2 ? named[0] + " and " + named[1] : named[0];

  // The config file first, so that the credentials file's keys replace its own.
  ProfileSet set;
  std::size_t absent = 0;
  const struct {
    const std::string& path;
    ProfileFile kind;
    const char* what;
  } sources[] = {{config_path, ProfileFile::kConfig, "the shared config file"},
                 {credentials_path, ProfileFile::kCredentials, "the shared credentials file"}};
  for (const auto& s : sources) {
    if (s.path.empty()) continue;
    auto text = read_file(s.path, s.what, true);
    if (!text) return failed(text.error());
    if (!*text) {
      ++absent;
      continue;
    }
    if (auto ok = parse_profile_file(**text, s.path, s.kind, set); !ok) return failed(ok.error());
  }
  const std::string asked = var(env, "AWS_PROFILE");
  const std::string name = asked.empty() ? "default" : asked;
  if (set.empty()) {
    const std::string why = absent == named.size()
                                ? (named.size() == 2 ? files + " do not exist" : files + " does not exist")
                                : "no profile in " + files;
    return not_applicable(asked.empty() ? why : why + " (AWS_PROFILE is " + asked + ")");
  }
  auto it = set.find(name);
  if (it == set.end()) {
    // The SDKs pass over a missing [default], but not a profile the operator named.
    if (!asked.empty()) return failed("AWS_PROFILE names profile '" + asked + "', which is not in " + files);
    return not_applicable("no default profile in " + files);
  }
  return profile_provider(it->second, name, files, env, o);
}

Link web_identity_link(const core::Env& env, const ChainOptions& o) {
  const std::string token_file = var(env, "AWS_WEB_IDENTITY_TOKEN_FILE");
  const std::string role = var(env, "AWS_ROLE_ARN");
  if (token_file.empty()) {
    return not_applicable(role.empty() ? "AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN are unset"
                                       : "AWS_WEB_IDENTITY_TOKEN_FILE is unset (AWS_ROLE_ARN alone is not enough)");
  }
  if (role.empty()) return failed("AWS_WEB_IDENTITY_TOKEN_FILE is set but AWS_ROLE_ARN is not");
  std::string session = var(env, "AWS_ROLE_SESSION_NAME");
  if (session.empty()) session = o.session_name.empty() ? default_session_name() : o.session_name;
  WebIdentity w{role, token_file, session, sts_endpoint(env)};
  std::string source = "web identity (role " + role + ", token file " + token_file + ", STS " + w.endpoint + ")";
  return provider(web_identity_provider(std::move(w), o, std::move(source)));
}

Link container_link(const core::Env& env, const ChainOptions& o) {
  auto url = container_credentials_url(env);
  if (!url) return failed(url.error());
  if (!*url)
    return not_applicable("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI and AWS_CONTAINER_CREDENTIALS_FULL_URI are unset");
  const std::string token_file = var(env, "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE");
  const std::string token = var(env, "AWS_CONTAINER_AUTHORIZATION_TOKEN");
  Fetch fetch = [url = **url, token_file, token, timeout = o.timeout]() -> Expected<TimedCredentials, std::string> {
    http::Headers headers{{"Accept", "application/json"}};
    std::string authorization = token;
    if (!token_file.empty()) {
      auto t = read_token(token_file, "the container authorization token file");
      if (!t) return Unexpected(t.error());
      authorization = std::move(*t);
    }
    if (authorization.find_first_of("\r\n") != std::string::npos) {
      return Unexpected(std::string("the container authorization token holds a line break"));
    }
    if (!authorization.empty()) headers.emplace_back("Authorization", authorization);
    auto a = http_request(url, nullptr, std::move(headers), timeout);
    if (!a) return Unexpected(url + ": " + a.error());
    if (a->status != 200) {
      std::string why = excerpt(a->body);
      const auto j = nlohmann::json::parse(a->body, nullptr, false);
      if (!j.is_discarded() && j.is_object() && j.contains("code") && j["code"].is_string()) {
        why = excerpt(j["code"].get<std::string>());
        if (j.contains("message") && j["message"].is_string()) why += ": " + excerpt(j["message"].get<std::string>());
      }
      why = redacted(why, {authorization});
      return Unexpected(url + ": HTTP " + std::to_string(a->status) + (why.empty() ? "" : " " + why));
    }
    auto c = parse_container_response(a->body);
    if (!c) return Unexpected(url + ": " + c.error());
    return c;
  };
  std::string source = "the container endpoint (" + **url +
                       (!token_file.empty() ? ", authorization from " + token_file
                        : !token.empty()    ? ", authorization from AWS_CONTAINER_AUTHORIZATION_TOKEN"
                                            : "") +
                       ")";
  return provider(std::make_shared<Refreshing>(std::move(fetch), std::move(source), o.clock));
}

// ---------------------------------------------------------------------------------------
// STS's XML, read with the S3 readers' bounded walk (xml_walk.h): no DTD, bounded fields
// and depth.

constexpr std::size_t kMaxXmlField = 16 * 1024;
constexpr std::size_t kMaxXmlDepth = 16;

struct StsWalk : xml::Walk {
  StsWalk() : Walk(kMaxXmlField, kMaxXmlDepth) {}
  bool seen_credentials = false;
  std::optional<std::string> access_key_id, secret_access_key, session_token, expiration;
  std::string code, message;
  bool is_error = false;
};

void XMLCALL sts_start(void* data, const XML_Char* name, const XML_Char**) {
  auto* w = xml::walk_of<StsWalk>(data);
  if (w->stopped) return;
  if (w->path.empty()) w->is_error = std::string_view(name) == "ErrorResponse";
  w->push(name);
}

void XMLCALL sts_end(void* data, const XML_Char*) {
  auto* w = xml::walk_of<StsWalk>(data);
  if (w->stopped || w->path.empty()) return;
  constexpr std::string_view kRoot = "AssumeRoleWithWebIdentityResponse";
  constexpr std::string_view kResult = "AssumeRoleWithWebIdentityResult";
  if (w->path.size() == 4 && w->path[0] == kRoot && w->path[1] == kResult && w->path[2] == "Credentials") {
    const std::string& field = w->path[3];
    if (field == "AccessKeyId") w->access_key_id = w->text;
    if (field == "SecretAccessKey") w->secret_access_key = w->text;
    if (field == "SessionToken") w->session_token = w->text;
    if (field == "Expiration") w->expiration = w->text;
  } else if (w->at({kRoot, kResult, "Credentials"})) {
    w->seen_credentials = true;
  } else if (w->at({"ErrorResponse", "Error", "Code"})) {
    w->code = w->text;
  } else if (w->at({"ErrorResponse", "Error", "Message"})) {
    w->message = w->text;
  }
  w->pop();
}

Expected<TimedCredentials, std::string> timed(std::optional<std::string> id, std::optional<std::string> secret,
                                              std::optional<std::string> token, std::optional<std::string> expiration) {
  if (!id || id->empty()) return Unexpected(std::string("no AccessKeyId"));
  if (!secret || secret->empty()) return Unexpected("no SecretAccessKey (AccessKeyId " + *id + ")");
  if (!expiration) return Unexpected("no Expiration (AccessKeyId " + *id + ")");
  auto t = parse_iso8601(trim(*expiration));
  if (!t) return Unexpected("an Expiration that is not an ISO 8601 time: '" + excerpt(*expiration) + "'");
  // The SDKs' endpoints always send a session token with temporary keys; the tests' peer
  // leaves it out for versitygw, which refuses any token it did not issue (tests/scripts/
  // aws-credentials-peer.py). A missing one is therefore not refused here.
  return TimedCredentials{{std::move(*id), std::move(*secret), token.value_or("")}, *t};
}

}  // namespace

// ---------------------------------------------------------------------------------------

std::shared_ptr<CredentialsProvider> static_credentials(sigv4::Credentials keys, std::string source) {
  return std::make_shared<Static>(std::move(keys), std::move(source));
}

std::shared_ptr<CredentialsProvider> refreshing(Fetch fetch, std::string source, Clock clock) {
  if (!clock) clock = [] { return std::chrono::system_clock::now(); };
  return std::make_shared<Refreshing>(std::move(fetch), std::move(source), std::move(clock));
}

Expected<std::shared_ptr<CredentialsProvider>, std::string> default_chain(const core::Env& env, ChainOptions options) {
  if (!options.clock) options.clock = [] { return std::chrono::system_clock::now(); };
  const struct {
    const char* name;
    Link (*link)(const core::Env&, const ChainOptions&);
  } links[] = {
      {"the environment", [](const core::Env& e, const ChainOptions&) { return environment_link(e); }},
      {"the shared files", shared_files_link},
      {"web identity", web_identity_link},
      {"the container endpoint", container_link},
  };
  std::string none = "no AWS credentials";
  char sep = ':';
  for (const auto& l : links) {
    Link got = l.link(env, options);
    if (got.resolved) {
      if (!*got.resolved)
        return Unexpected("AWS credentials from " + std::string(l.name) + ": " + got.resolved->error());
      return std::move(*got.resolved);
    }
    none += sep + std::string(" ") + l.name + ": " + got.why_not;
    sep = ';';
  }
  return Unexpected(none + "; instance metadata (IMDS): not in this build");
}

Expected<Ok, std::string> parse_profile_file(std::string_view text, const std::string& path, ProfileFile kind,
                                             ProfileSet& into) {
  int n = 0;
  auto fail = [&](const std::string& why) { return Unexpected(path + ":" + std::to_string(n) + ": " + why); };
  bool in_section = false;
  Profile* profile = nullptr;    // null inside a section that is not a profile
  ProfileValue ignored;          // what a key of such a section is read into
  ProfileValue* last = nullptr;  // the property a continuation line extends
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++n;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::string_view t = trim(line);
    if (t.empty() || t.front() == '#' || t.front() == ';') continue;
    if (is_blank(line.front())) {
      // An indented line continues the property above it (the config file's nested
      // `s3 =` settings).
      if (!in_section) return fail("an indented line before any [section]");
      if (last == nullptr) return fail("an indented line with no property above it to continue");
      last->value += "\n" + std::string(t);
      continue;
    }
    if (t.front() == '[') {
      const std::size_t close = t.find(']');
      if (close == std::string_view::npos) return fail("a section header without ']'");
      const std::string_view after = trim(t.substr(close + 1));
      if (!after.empty() && after.front() != '#' && after.front() != ';') {
        return fail("'" + excerpt(after) + "' after a section header");
      }
      const std::string_view name = trim(t.substr(1, close - 1));
      if (name.empty()) return fail("a section without a name");
      in_section = true;
      last = nullptr;
      profile = nullptr;
      if (kind == ProfileFile::kCredentials || name == "default") {
        profile = &into[std::string(name)];
      } else if (name.starts_with("profile") && name.size() > 7 && is_blank(name[7])) {
        const std::string_view p = trim(name.substr(7));
        profile = &into[std::string(p)];
      } else if (name == "profile") {
        return fail("[profile] without a profile name");
      }
      continue;
    }
    if (!in_section) return fail("a property before any [section]");
    const std::size_t eq = t.find('=');
    if (eq == std::string_view::npos) return fail("expected 'key = value'");
    const std::string key = lower(trim(t.substr(0, eq)));
    if (key.empty()) return fail("a property without a name");
    std::string_view value = trim(t.substr(eq + 1));
    // A comment after a value needs a blank before it: a '#' inside a value is the value's.
    for (std::size_t i = 1; i < value.size(); ++i) {
      if ((value[i] == '#' || value[i] == ';') && is_blank(value[i - 1])) {
        value = trim(value.substr(0, i));
        break;
      }
    }
    if (profile == nullptr) {
      last = &ignored;
      continue;
    }
    ProfileValue& v = (*profile)[key];
    v = ProfileValue{std::string(value), path, n};
    last = &v;
  }
  return Ok{};
}

std::string sts_endpoint(const core::Env& env) {
  if (lower(var(env, "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS")) != "true") {
    if (auto e = var(env, "AWS_ENDPOINT_URL_STS"); !e.empty()) return e;
    if (auto e = var(env, "AWS_ENDPOINT_URL"); !e.empty()) return e;
  }
  std::string region = var(env, "AWS_REGION");
  if (region.empty()) region = var(env, "AWS_DEFAULT_REGION");
  if (region.empty()) region = "us-east-1";
  // Regional, never the global sts.amazonaws.com: the SDKs have resolved STS regionally by
  // default since 2022 (sts_regional_endpoints = regional), the Rust SDK upstream uses
  // always has, and the global endpoint is us-east-1's anyway.
  return "https://sts." + region + ".amazonaws.com";
}

Expected<std::optional<std::string>, std::string> container_credentials_url(const core::Env& env) {
  if (const std::string rel = var(env, "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"); !rel.empty()) {
    if (rel.front() != '/')
      return Unexpected("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI '" + rel + "' does not start with '/'");
    return std::optional<std::string>("http://169.254.170.2" + rel);
  }
  const std::string full = var(env, "AWS_CONTAINER_CREDENTIALS_FULL_URI");
  if (full.empty()) return std::optional<std::string>();
  const std::string bad = "AWS_CONTAINER_CREDENTIALS_FULL_URI '" + full + "'";
  const bool https = full.starts_with("https://");
  if (!https && !full.starts_with("http://")) return Unexpected(bad + " is not an http(s):// URL");
  const std::string_view rest = std::string_view(full).substr(https ? 8 : 7);
  const std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
  if (authority.find('@') != std::string_view::npos) return Unexpected(bad + " holds user information");
  std::string_view host;
  if (authority.starts_with("[")) {
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return Unexpected(bad + " has an IPv6 address without ']'");
    host = authority.substr(1, close - 1);
  } else {
    host = authority.substr(0, authority.find(':'));
  }
  if (host.empty()) return Unexpected(bad + " has no host");
  if (https) return std::optional<std::string>(full);
  // Plain http only where nothing but this host, or the platform's own agent, can answer.
  const std::string h = lower(host);
  in_addr v4{};
  in6_addr v6{};
  bool allowed = h == "localhost" || h == "169.254.170.2" || h == "169.254.170.23";
  if (!allowed && ::inet_pton(AF_INET, h.c_str(), &v4) == 1) allowed = (ntohl(v4.s_addr) >> 24) == 127;
  if (!allowed && ::inet_pton(AF_INET6, h.c_str(), &v6) == 1) {
    in6_addr ecs{};
    ::inet_pton(AF_INET6, "fd00:ec2::23", &ecs);
    allowed = IN6_IS_ADDR_LOOPBACK(&v6) || std::memcmp(&v6, &ecs, sizeof v6) == 0;
  }
  if (!allowed) {
    return Unexpected(bad +
                      ": plain http is allowed only to a loopback address, 169.254.170.2 or 169.254.170.23, as the "
                      "SDKs allow it (a host name other than localhost is not resolved to check); use https");
  }
  return std::optional<std::string>(full);
}

Expected<TimedCredentials, std::string> parse_sts_response(std::string_view xml) {
  if (xml.size() > kMaxResponseBytes) return Unexpected("an answer of " + std::to_string(xml.size()) + " bytes");
  xml::ParserPtr p(XML_ParserCreate("UTF-8"), XML_ParserFree);
  if (!p) return Unexpected(std::string("out of memory"));
  StsWalk w;
  XML_SetElementHandler(p.get(), sts_start, sts_end);
  if (std::string err = xml::run(p.get(), w, xml); !err.empty()) {
    return Unexpected((w.stopped ? "an answer that is not STS's: " : "an answer that is not XML: ") + err);
  }
  if (w.is_error) {
    if (w.code.empty()) return Unexpected(std::string("an <ErrorResponse> without a <Code>"));
    return Unexpected(w.code + (w.message.empty() ? "" : ": " + excerpt(w.message)));
  }
  if (!w.seen_credentials) return Unexpected(std::string("no <Credentials> in the answer"));
  return timed(w.access_key_id, w.secret_access_key, w.session_token, w.expiration);
}

Expected<TimedCredentials, std::string> parse_container_response(std::string_view json) {
  const auto j = nlohmann::json::parse(json, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Unexpected(std::string("an answer that is not a JSON object"));
  auto field = [&](const char* name) -> std::optional<std::string> {
    auto it = j.find(name);
    if (it == j.end() || !it->is_string()) return std::nullopt;
    return it->get<std::string>();
  };
  if (!field("AccessKeyId") && field("code")) {
    return Unexpected(*field("code") + (field("message") ? ": " + excerpt(*field("message")) : ""));
  }
  return timed(field("AccessKeyId"), field("SecretAccessKey"), field("Token"), field("Expiration"));
}

}  // namespace batlehub::adapters::aws
