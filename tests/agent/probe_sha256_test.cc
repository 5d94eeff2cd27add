// sha256_file, which names each of the probe's commands by its SHA-256 (mbedTLS's since the
// agent left OpenSSL): the FIPS 180-2 vectors, and a file longer than one 64 KiB read.
#include <gtest/gtest.h>

#include <string>

#include "agent/probe.h"
#include "scratch.h"

namespace batlehub::agent {
namespace {

using namespace batlehub::testing;

TEST(Sha256File, gives_the_fips_vectors_and_the_size) {
  Scratch s;
  struct Vector {
    std::string bytes;
    const char* digest;
  } vectors[] = {
      {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
      // One million 'a's: sixteen reads of the 64 KiB buffer and a part of one.
      {std::string(1'000'000, 'a'), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
  };
  for (const auto& v : vectors) {
    fs::path f = s.root() / "in";
    Scratch::write(f, v.bytes);
    std::uint64_t size = 0;
    EXPECT_EQ(sha256_file(f.string(), &size), v.digest) << v.bytes.size() << " bytes";
    EXPECT_EQ(size, v.bytes.size());
  }
  EXPECT_EQ(sha256_file((s.root() / "missing").string(), nullptr), "");
}

}  // namespace
}  // namespace batlehub::agent
