#include "agent/extract.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <memory>

#include "agent/gunzip.h"
#include "base/fd.h"

namespace batlehub::agent {

using wire::ExtractPolicy;
using wire::ExtractReport;
using wire::FailureKind;

std::optional<ArchiveFormat> sniff(std::span<const unsigned char> head) {
  if (head.size() >= 2 && head[0] == 0x1f && head[1] == 0x8b) return ArchiveFormat::kTarGz;
  // Older sdists on PyPI (before PEP 625 made .tar.gz the one form) come as .tar.xz and
  // .tar.bz2, and some named .tar.gz are xz inside: the bytes decide, never the name.
  static constexpr unsigned char kXz[] = {0xfd, '7', 'z', 'X', 'Z', 0x00};
  if (head.size() >= sizeof kXz && std::memcmp(head.data(), kXz, sizeof kXz) == 0) return ArchiveFormat::kTarXz;
  if (head.size() >= 4 && head[0] == 'B' && head[1] == 'Z' && head[2] == 'h' && head[3] >= '1' && head[3] <= '9') {
    return ArchiveFormat::kTarBz2;
  }
  if (head.size() >= 4 && head[0] == 'P' && head[1] == 'K' &&
      ((head[2] == 3 && head[3] == 4) || (head[2] == 5 && head[3] == 6))) {
    return ArchiveFormat::kZip;
  }
  if (head.size() > 262 && std::memcmp(head.data() + 257, "ustar", 5) == 0) return ArchiveFormat::kTar;
  return std::nullopt;
}

bool looks_like_nested_archive(std::string_view name) {
  static constexpr std::array<std::string_view, 14> kSuffixes = {
      ".tar.gz", ".tgz", ".tar", ".zip", ".jar", ".war", ".gem", ".whl", ".nupkg", ".crate", ".tar.bz2", ".tar.xz",
      ".7z", ".rar"};
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return std::any_of(kSuffixes.begin(), kSuffixes.end(), [&](std::string_view s) { return lower.ends_with(s); });
}

namespace {

struct ArchiveDeleter {
  void operator()(archive* a) const { archive_read_free(a); }
};
using ArchivePtr = std::unique_ptr<archive, ArchiveDeleter>;

Unexpected<ExtractError> fail(FailureKind k, std::string msg) { return Unexpected(ExtractError{k, std::move(msg)}); }

std::string format_name(ArchiveFormat f) {
  switch (f) {
    case ArchiveFormat::kTarGz: return "gzip tar";
    case ArchiveFormat::kTarXz: return "xz tar";
    case ArchiveFormat::kTarBz2: return "bzip2 tar";
    case ArchiveFormat::kZip: return "zip";
    case ArchiveFormat::kTar: return "tar";
  }
  return "?";
}

// A reader of `f`, from `fd` when it is not -1, else from `memory`. A gzip tar's gzip layer
// is ours (gunzip.h says why), handed to libarchive's tar reader block by block; the other
// compressed forms keep libarchive's filters.
struct OpenArchive {
  std::unique_ptr<Gunzip> gunzip;  // first: it outlives the reader that reads from it
  ArchivePtr reader;
};

la_ssize_t read_inflated(archive* a, void* client, const void** block) {
  auto next = static_cast<Gunzip*>(client)->next();
  if (!next) {
    archive_set_error(a, EINVAL, "%s", next.error().c_str());
    return ARCHIVE_FATAL;
  }
  *block = next->data();
  return static_cast<la_ssize_t>(next->size());
}

Expected<OpenArchive, ExtractError> open_archive(ArchiveFormat f, int fd, std::span<const unsigned char> memory) {
  OpenArchive open;
  open.reader.reset(archive_read_new());
  archive* a = open.reader.get();
  if (a == nullptr) return fail(FailureKind::kMalformed, "cannot open the archive: out of memory");
  switch (f) {
    case ArchiveFormat::kTarGz:
      archive_read_support_format_tar(a);
      break;
    case ArchiveFormat::kTarXz:
      archive_read_support_filter_xz(a);
      archive_read_support_format_tar(a);
      break;
    case ArchiveFormat::kTarBz2:
      archive_read_support_filter_bzip2(a);
      archive_read_support_format_tar(a);
      break;
    case ArchiveFormat::kZip:
      archive_read_support_format_zip(a);
      break;
    case ArchiveFormat::kTar:
      archive_read_support_format_tar(a);
      break;
  }
  int r = ARCHIVE_OK;
  if (f == ArchiveFormat::kTarGz) {
    open.gunzip = fd >= 0 ? Gunzip::from_fd(fd) : Gunzip::from_memory(memory);
    r = archive_read_open2(a, open.gunzip.get(), nullptr, read_inflated, nullptr, nullptr);
  } else if (fd >= 0) {
    r = archive_read_open_fd(a, fd, 64 * 1024);
  } else {
    r = archive_read_open_memory(a, memory.data(), memory.size());
  }
  if (r != ARCHIVE_OK) {
    return fail(FailureKind::kMalformed,
                std::string("cannot open the archive: ") + (archive_error_string(a) ? archive_error_string(a) : "?"));
  }
  return open;
}

// The budget every entry is charged against.
class Budget {
 public:
  Budget(const ExtractPolicy& p, std::uint64_t input_size) : p_(p), input_size_(std::max<std::uint64_t>(input_size, 1)) {}

