#include "server/artifact_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>

#include "adapters/sandbox/blob.h"
#include "base/fd.h"

namespace batlehub::server {

namespace fs = std::filesystem;

bool is_sha256_hex(std::string_view s) {
  if (s.size() != 64) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

std::string ArtifactStore::path_of(const std::string& sha256) const {
  return root_ + "/sha256/" + sha256;
}

Expected<std::string, std::string> ArtifactStore::put_file(const std::string& path) const {
  base::Fd in(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!in.valid()) return Unexpected(path + ": cannot be opened: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(in.get(), &st) != 0 || !S_ISREG(st.st_mode)) return Unexpected(path + ": is not a regular file");

  std::error_code ec;
  fs::create_directories(root_ + "/sha256", ec);
  if (ec) return Unexpected(root_ + "/sha256: cannot be created: " + ec.message());
  // Hashed while copied, so what is stored is exactly what was hashed.
  std::string tmp = root_ + "/sha256/.incoming-XXXXXX";
  base::Fd out(::mkostemp(tmp.data(), O_CLOEXEC));
  if (!out.valid()) return Unexpected(root_ + "/sha256: cannot create a file: " + std::strerror(errno));
  auto cleanup = [&] { ::unlink(tmp.c_str()); };

  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> md(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!md || EVP_DigestInit_ex(md.get(), EVP_sha256(), nullptr) != 1) {
    cleanup();
    return Unexpected(std::string("sha256: OpenSSL could not start a digest"));
  }
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(in.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      cleanup();
      return Unexpected(path + ": cannot be read: " + std::strerror(errno));
    }
    if (n == 0) break;
    EVP_DigestUpdate(md.get(), buf, static_cast<std::size_t>(n));
    if (!base::write_all(out.get(), std::string_view(buf, static_cast<std::size_t>(n)))) {
      cleanup();
      return Unexpected(tmp + ": cannot be written: " + std::strerror(errno));
    }
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(md.get(), digest, &len);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < len; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 15];
  }
  if (::fsync(out.get()) != 0 || ::fchmod(out.get(), 0444) != 0) {
    cleanup();
    return Unexpected(tmp + ": cannot be synced: " + std::strerror(errno));
  }
  // rename() replaces an identical artifact stored meanwhile: same bytes, same name.
  if (::rename(tmp.c_str(), path_of(hex).c_str()) != 0) {
    cleanup();
    return Unexpected(path_of(hex) + ": cannot be stored: " + std::strerror(errno));
  }
  return hex;
}

Expected<std::shared_ptr<const core::Blob>, std::string> ArtifactStore::get(const std::string& sha256) const {
  if (!is_sha256_hex(sha256))
    return Unexpected("artifact id \"" + sha256 + "\" is not a sha256 (64 lowercase hex digits)");
  // The store wrote the file under the hash it computed while copying it in (put_file).
  auto b = adapters::file_blob(path_of(sha256), sha256);
  if (!b) return Unexpected("artifact sha256:" + sha256 + " is not in the store at " + root_ + ": " + b.error());
  return std::move(*b);
}

}  // namespace batlehub::server
