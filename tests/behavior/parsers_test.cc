// The detonation's parsers of what a package sends (dns.h, sink.h) and its canary search
// (decoys.h), on bytes written here: well-formed, truncated at every length, and hostile.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "behavior/decoys.h"
#include "behavior/dns.h"
#include "behavior/observer.h"
#include "behavior/sink.h"
#include "wire/base64.h"

namespace batlehub::behavior {
namespace {

// A query as glibc sends it: id, RD, one question.
std::string query(std::string_view name, std::uint16_t qtype, std::uint16_t id = 0x1234) {
  std::string m = {static_cast<char>(id >> 8), static_cast<char>(id & 0xff), 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0};
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t dot = name.find('.', start);
    if (dot == std::string_view::npos) dot = name.size();
    m.push_back(static_cast<char>(dot - start));
    m.append(name.substr(start, dot - start));
    start = dot + 1;
  }
  m.push_back('\0');
  m.push_back(static_cast<char>(qtype >> 8));
  m.push_back(static_cast<char>(qtype & 0xff));
  m.append("\x00\x01", 2);
  return m;
}

TEST(Dns, a_query_is_read_as_its_name_and_type_in_lower_case) {
  auto q = parse_query(query("Builder.Exfil.TEST", 1));
  ASSERT_TRUE(q) << q.error();
  EXPECT_EQ(q->name, "builder.exfil.test");
  EXPECT_EQ(q->qtype, 1);
  EXPECT_EQ(q->id, 0x1234);
}

TEST(Dns, a_label_byte_that_is_not_a_name_character_is_escaped_so_it_cannot_pass_for_a_dot) {
  std::string m = query("zz.test", 16);
  m[13] = '.';  // the first label's first byte, inside the label
  m[14] = '\x01';
  auto q = parse_query(m);
  ASSERT_TRUE(q) << q.error();
  EXPECT_EQ(q->name, "\\046\\001.test");
}

TEST(Dns, the_answer_to_an_a_query_points_the_name_at_the_given_address) {
  const std::string m = query("exfil.test", 1, 0xbeef);
  auto q = parse_query(m);
  ASSERT_TRUE(q);
  const std::string a = answer(m, *q, {127, 77, 0, 9});
  ASSERT_GE(a.size(), m.size() + 16);
  EXPECT_EQ(static_cast<unsigned char>(a[0]), 0xbe);
  EXPECT_EQ(static_cast<unsigned char>(a[1]), 0xef);
  EXPECT_NE(static_cast<unsigned char>(a[2]) & 0x80, 0);  // a response
  EXPECT_EQ(a[7], 1);                                     // one answer
  EXPECT_EQ(a.substr(a.size() - 4), std::string("\x7f\x4d\x00\x09", 4));
  // AAAA gets none, so that the resolver falls back to the A record.
  const std::string m6 = query("exfil.test", 28);
  auto q6 = parse_query(m6);
  ASSERT_TRUE(q6);
  EXPECT_EQ(answer(m6, *q6, {127, 77, 0, 9})[7], 0);
}

TEST(Dns, every_truncation_of_a_query_is_refused_with_a_reason_and_never_read_past) {
  const std::string m = query("a.long.name.exfil.test", 1);
  for (std::size_t n = 0; n < m.size(); ++n) {
    auto q = parse_query(m.substr(0, n));
    EXPECT_FALSE(q) << n;
    if (!q) {
      EXPECT_FALSE(q.error().empty());
    }
  }
}

TEST(Dns, pointers_responses_and_overlong_names_are_refused) {
  std::string m = query("x.test", 1);
  m[12] = static_cast<char>(0xc0);
  EXPECT_FALSE(parse_query(m));
  std::string r = query("x.test", 1);
  r[2] = static_cast<char>(0x81);
  EXPECT_FALSE(parse_query(r));
  std::string longname;
  for (int i = 0; i < 5; ++i) longname += std::string(60, 'a') + ".";
  longname += "test";
  auto q = parse_query(query(longname, 1));
  ASSERT_FALSE(q);
  EXPECT_NE(q.error().find("255"), std::string::npos);
}

TEST(Sink, an_http_post_is_read_as_its_line_its_host_and_its_body) {
  const std::string req = "POST /collect HTTP/1.1\r\nHost: exfil.test\r\nContent-Length: 5\r\n\r\nhello";
  StreamSummary s = summarize(req);
  EXPECT_EQ(s.protocol, StreamProtocol::kHttp);
  EXPECT_EQ(s.request_line, "POST /collect HTTP/1.1");
  EXPECT_EQ(s.host, "exfil.test");
  EXPECT_EQ(s.body_head, "hello");
  EXPECT_EQ(http_request_end(req), req.size());
  EXPECT_FALSE(http_request_end(req.substr(0, req.size() - 1)));  // the body is not whole yet
  EXPECT_FALSE(http_request_end("POST / HTTP/1.1\r\nContent-Length: 99999999999999\r\n\r\n"));
}

// A ClientHello carrying server_name "evil.test", as a TLS client sends it.
std::string client_hello(std::string_view name) {
  std::string sni_ext;
  const std::size_t n = name.size();
  sni_ext += std::string{0, 0};  // type server_name
  sni_ext += std::string{static_cast<char>((n + 5) >> 8), static_cast<char>((n + 5) & 0xff)};
  sni_ext += std::string{static_cast<char>((n + 3) >> 8), static_cast<char>((n + 3) & 0xff)};
  sni_ext += std::string{0, static_cast<char>(n >> 8), static_cast<char>(n & 0xff)};
  sni_ext += name;
  std::string body;
  body += "\x03\x03";
  body += std::string(32, 'r');
  body += '\0';                                // session id
  body += std::string("\x00\x02\x13\x01", 4);  // one cipher suite
  body += std::string("\x01\x00", 2);          // compression
  body += std::string{static_cast<char>(sni_ext.size() >> 8), static_cast<char>(sni_ext.size() & 0xff)};
  body += sni_ext;
  std::string hs = std::string{1, 0, static_cast<char>(body.size() >> 8), static_cast<char>(body.size() & 0xff)} + body;
  return std::string{22, 3, 1, static_cast<char>(hs.size() >> 8), static_cast<char>(hs.size() & 0xff)} + hs;
}

TEST(Sink, a_tls_client_hello_is_read_as_the_name_it_asks_for) {
  const std::string hello = client_hello("evil.test");
  StreamSummary s = summarize(hello);
  EXPECT_EQ(s.protocol, StreamProtocol::kTls);
  EXPECT_EQ(s.host, "evil.test");
  for (std::size_t n = 0; n < hello.size(); ++n) {
    StreamSummary t = summarize(hello.substr(0, n));  // never read past what was received
    EXPECT_TRUE(t.host.empty() || t.host == "evil.test") << n;
  }
}

TEST(Canary, is_found_as_is_in_hex_and_in_base64_at_every_alignment) {
  const std::string c = "k3j9x0qpl2m8z7wq1a5b6c4d";
  EXPECT_TRUE(carries_canary("token=" + c, c));
  std::string hex;
  for (unsigned char ch : c) {
    const char* d = "0123456789abcdef";
    hex += d[ch >> 4];
    hex += d[ch & 15];
  }
  EXPECT_TRUE(carries_canary("x" + hex, c));
  for (std::string prefix : {"", "a", "ab", "abc", "abcd"}) {
    for (std::string suffix : {"", "!", "!!"}) {
      EXPECT_TRUE(carries_canary(wire::base64_encode(prefix + c + suffix), c)) << prefix << "|" << suffix;
    }
  }
  EXPECT_FALSE(carries_canary("nothing of it here, not even k3j9x0qpl2m8", c));
  EXPECT_FALSE(carries_canary("anything", ""));
}

TEST(Decoys, each_decoy_and_its_store_directory_is_known_by_its_path_and_nothing_else_is) {
  const std::string home = "/work/home";
  const Decoy* d = decoy_at(home, "/work/home/.ssh/id_rsa");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->kind, "ssh-key");
  ASSERT_NE(decoy_at(home, "/work/home/.ssh"), nullptr);
  ASSERT_NE(decoy_at(home, "/work/home/.config/google-chrome/Default/History"), nullptr);
  EXPECT_EQ(decoy_at(home, "/work/home/.config/curlrc"), nullptr);  // .config alone is no store
  EXPECT_EQ(decoy_at(home, "/work/home"), nullptr);
  EXPECT_EQ(decoy_at(home, "/work/homeother/.ssh/id_rsa"), nullptr);
  EXPECT_EQ(decoy_at(home, "/etc/passwd"), nullptr);
  // A Windows stealer's path, joined with backslashes onto %LOCALAPPDATA%, is the store it meant.
  const Decoy* w = decoy_at(home, "/work/home/AppData/Local\\Google\\Chrome\\User Data\\Default\\Login Data");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->kind, "browser-logins");
  const auto env = windows_environment(home, "vm", "builder");
  EXPECT_NE(std::find(env.begin(), env.end(), "LOCALAPPDATA=/work/home/AppData/Local"), env.end());
  EXPECT_NE(std::find(env.begin(), env.end(), "COMPUTERNAME=VM"), env.end());
}

