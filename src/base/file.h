// Reading a file the worker or the agent did not write itself — a configuration, a rules
// file, an out.tar, a file:// input — bounded: only a regular file, its size checked
// before a byte is allocated for it, and never more than the bound read even when it
// grows meanwhile. One implementation for every such read (it was written four times).
#pragma once

#include <cstdint>
#include <string>

#include "base/expected.h"
#include "base/fd.h"

namespace batlehub::base {

struct FileError {
  enum class Kind {
    kOpen,        // open(2) failed: `err`
    kStat,        // fstat(2) failed: `err`
    kNotRegular,  // a directory, a FIFO, a device…
    kTooLarge,    // over the bound: `size` is what was found (at open, or read)
    kRead,        // read(2) failed: `err`
  };
  Kind kind = Kind::kOpen;
  int err = 0;
  std::uint64_t size = 0;
  bool grew = false;  // kTooLarge: it was within the bound at open and grew past it while read
};

struct OpenOptions {
  bool follow_links = true;  // false: O_NOFOLLOW, a symlink is refused at open
};

// Opens a regular file for reading (O_NONBLOCK, so that a FIFO never waits for a writer
// before it is refused) and says its size at open.
Expected<Fd, FileError> open_regular(const std::string& path, std::uint64_t* size, OpenOptions o = {});

struct FileBytes {
  std::string bytes;
  std::uint64_t size_at_open = 0;  // differs from bytes.size() when the file changed while read
};

// The whole file, refused over `max` bytes before reading (by its size at open) and while
// reading (at most max + 1 bytes are read).
Expected<FileBytes, FileError> read_regular_file(const std::string& path, std::uint64_t max, OpenOptions o = {});

// A small file of the kernel's (procfs, cgroupfs), read whole: "" when it cannot be read
// or is over `max` bytes. Such files say size 0, so the bound is on what is read.
std::string read_small_file(const std::string& path, std::size_t max = 64 * 1024);

}  // namespace batlehub::base
