#include "agent/out_tar.h"

#include <archive.h>
#include <archive_entry.h>

#include <cstdio>
#include <cstring>
#include <memory>

#include "wire/caps.h"

namespace batlehub::agent {

namespace {
struct ReadDeleter {
  void operator()(archive* a) const { archive_read_free(a); }
};

// One ustar header block for a regular file (POSIX.1-1988 layout).
void put_header(std::string& out, std::string_view name, std::size_t size) {
  char h[512] = {};
  std::memcpy(h, name.data(), name.size());
  std::snprintf(h + 100, 8, "%07o", 0644);
  std::snprintf(h + 108, 8, "%07o", 0);
  std::snprintf(h + 116, 8, "%07o", 0);
  std::snprintf(h + 124, 12, "%011llo", static_cast<unsigned long long>(size));
  std::snprintf(h + 136, 12, "%011o", 0);
  h[156] = '0';
  std::memcpy(h + 257, "ustar", 6);
  std::memcpy(h + 263, "00", 2);
  std::memset(h + 148, ' ', 8);
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  std::snprintf(h + 148, 8, "%06o", sum);
  h[155] = ' ';
  out.append(h, sizeof h);
}

void put_file(std::string& out, std::string_view name, std::string_view data) {
  put_header(out, name, data.size());
  out.append(data);
  out.append((512 - data.size() % 512) % 512, '\0');
}
}  // namespace

// Written by hand rather than with libarchive's writer: its ustar writer pulls in the table
// of every write format (xar, and with it libxml2) and the agent links statically. Two
// fixed entries need none of that; the reader below, which faces hostile bytes, is
// libarchive's.
Expected<std::string, std::string> build_out_tar(std::string_view result_json, std::string_view stdout_bytes) {
  if (stdout_bytes.size() > wire::kStdoutCapBytes || result_json.size() > wire::kResultMaxBytes) {
    return Unexpected(std::string("out.tar: an entry exceeds its cap"));
  }
  std::string out;
  out.reserve(result_json.size() + stdout_bytes.size() + 4 * 512);
  put_file(out, "result.json", result_json);
  put_file(out, "stdout", stdout_bytes);
  out.append(1024, '\0');
  return out;
}

Expected<OutTar, std::string> read_out_tar(std::string_view tar) {
  if (tar.size() > wire::kOutTarMaxBytes) {
    return Unexpected("out.tar is " + std::to_string(tar.size()) + " bytes, more than the " +
                      std::to_string(wire::kOutTarMaxBytes) + " allowed");
  }
  std::unique_ptr<archive, ReadDeleter> a(archive_read_new());
  archive_read_support_format_tar(a.get());
  if (archive_read_open_memory(a.get(), tar.data(), tar.size()) != ARCHIVE_OK) {
    return Unexpected(std::string("out.tar is not a tar: ") + archive_error_string(a.get()));
  }
  OutTar out;
  bool have_result = false, have_stdout = false;
  archive_entry* e = nullptr;
  for (;;) {
    int r = archive_read_next_header(a.get(), &e);
    if (r == ARCHIVE_EOF) break;
    if (r != ARCHIVE_OK) return Unexpected(std::string("out.tar is malformed: ") + archive_error_string(a.get()));
    const char* name = archive_entry_pathname(e);
    std::string_view n = name ? name : "";
    std::string* dest = nullptr;
    std::size_t cap = 0;
    if (n == "result.json" && !have_result) {
      dest = &out.result_json;
      cap = wire::kResultMaxBytes;
      have_result = true;
    } else if (n == "stdout" && !have_stdout) {
      dest = &out.stdout_bytes;
      cap = wire::kStdoutCapBytes;
      have_stdout = true;
    } else {
      return Unexpected("out.tar holds an unexpected entry '" + std::string(n.substr(0, 100)) + "'");
    }
    if (archive_entry_filetype(e) != AE_IFREG) return Unexpected("out.tar entry '" + std::string(n) + "' is not a file");
    la_int64_t size = archive_entry_size(e);
    if (size < 0 || static_cast<std::uint64_t>(size) > cap) {
      return Unexpected("out.tar entry '" + std::string(n) + "' declares " + std::to_string(size) +
                        " bytes, more than the " + std::to_string(cap) + " allowed");
    }
    dest->resize(static_cast<std::size_t>(size));
    la_ssize_t got = size > 0 ? archive_read_data(a.get(), dest->data(), dest->size()) : 0;
    if (got != size) return Unexpected("out.tar entry '" + std::string(n) + "' is truncated");
  }
  if (!have_result) return Unexpected(std::string("out.tar has no result.json"));
  if (!have_stdout) return Unexpected(std::string("out.tar has no stdout"));
  return out;
}

}  // namespace batlehub::agent
