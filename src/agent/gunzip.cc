#include "agent/gunzip.h"

#include <isa-l/igzip_lib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace batlehub::agent {

namespace {

// Reads of 128 KiB keep the syscalls few; 256 KiB of output per block keeps libarchive's tar
// reader (which copies nothing: it hands out views of our block) in long runs.
constexpr std::size_t kIn = 128 * 1024;
constexpr std::size_t kOut = 256 * 1024;
// Ahead of the input buffer: the unread tail of the previous fill is moved here, so that a
// gzip magic split across two reads is still seen whole.
constexpr std::size_t kCarry = 8;
// The least igzip is given at a time, but at the end of the input (refill says why).
constexpr std::size_t kMinFeed = 4096;

std::string reason(int rc) {
  switch (rc) {
    case ISAL_INVALID_BLOCK:
      return "invalid deflate block";
    case ISAL_INVALID_SYMBOL:
      return "invalid deflate symbol";
    case ISAL_INVALID_LOOKBACK:
      return "a back-reference reaches before the start of the stream";
    case ISAL_INVALID_WRAPPER:
      return "invalid gzip header";
    case ISAL_UNSUPPORTED_METHOD:
      return "the gzip compression method is not deflate";
    case ISAL_INCORRECT_CHECKSUM:
      return "the gzip trailer's CRC-32 or length does not match the inflated data";
    case ISAL_NEED_DICT:
      return "the stream asks for a preset dictionary";
    default:
      return "igzip error " + std::to_string(rc);
  }
}

void start_member(inflate_state* s) {
  isal_inflate_reset(s);
  // igzip parses the header (skipping FEXTRA, FNAME, FCOMMENT, checking FHCRC) and checks
  // the trailer itself.
  s->crc_flag = ISAL_GZIP;
}

}  // namespace

Gunzip::Gunzip(Read read)
    : read_(std::move(read)),
      state_(std::make_unique<inflate_state>()),
      in_(std::make_unique<unsigned char[]>(kCarry + kIn)),
      out_(std::make_unique<unsigned char[]>(kOut)) {
  isal_inflate_init(state_.get());
  state_->crc_flag = ISAL_GZIP;
  state_->next_in = in_.get() + kCarry;
  state_->avail_in = 0;
}

Gunzip::~Gunzip() = default;

std::unique_ptr<Gunzip> Gunzip::from_fd(int fd) {
  return std::make_unique<Gunzip>([fd](std::span<unsigned char> buf) -> Expected<std::size_t, std::string> {
    for (;;) {
      ssize_t n = ::read(fd, buf.data(), buf.size());
      if (n >= 0) return static_cast<std::size_t>(n);
      if (errno != EINTR) return Unexpected(std::string("reading the archive: ") + std::strerror(errno));
    }
  });
}

std::unique_ptr<Gunzip> Gunzip::from_memory(std::span<const unsigned char> bytes) {
  return std::make_unique<Gunzip>(
      [bytes, at = std::size_t{0}](std::span<unsigned char> buf) mutable -> Expected<std::size_t, std::string> {
        std::size_t n = std::min(buf.size(), bytes.size() - at);
        std::memcpy(buf.data(), bytes.data() + at, n);
        at += n;
        return n;
      });
}

std::uint64_t Gunzip::consumed() const {
  return read_total_ - state_->avail_in;
}

std::string Gunzip::where() const {
  return "gzip member " + std::to_string(members_) + ", at compressed byte " + std::to_string(consumed());
}

// Moves what is left of the input (at most kCarry bytes: only start_next_member calls this
// with input left) to just before the buffer, then reads after it until there are kMinFeed
// bytes or the input ends. igzip fed a byte at a time (a reader of short reads) decoded a
// valid stream as "invalid deflate block" in 7 ASan runs of 20 and in no release run (seen,
// GzipLayer.every_read_boundary_gives_the_same_bytes, step 1; not yet explained): it is never
// fed less than kMinFeed bytes but at the end of the input, which a regular file's reads
// (kIn at a time) always were.
std::optional<std::string> Gunzip::refill() {
  std::size_t left = state_->avail_in;
  unsigned char* start = in_.get() + kCarry;
  if (left > kCarry) return "igzip left " + std::to_string(left) + " bytes unread before a refill";
  std::memmove(start - left, state_->next_in, left);
  std::size_t got = 0;
  while (got < kMinFeed && !eof_) {
    auto n = read_(std::span(start + got, kIn - got));
    if (!n) return n.error();
    if (*n == 0) eof_ = true;
    got += *n;
  }
  read_total_ += got;
  state_->next_in = start - left;
  state_->avail_in = static_cast<std::uint32_t>(left + got);
  return std::nullopt;
}

// At the end of a member: true when another member follows, false at the end of the stream.
Expected<bool, std::string> Gunzip::start_next_member() {
  // After its trailer igzip holds no whole byte of input in its bit buffer (it reads the
  // trailer through it, or through its own small buffer, to the last byte; what may remain
  // is fewer than 8 bits, the padding of the deflate stream's last byte): what follows the
  // member starts at next_in. Anything else would be a byte lost or read twice: refused.
  if (state_->read_in_length >= 8 || state_->tmp_in_size != 0) {
    return Unexpected(where() + ": igzip holds " + std::to_string(state_->read_in_length) +
                      " bits past the member's trailer");
  }
  while (state_->avail_in < 2 && !eof_) {
    if (auto e = refill()) return Unexpected(std::move(*e));
  }
  if (state_->avail_in < 2 || state_->next_in[0] != 0x1f || state_->next_in[1] != 0x8b) return false;
  ++members_;
  start_member(state_.get());
  return true;
}

Expected<std::span<const unsigned char>, std::string> Gunzip::next() {
  if (done_) return std::span<const unsigned char>{};
  unsigned char* const out = out_.get();
  state_->next_out = out;
  state_->avail_out = kOut;
  auto produced = [&] { return kOut - state_->avail_out; };
  for (;;) {
    if (state_->block_state == ISAL_BLOCK_FINISH) {
      auto more = start_next_member();
      if (!more) return Unexpected(std::move(more.error()));
      if (!*more) {
        done_ = true;
        break;
      }
    }
    if (state_->avail_out == 0) break;
    if (state_->avail_in == 0 && !eof_) {
      if (auto e = refill()) return Unexpected(std::move(*e));
    }
    const std::uint32_t in_before = state_->avail_in;
    const std::uint32_t out_before = state_->avail_out;
    if (int rc = isal_inflate(state_.get()); rc != ISAL_DECOMP_OK) return Unexpected(where() + ": " + reason(rc));
    const bool moved =
        state_->avail_in != in_before || state_->avail_out != out_before || state_->block_state == ISAL_BLOCK_FINISH;
    if (moved) continue;
    // No input was taken and nothing came out: igzip needs bytes there are none of.
    if (produced() > 0) break;  // hand over what there is; the next call says why it ends
    if (eof_) return Unexpected(where() + ": the archive ends inside the gzip stream (truncated)");
    if (state_->avail_in != 0) return Unexpected(where() + ": igzip made no progress");
  }
  return std::span<const unsigned char>(out, produced());
}

}  // namespace batlehub::agent
