// One registration per sandbox runtime: its configuration table (config/runtime_table.h), its
// builder and its hint, declared in its own adapter and listed once in runtimes.cc. The
// composition root (server/root/builders.cc) builds whichever runtime [worker.sandbox]
// names by looking it up here; it knows no runtime by name. docs/architecture.md, "Adding a
// runtime".
//
// Registration is static, as Envoy registers its extensions: a RegisterRuntime object at
// namespace scope, constructed before main. The list's objects are linked into every binary
// that links batlehub_sandboxes (src/adapters/CMakeLists.txt), so that no linker drops them.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "adapters/storage/bundle.h"
#include "config/config.h"
#include "core/sandbox.h"

namespace batlehub::adapters {

// What a builder gets from the composition root: the whole configuration and what the root
// alone can make or knows.
struct RuntimeContext {
  const config::Config& config;
  const core::Env& env;
  // Where a run's scratch directory goes: $TMPDIR, else /tmp.
  std::string scratch_dir;
  // How many runs may be in flight at once (the pool's budget).
  std::uint64_t slots = 1;
  // Each sandboxed scanner's image (config::image_for), and the image of a run of anything
  // else (config::default_image); empty under a runtime without images.
  std::map<std::string, std::string> images;
  std::string default_image;
  // The storage transport's bundle store ([worker.sandbox] bundle_backend, else [storage]'s
  // default), made on demand: only a runtime whose runs go through storage asks for it.
  std::function<Expected<std::shared_ptr<BundleStore>, std::string>()> bundles;
};

using RuntimeBuilder =
    std::function<Expected<std::unique_ptr<core::SandboxRuntime>, std::string>(const RuntimeContext&)>;

struct RuntimeRegistration {
  config::RuntimeSchema schema;
  // Builds the runtime from its table. An error says why on its first line; it is never a
  // fallback to another runtime.
  RuntimeBuilder build;
  // What the host must give the runtime, one sentence, said under an error of its builder
  // (its operations page says it at length).
  std::string hint;
};

// Where the registration of a runtime whose runs are opened from an image starts: its
// table's name, and the table's `image` key as the image of a scanner that names none
// (config::image_for).
template <class Table>
RuntimeRegistration image_runtime_registration() {
  RuntimeRegistration r;
  r.schema.name = std::string(Table::kName);
  r.schema.image_runtime = true;
  r.schema.image = [](const config::SandboxConfig& s) { return s.tables.template get<Table>().image; };
  return r;
}

// Registers the schema with the configuration too. A second registration under a name
// already taken aborts, naming it.
void register_runtime(RuntimeRegistration r);
const RuntimeRegistration* find_runtime(std::string_view name);

struct RegisterRuntime {
  explicit RegisterRuntime(RuntimeRegistration r) { register_runtime(std::move(r)); }
};

}  // namespace batlehub::adapters
