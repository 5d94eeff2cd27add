#include "behavior/decoys.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>

#include "base/fd.h"
#include "wire/base64.h"

namespace batlehub::behavior {

namespace {

constexpr auto kDecoys = std::to_array<Decoy>({
    {"ssh-key", ".ssh/id_rsa"},
    {"ssh-key", ".ssh/id_ed25519"},
    {"aws-credentials", ".aws/credentials"},
    {"npm-token", ".npmrc"},
    {"pypi-token", ".pypirc"},
    {"git-credentials", ".git-credentials"},
    {"docker-credentials", ".docker/config.json"},
    {"kube-config", ".kube/config"},
    {"gcloud-credentials", ".config/gcloud/application_default_credentials.json"},
    {"browser-logins", ".config/google-chrome/Default/Login Data"},
    {"browser-cookies", ".config/google-chrome/Default/Cookies"},
    {"browser-local-state", ".config/google-chrome/Local State"},
    {"firefox-logins", ".mozilla/firefox/batlehub.default/logins.json"},
    {"discord-token-store", ".config/discord/Local Storage/leveldb/000003.log"},
    {"telegram-session", ".local/share/TelegramDesktop/tdata/key_datas"},
    {"wallet", ".bitcoin/wallet.dat"},
    {"wallet", ".electrum/wallets/default_wallet"},
    {"wallet", ".config/Exodus/exodus.wallet/seed.seco"},
    {"wallet", ".config/solana/id.json"},
    {"shell-history", ".bash_history"},
    // Where Windows keeps the same stores (USERPROFILE, APPDATA and LOCALAPPDATA point here in
    // a detonation): a stealer written for Windows that reads its environment finds them.
    {"browser-logins", "AppData/Local/Google/Chrome/User Data/Default/Login Data"},
    {"browser-cookies", "AppData/Local/Google/Chrome/User Data/Default/Network/Cookies"},
    {"browser-local-state", "AppData/Local/Google/Chrome/User Data/Local State"},
    {"browser-logins", "AppData/Local/Microsoft/Edge/User Data/Default/Login Data"},
    {"discord-token-store", "AppData/Roaming/discord/Local Storage/leveldb/000003.log"},
    {"wallet", "AppData/Roaming/Exodus/exodus.wallet/seed.seco"},
    {"wallet", "AppData/Roaming/Electrum/wallets/default_wallet"},
    {"telegram-session", "AppData/Roaming/Telegram Desktop/tdata/key_datas"},
});

// What each kind holds: the shape a stealer's parser expects, with the canary where the
// secret goes.
std::string content(std::string_view kind, std::string_view c) {
  const std::string canary(c);
  if (kind == "ssh-key") {
    return "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA" + canary +
           "\n-----END OPENSSH PRIVATE KEY-----\n";
  }
  if (kind == "aws-credentials") {
    return "[default]\naws_access_key_id = AKIA" + canary.substr(0, 16) + "\naws_secret_access_key = " + canary + "\n";
  }
  if (kind == "npm-token") return "//registry.npmjs.org/:_authToken=npm_" + canary + "\n";
  if (kind == "pypi-token") return "[pypi]\nusername = __token__\npassword = pypi-" + canary + "\n";
  if (kind == "git-credentials") return "https://batlehub:" + canary + "@github.com\n";
  if (kind == "docker-credentials")
    return "{\"auths\":{\"https://index.docker.io/v1/\":{\"auth\":\"" + canary + "\"}}}\n";
  if (kind == "kube-config")
    return "apiVersion: v1\nkind: Config\nusers:\n- name: admin\n  user:\n    token: " + canary + "\n";
  if (kind == "discord-token-store") return "_https://discord.com\x00\x01tokens\"" + canary + "\"\n";
  if (kind == "shell-history") return "export GITHUB_TOKEN=ghp_" + canary + "\n";
  return "batlehub-decoy " + canary + "\n";
}

Expected<Ok, std::string> make_dirs(const std::string& path) {
  for (std::size_t i = 1; i <= path.size(); ++i) {
    if (i != path.size() && path[i] != '/') continue;
    const std::string dir = path.substr(0, i);
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
      return Unexpected("mkdir '" + dir + "': " + std::strerror(errno));
    }
  }
  return Ok{};
}

}  // namespace