  std::optional<ExtractError> count_entry() {
    if (++entries_ > p_.max_entries) {
      return ExtractError{FailureKind::kTooManyEntries,
                          "archive has more than " + std::to_string(p_.max_entries) + " entries"};
    }
    return std::nullopt;
  }

  std::optional<ExtractError> charge(std::uint64_t bytes) {
    total_ += bytes;
    if (total_ > p_.max_extracted_bytes) {
      return ExtractError{FailureKind::kTooLarge,
                          "archive extracts to more than " + std::to_string(p_.max_extracted_bytes) + " bytes"};
    }
    if (total_ / input_size_ > p_.max_ratio) {
      return ExtractError{FailureKind::kBomb,
                          "archive decompression ratio exceeds " + std::to_string(p_.max_ratio) + ":1"};
    }
    return std::nullopt;
  }

  std::uint64_t total() const { return total_; }

 private:
  const ExtractPolicy& p_;
  std::uint64_t input_size_;
  std::uint64_t entries_ = 0;
  std::uint64_t total_ = 0;
};

std::optional<ExtractError> write_entry_data(archive* a, int out, const std::string& name, std::int64_t declared,
                                             Budget& budget, ExtractReport& report) {
  // The declared size is charged first (a header that claims too much is refused before a
  // byte is written); whatever the data then brings beyond it is charged as it arrives,
  // which is how a header that claims too little is caught.
  std::uint64_t charged = declared > 0 ? static_cast<std::uint64_t>(declared) : 0;
  if (auto e = budget.charge(charged)) return e;
  // A sparse entry's blocks carry their own offsets, and one placed past the declared size
  // grows the file by its offset, not by its length: the file's extent (the end of its
  // furthest block) is charged too, before the block is written.
  std::uint64_t seen = 0;
  std::uint64_t extent = 0;
  const void* buf = nullptr;
  size_t size = 0;
  la_int64_t offset = 0;
  for (;;) {
    int r = archive_read_data_block(a, &buf, &size, &offset);
    if (r == ARCHIVE_EOF) break;
    if (r < ARCHIVE_WARN) {
      return ExtractError{FailureKind::kMalformed, "archive entry '" + name + "': " + archive_error_string(a)};
    }
    if (offset < 0) return ExtractError{FailureKind::kMalformed, "archive entry '" + name + "': negative offset"};
    seen += size;
    extent = std::max<std::uint64_t>(extent, static_cast<std::uint64_t>(offset) + size);
    if (std::uint64_t need = std::max(seen, extent); need > charged) {
      if (auto e = budget.charge(need - charged)) return e;
      charged = need;
    }
    const char* p = static_cast<const char*>(buf);
    std::size_t left = size;
    off_t at = offset;
    while (left > 0) {
      ssize_t w = ::pwrite(out, p, left, at);
      if (w < 0) {
        if (errno == EINTR) continue;
        return ExtractError{FailureKind::kWrite, "writing '" + name + "': " + std::strerror(errno)};
      }
      p += w;
      left -= static_cast<std::size_t>(w);
      at += w;
    }
  }
  // A sparse file's length is its declared size even where its tail is a hole.
  if (declared > 0) {
    struct stat st{};
    if (::fstat(out, &st) == 0 && st.st_size < declared && ::ftruncate(out, declared) != 0) {
      return ExtractError{FailureKind::kWrite, "sizing '" + name + "': " + std::strerror(errno)};
    }
  }
  report.bytes += std::max<std::uint64_t>(std::max(seen, extent), declared > 0 ? std::uint64_t(declared) : 0);
  return std::nullopt;
}

std::string join_path(const std::vector<std::string>& c) {
  std::string out;
  for (const auto& s : c) {
    if (!out.empty()) out += '/';
    out += s;
  }
  return out;
}

// When the destination holds exactly one directory and nothing else, that directory
// takes the destination's place ("package/", "name-version/").
std::optional<ExtractError> strip_single_wrapper(WorkDir& work, const std::vector<std::string>& dest) {
  auto dir = work.mkdirs(dest);
  if (!dir) return ExtractError{FailureKind::kWrite, dir.error().message};
  int dup = ::fcntl(dir->get(), F_DUPFD_CLOEXEC, 0);
  DIR* d = dup >= 0 ? ::fdopendir(dup) : nullptr;
  if (d == nullptr) {
    if (dup >= 0) ::close(dup);
    return ExtractError{FailureKind::kWrite, std::string("listing the extraction root: ") + std::strerror(errno)};
  }
  std::string only;
  int count = 0;
  bool only_is_dir = false;
  while (dirent* e = ::readdir(d)) {
    std::string_view n = e->d_name;
    if (n == "." || n == "..") continue;
    if (++count > 1) break;
    only = n;
    struct stat st{};
    only_is_dir = ::fstatat(dir->get(), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
  }
  ::closedir(d);
  if (count != 1 || !only_is_dir) return std::nullopt;

  std::vector<std::string> parent(dest.begin(), dest.end() - 1);
  auto pdir = work.mkdirs(parent);
  if (!pdir) return ExtractError{FailureKind::kWrite, pdir.error().message};
  std::string tmp = ".batlehub-strip-" + dest.back();
  work.forget();
  if (::renameat(dir->get(), only.c_str(), pdir->get(), tmp.c_str()) != 0 ||
      ::unlinkat(pdir->get(), dest.back().c_str(), AT_REMOVEDIR) != 0 ||
      ::renameat(pdir->get(), tmp.c_str(), pdir->get(), dest.back().c_str()) != 0) {
    return ExtractError{FailureKind::kWrite, "removing the wrapper directory '" + only + "': " + std::strerror(errno)};
  }
  return std::nullopt;
}

// Every entry of `a`, written beneath `dest` (which exists), charged to `budget`.
std::optional<ExtractError> extract_entries(archive* a, ArchiveFormat format, WorkDir& work,
                                            const std::vector<std::string>& dest, Budget& budget,
                                            ExtractReport& report) {
  archive_entry* entry = nullptr;
  for (;;) {
    int r = archive_read_next_header(a, &entry);
    if (r == ARCHIVE_EOF) break;
    if (r < ARCHIVE_WARN) {
      return ExtractError{FailureKind::kMalformed,
                          format_name(format) + " archive is malformed: " +
                              (archive_error_string(a) ? archive_error_string(a) : "unknown error")};
    }
    if (auto e = budget.count_entry()) return e;

    const char* raw = archive_entry_pathname(entry);
    if (raw == nullptr) raw = archive_entry_pathname_utf8(entry);
    if (raw == nullptr) return ExtractError{FailureKind::kMalformed, "archive entry has no readable name"};
    std::string name = raw;
    auto parts = normalise_entry_path(name);
    if (!parts) {
      return ExtractError{FailureKind::kTraversal,
                          "archive entry '" + name + "' escapes the extraction root (" + parts.error() + ")"};
    }
    if (parts->empty()) continue;  // "." or "./": the root itself

    mode_t type = archive_entry_filetype(entry);
    bool hardlink = archive_entry_hardlink(entry) != nullptr;
    std::vector<std::string> full = dest;
    full.insert(full.end(), parts->begin(), parts->end());

    if (type == AE_IFDIR && !hardlink) {
      auto d = work.mkdirs(full);
      if (!d) return ExtractError{FailureKind::kWrite, d.error().message};
      ++report.directories;
      continue;
    }
    if (type != AE_IFREG || hardlink) {
      // Symlinks, hardlinks, devices, fifos, sockets: never created.
      ++report.refused_by_type;
      continue;
    }
    std::int64_t declared = archive_entry_size_is_set(entry) ? archive_entry_size(entry) : 0;
    if (declared < 0) return ExtractError{FailureKind::kMalformed, "archive entry '" + name + "' has a negative size"};
    auto out = work.create_file(full, /*exclusive=*/false);
    if (!out) return ExtractError{FailureKind::kWrite, out.error().message};
    if (auto e = write_entry_data(a, out->get(), name, declared, budget, report)) return e;
    ++report.files;
    if (looks_like_nested_archive(parts->back())) ++report.nested_archives;
  }
  return std::nullopt;
}

// The member `member` of the extracted tree at `dest`: taken out of the tree (opened, then
// unlinked, so nothing the inner archive writes can land on the bytes being read), then
// extracted into the directory that held it under the same budget.
std::optional<ExtractError> descend_member(WorkDir& work, const std::vector<std::string>& dest,
                                           const std::vector<std::string>& member, Budget& budget,
                                           ExtractReport& report) {
  const std::string shown = join_path(member);
  auto in_member = [&](ExtractError e) {
    e.message = "in '" + shown + "': " + e.message;
    return e;
  };
  std::vector<std::string> full = dest;
  full.insert(full.end(), member.begin(), member.end());
  std::vector<std::string> parent(full.begin(), full.end() - 1);
  if (!work.exists(full)) {
    return ExtractError{FailureKind::kMalformed, "the archive holds no '" + shown + "' to extract"};
  }
  auto dir = work.mkdirs(parent);
  if (!dir) return ExtractError{FailureKind::kWrite, dir.error().message};
  base::Fd fd(::openat(dir->get(), full.back().c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st{};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return ExtractError{FailureKind::kMalformed, "'" + shown + "' in the archive is not a regular file"};
  }
  if (::unlinkat(dir->get(), full.back().c_str(), 0) != 0) {
    return ExtractError{FailureKind::kWrite, "removing '" + shown + "': " + std::strerror(errno)};
  }
  // It was counted as an archive left as a file when it was written; it is not one now.
  if (looks_like_nested_archive(full.back()) && report.nested_archives > 0) --report.nested_archives;

  std::array<unsigned char, 512> head{};
  ssize_t n = ::pread(fd.get(), head.data(), head.size(), 0);
  if (n < 0) return ExtractError{FailureKind::kWrite, "reading '" + shown + "': " + std::strerror(errno)};
  auto format = sniff(std::span(head.data(), static_cast<std::size_t>(n)));
  if (!format) {
    return in_member(ExtractError{FailureKind::kUnrecognised,
                                  "archive format not recognised (not a tar — plain, gzip, xz or bzip2 — nor a zip)"});
  }
  auto open = open_archive(*format, fd.get(), {});
  if (!open) return in_member(std::move(open.error()));
  if (auto e = extract_entries(open->reader.get(), *format, work, parent, budget, report)) {
    return in_member(std::move(*e));
  }
  return std::nullopt;
}

Expected<ExtractReport, ExtractError> extract_from(archive* a, ArchiveFormat format, std::uint64_t input_size,
                                                   const ExtractTarget& target, const ExtractPolicy& policy) {
  WorkDir& work = *target.work;
  if (work.exists(target.dest)) {
    return fail(FailureKind::kWrite, "'" + join_path(target.dest) + "' already exists in the work dir");
  }
  if (auto root = work.mkdirs(target.dest); !root) return fail(FailureKind::kWrite, root.error().message);

  // One budget for the archive and the member it descends: the ratio stays against the
  // bytes that came over the wire.
  Budget budget(policy, input_size);
  ExtractReport report;
  if (auto e = extract_entries(a, format, work, target.dest, budget, report)) return Unexpected(std::move(*e));
  if (target.strip_wrapper) {
    if (auto e = strip_single_wrapper(work, target.dest)) return Unexpected(*e);
  }
  if (!target.descend.empty()) {
    if (auto e = descend_member(work, target.dest, target.descend, budget, report)) return Unexpected(std::move(*e));
  }
  return report;
}

}  // namespace

Expected<ExtractReport, ExtractError> extract_fd(int fd, std::uint64_t size, const ExtractTarget& target,
                                                const ExtractPolicy& policy) {
  std::array<unsigned char, 512> head{};
  ssize_t n = ::pread(fd, head.data(), head.size(), 0);
  if (n < 0) return fail(FailureKind::kWrite, std::string("reading the archive: ") + std::strerror(errno));
  auto format = sniff(std::span(head.data(), static_cast<std::size_t>(n)));
  if (!format) return fail(FailureKind::kUnrecognised, "archive format not recognised (not a tar — plain, gzip, xz or bzip2 — nor a zip)");
  if (::lseek(fd, 0, SEEK_SET) != 0) return fail(FailureKind::kWrite, std::string("seek: ") + std::strerror(errno));
  auto open = open_archive(*format, fd, {});
  if (!open) return Unexpected(std::move(open.error()));
  return extract_from(open->reader.get(), *format, size, target, policy);
}

Expected<ExtractReport, ExtractError> extract_memory(std::span<const unsigned char> bytes, const ExtractTarget& target,
                                                    const ExtractPolicy& policy) {
  auto format = sniff(bytes.first(std::min<std::size_t>(bytes.size(), 512)));
  if (!format) return fail(FailureKind::kUnrecognised, "archive format not recognised (not a tar — plain, gzip, xz or bzip2 — nor a zip)");
  auto open = open_archive(*format, -1, bytes);
  if (!open) return Unexpected(std::move(open.error()));
  return extract_from(open->reader.get(), *format, bytes.size(), target, policy);
}

}  // namespace batlehub::agent
