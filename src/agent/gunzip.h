// The gzip layer of a .tar.gz, inflated with ISA-L's igzip (RFC 0022 §4.2: extraction is
// the agent's own work, and most of its time is inflate).
//
// Why ISA-L: measured on a 100 MiB npm-shaped archive, zlib's inflate_fast was ~46 % of the
// agent's extraction; igzip inflates the same deflate streams about three times faster, in
// bounded memory (a 32 KiB window, our two buffers), and links statically
// (scripts/install-isal.sh builds it from Debian 12's source package, which ships no .a).
// libdeflate inflates whole buffers only — the uncompressed tar would have to sit in memory —
// and zlib-ng is not in Debian 12. zlib stays for what ISA-L does not read here: a zip's
// deflated members (libarchive's zip reader) and a gem's metadata.gz (identify_tree.cc).
//
// What it reads, and refuses, is what gzip(1) does: one or more members, each a gzip header
// (its optional fields parsed and skipped by igzip), a deflate stream, and a trailer whose
// CRC-32 and length must match what was inflated. After the last member, bytes that do not
// start another member are ignored, as gzip and libarchive's filter ignore them. A stream
// that ends inside a member is an error, as is any bad block, symbol, distance or header;
// each error names the member and the compressed offset. Nothing here limits the output: the
// extractor charges every entry's bytes to its Budget, against the archive's compressed size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "base/expected.h"

struct inflate_state;  // <isa-l/igzip_lib.h>: kept out of this header, as libarchive's types are

namespace batlehub::agent {

class Gunzip {
 public:
  // Fills the buffer with the next compressed bytes; 0 at the end; an error says why.
  using Read = std::function<Expected<std::size_t, std::string>(std::span<unsigned char>)>;

  static std::unique_ptr<Gunzip> from_fd(int fd);
  // Reads `bytes`, which must outlive the Gunzip (fuzzing, tests, extract_memory).
  static std::unique_ptr<Gunzip> from_memory(std::span<const unsigned char> bytes);

  explicit Gunzip(Read read);
  ~Gunzip();
  Gunzip(const Gunzip&) = delete;
  Gunzip& operator=(const Gunzip&) = delete;

  // The next inflated bytes, valid until the next call; empty once the last member has ended.
  Expected<std::span<const unsigned char>, std::string> next();

  // Members begun so far (1 while reading the first).
  std::uint64_t members() const { return members_; }

 private:
  Expected<bool, std::string> start_next_member();
  std::optional<std::string> refill();
  std::uint64_t consumed() const;
  std::string where() const;

  Read read_;
  std::unique_ptr<inflate_state> state_;
  std::unique_ptr<unsigned char[]> in_;
  std::unique_ptr<unsigned char[]> out_;
  std::uint64_t read_total_ = 0;
  std::uint64_t members_ = 1;
  bool eof_ = false;
  bool done_ = false;
};

}  // namespace batlehub::agent
