// fuzz_metadata: the agent's metadata readers (agent/identify_tree.h) and the worker's reader
// of their answer (wire::parse_identity), on any bytes. The first byte picks the reader
// (package.json, core metadata, Cargo.toml, gem metadata, gzipped gem metadata, the identity
// document); the rest is the file. Oracles: whatever a reader accepts has a kind it reads,
// a name and a version by that kind's grammar, and survives serialize() → parse_identity()
// unchanged — what the agent may print, the worker must accept as it was; whatever
// parse_identity accepts survives serialize() → parse_identity() too.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "agent/identify_tree.h"
#include "wire/identity.h"

namespace {

using batlehub::agent::MetadataReading;
namespace wire = batlehub::wire;

void round_trip(const wire::IdentityAnswer& a, const char* what) {
  std::string text = wire::serialize(a);
  auto back = wire::parse_identity(text);
  if (!back) {
    std::fprintf(stderr, "fuzz_metadata: %s: serialize() output was refused: %s\n%s\n", what,
                 back.error().describe("identity").c_str(), text.c_str());
    __builtin_trap();
  }
  if (!(*back == a)) {
    std::fprintf(stderr, "fuzz_metadata: %s: the round trip changed the answer\n%s\n", what, text.c_str());
    __builtin_trap();
  }
}

void check(const MetadataReading& r, const char* kind) {
  if (!r) return;
  if (r->kind != kind || !wire::valid_package_name(r->kind, r->name) || !wire::valid_package_version(r->kind, r->version)) {
    std::fprintf(stderr, "fuzz_metadata: accepted %s %s@%s\n", r->kind.c_str(), r->name.c_str(), r->version.c_str());
    __builtin_trap();
  }
  round_trip(*r, kind);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  constexpr std::string_view from = "pkg/file";
  switch (data[0] % 6) {
    case 0: check(batlehub::agent::read_package_json(bytes, from), "npm"); break;
    case 1: check(batlehub::agent::read_core_metadata(bytes, from), "pypi"); break;
    case 2: check(batlehub::agent::read_cargo_toml(bytes, from), "cargo"); break;
    case 3: check(batlehub::agent::read_gem_metadata(bytes, from), "rubygems"); break;
    case 4: {
      auto plain = batlehub::agent::gunzip_bounded(bytes, batlehub::agent::kMetadataMaxBytes);
      if (plain && plain->size() > batlehub::agent::kMetadataMaxBytes) __builtin_trap();
      if (plain) check(batlehub::agent::read_gem_metadata(*plain, from), "rubygems");
      break;
    }
    default: {
      auto doc = wire::parse_identity(bytes);
      if (doc) round_trip(*doc, "parse_identity");
      break;
    }
  }
  return 0;
}
