// fake_postmortem: stands in for mlab.sh's postmortem (not installable here) in the tests
// of the postmortem adapter, and reports the tree the sandbox gave it.
//
//   fake_postmortem scan . [flags…]   walk ".", print a postmortem-shaped document on stdout:
//       {"schema_version":3, "root":<cwd>, "files":[every regular file, relative, sorted],
//        "findings":[one per file whose content contains "curl": category install_hook,
//                    severity high, location <cwd>/<file>, evidence the first such line]}
//       and exit 1 when there is a finding (postmortem's "gate tripped"), else 0.
//       ("files" is this fake's own field: the adapter ignores it, the tests read it.)
//       A file named "fake-postmortem-sleep" holding a number N (at most 60) makes it sleep N
//       seconds first: a scan that is still running when a test needs one to be.
//   fake_postmortem timeline NAME …   no registry here: say so on stderr and exit 1.
//   anything else                     exit 64.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kReadCap = 1 << 20;

std::string read_capped(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::string data(kReadCap, '\0');
  in.read(data.data(), static_cast<std::streamsize>(data.size()));
  data.resize(static_cast<std::size_t>(in.gcount()));
  return data;
}

std::string first_line_with(const std::string& data, const std::string& needle) {
  std::size_t at = data.find(needle);
  std::size_t b = data.rfind('\n', at);
  b = b == std::string::npos ? 0 : b + 1;
  std::size_t e = data.find('\n', at);
  std::string line = data.substr(b, e == std::string::npos ? std::string::npos : e - b);
  line.erase(0, line.find_first_not_of(" \t"));
  return line;
}

int scan() {
  std::error_code ec;
  fs::path cwd = fs::current_path(ec);
  if (ec) {
    std::cerr << "fake postmortem: getcwd: " << ec.message() << "\n";
    return 3;
  }
  std::vector<std::string> files;
  for (auto it = fs::recursive_directory_iterator(".", fs::directory_options::none, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec) && !it->is_symlink(ec)) files.push_back(it->path().lexically_relative(".").string());
  }
  if (ec) {
    std::cerr << "fake postmortem: walking .: " << ec.message() << "\n";
    return 3;
  }
  std::sort(files.begin(), files.end());
  for (const std::string& f : files) {
    if (fs::path(f).filename() != "fake-postmortem-sleep") continue;
    int n = std::clamp(std::atoi(read_capped(f).c_str()), 0, 60);
    std::this_thread::sleep_for(std::chrono::seconds(n));
  }
  nlohmann::json findings = nlohmann::json::array();
  for (const std::string& f : files) {
    std::string data = read_capped(f);
    if (data.find("curl") == std::string::npos) continue;
    findings.push_back({{"dependency", "fake"},
                        {"severity", "high"},
                        {"category", "install_hook"},
                        {"detail", "mentions curl"},
                        {"location", (cwd / f).string()},
                        {"evidence", first_line_with(data, "curl")}});
  }
  nlohmann::json doc = {{"schema_version", 3}, {"root", cwd.string()}, {"files", files}, {"findings", findings}};
  std::cout << doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  return findings.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string cmd = argc > 1 ? argv[1] : "";
  if (cmd == "scan") return scan();
  if (cmd == "timeline") {
    std::cerr << "fake postmortem: timeline " << (argc > 2 ? argv[2] : "?") << ": no registry here\n";
    return 1;
  }
  std::cerr << "fake postmortem: unknown command '" << cmd << "'\n";
  return 64;
}