TEST(Identity, a_token_counts_where_it_stands_as_a_word_of_its_own) {
  const std::vector<std::string> tokens = {"/work/home", "vm", "builder"};
  EXPECT_TRUE(carries_identity("vm.pth.exfil.test", tokens));
  EXPECT_TRUE(carries_identity("{\"user\":\"Builder\"}", tokens));
  EXPECT_TRUE(carries_identity("cwd=/work/home/x", tokens));
  EXPECT_FALSE(carries_identity("GET /vmlinuz HTTP/1.1", tokens));
  EXPECT_FALSE(carries_identity("rebuilders.example", tokens));
  EXPECT_FALSE(carries_identity("", tokens));
  // In a DNS name it is sent somewhere only when a domain of its own stands beside it.
  EXPECT_TRUE(name_carries_identity("builder.vm.exfil.test", tokens));
  EXPECT_FALSE(name_carries_identity("vm", tokens));
  EXPECT_FALSE(name_carries_identity("vm.lan", tokens));
  EXPECT_FALSE(name_carries_identity("pypi.org", tokens));
  // The host's own name and HOME are always tokens; root's and nobody's names never are.
  const auto mine = identity_tokens("/work/home");
  ASSERT_FALSE(mine.empty());
  EXPECT_EQ(mine.front(), "/work/home");
  for (const std::string& t : mine) {
    EXPECT_NE(t, "root");
    EXPECT_NE(t, "nobody");
  }
}

}  // namespace
}  // namespace batlehub::behavior
