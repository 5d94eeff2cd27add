// fuzz_config: the configuration loader (config/load.cc, config/expand.cc) on any bytes. A
// configuration file is the operator's, not an attacker's, but it is the first thing the
// worker parses and its ${VAR} pass is a lexer of its own: it must never crash, read past
// its input or grow past the loader's 1 MiB bound, and a file that loads must validate again
// to the same answer (the loader and validate() agree).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string_view>

#include "config/config.h"
#include "config/expand.h"

namespace config = batlehub::config;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // A long value: expansion must keep to its bound however often the file names it.
  static const config::Env env = config::env_of({{"SET", "value"}, {"LONG", std::string(4096, 'x')}});
  auto expanded = config::expand_variables(text, env, config::kMaxConfigBytes);
  if (expanded && expanded->size() > config::kMaxConfigBytes) {
    std::fprintf(stderr, "fuzz_config: the expansion grew past its bound\n");
    __builtin_trap();
  }
  auto loaded = config::load_string(text, "fuzz.toml", env);
  if (loaded && !config::validate(loaded->config, env, loaded->origin)) {
    std::fprintf(stderr, "fuzz_config: a loaded configuration that validate() refuses\n");
    __builtin_trap();
  }
  return 0;
}
