#include "archive_builder.h"

#include <archive.h>
#include <archive_entry.h>

#include <memory>
#include <stdexcept>

namespace batlehub::testing {

namespace {
la_ssize_t append(archive*, void* client, const void* buf, size_t n) {
  static_cast<std::string*>(client)->append(static_cast<const char*>(buf), n);
  return static_cast<la_ssize_t>(n);
}
}  // namespace

std::string make_archive(Kind kind, const std::vector<TestEntry>& entries) {
  std::string out;
  std::unique_ptr<archive, decltype(&archive_write_free)> a(archive_write_new(), archive_write_free);
  if (kind == Kind::kZip) {
    archive_write_set_format_zip(a.get());
  } else {
    archive_write_set_format_pax_restricted(a.get());
    if (kind == Kind::kTarGz) archive_write_add_filter_gzip(a.get());
    if (kind == Kind::kTarXz) archive_write_add_filter_xz(a.get());
    if (kind == Kind::kTarBz2) archive_write_add_filter_bzip2(a.get());
  }
  archive_write_set_bytes_in_last_block(a.get(), 1);
  if (archive_write_open(a.get(), &out, nullptr, append, nullptr) != ARCHIVE_OK) {
    throw std::runtime_error(archive_error_string(a.get()));
  }
  for (const TestEntry& t : entries) {
    std::unique_ptr<archive_entry, decltype(&archive_entry_free)> e(archive_entry_new(), archive_entry_free);
    archive_entry_set_pathname(e.get(), t.name.c_str());
    archive_entry_set_filetype(e.get(), t.type);
    archive_entry_set_perm(e.get(), t.perm);
    if (t.hardlink) {
      archive_entry_set_hardlink(e.get(), t.link.c_str());
    } else if (!t.link.empty()) {
      archive_entry_set_symlink(e.get(), t.link.c_str());
    }
    bool has_data = t.type == 0100000 && !t.hardlink;
    archive_entry_set_size(e.get(), has_data ? t.declared_size.value_or(static_cast<std::int64_t>(t.data.size())) : 0);
    if (archive_write_header(a.get(), e.get()) < ARCHIVE_WARN) throw std::runtime_error(archive_error_string(a.get()));
    if (has_data && !t.data.empty()) archive_write_data(a.get(), t.data.data(), t.data.size());
  }
  archive_write_close(a.get());
  return out;
}

}  // namespace batlehub::testing