std::span<const Decoy> decoys() {
  return kDecoys;
}

Expected<std::string, std::string> make_canary() {
  std::array<unsigned char, 24> raw{};
  std::size_t got = 0;
  while (got < raw.size()) {
    ssize_t n = ::getrandom(raw.data() + got, raw.size() - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Unexpected(std::string("getrandom: ") + std::strerror(errno));
    got += static_cast<std::size_t>(n);
  }
  constexpr std::string_view kAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string out;
  for (unsigned char b : raw) out.push_back(kAlphabet[b % kAlphabet.size()]);
  return out;
}

Expected<Ok, std::string> plant(const std::string& home, std::string_view canary) {
  for (const Decoy& d : kDecoys) {
    const std::string path = home + "/" + std::string(d.path);
    if (auto ok = make_dirs(path.substr(0, path.rfind('/'))); !ok) return ok;
    base::Fd f(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600));
    if (!f.valid()) return Unexpected("creating decoy '" + path + "': " + std::strerror(errno));
    if (!base::write_all(f.get(), content(d.kind, canary))) {
      return Unexpected("writing decoy '" + path + "': " + std::strerror(errno));
    }
  }
  return Ok{};
}

const Decoy* decoy_at(std::string_view home, std::string_view as_opened) {
  // A path a Windows stealer joined with backslashes names one file on Linux, which does not
  // exist; it is the store it meant all the same.
  std::string joined(as_opened);
  std::replace(joined.begin(), joined.end(), '\\', '/');
  const std::string_view path = joined;
  if (path.size() <= home.size() + 1 || path.substr(0, home.size()) != home || path[home.size()] != '/') {
    return nullptr;
  }
  const std::string_view rel = path.substr(home.size() + 1);
  for (const Decoy& d : kDecoys) {
    if (rel == d.path) return &d;
  }
  // A store's directory (a browser profile, ~/.ssh) opened to be listed or walked.
  for (const Decoy& d : kDecoys) {
    const std::size_t slash = d.path.rfind('/');
    if (slash == std::string_view::npos) continue;
    const std::string_view dir = d.path.substr(0, slash);
    if (rel == dir || (rel.size() > dir.size() && rel.substr(0, dir.size()) == dir && rel[dir.size()] == '/'))
      return &d;
  }
  return nullptr;
}

std::vector<std::string> bait_environment(std::string_view c) {
  const std::string canary(c);
  return {"AWS_ACCESS_KEY_ID=AKIA" + canary.substr(0, 16), "AWS_SECRET_ACCESS_KEY=" + canary,
          "GITHUB_TOKEN=ghp_" + canary, "NPM_TOKEN=npm_" + canary};
}

std::vector<std::string> windows_environment(std::string_view home, std::string_view host, std::string_view user) {
  std::string computer(host);
  for (char& ch : computer) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  const std::string h(home);
  return {"COMPUTERNAME=" + computer,
          "USERDOMAIN=" + computer,
          "USERNAME=" + std::string(user),
          "USERPROFILE=" + h,
          "APPDATA=" + h + "/AppData/Roaming",
          "LOCALAPPDATA=" + h + "/AppData/Local",
          "OS=Windows_NT"};
}

bool carries_canary(std::string_view bytes, std::string_view canary) {
  if (canary.empty()) return false;
  if (bytes.find(canary) != std::string_view::npos) return true;
  std::string hex;
  for (unsigned char c : canary) {
    constexpr std::string_view kHex = "0123456789abcdef";
    hex.push_back(kHex[c >> 4]);
    hex.push_back(kHex[c & 15]);
  }
  if (bytes.find(hex) != std::string_view::npos) return true;
  // Base64 of a text with the canary at offset k (mod 3): the characters that depend only on
  // the canary's bytes are those of base64(pad_k + canary) after the ones pad_k touches,
  // less the last group, which the following text changes.
  for (std::size_t k = 0; k < 3; ++k) {
    const std::string enc = wire::base64_encode(std::string(k, '\0') + std::string(canary));
    const std::size_t skip = k == 0 ? 0 : k + 1;
    const std::size_t core_end = ((k + canary.size()) / 3) * 4;
    if (core_end <= skip + 8) continue;
    if (bytes.find(std::string_view(enc).substr(skip, core_end - skip)) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace batlehub::behavior
