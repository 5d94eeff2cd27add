#include "adapters/sandbox/registry.h"

#include "base/registry.h"

namespace batlehub::adapters {
namespace {

base::NamedRegistry<RuntimeRegistration>& registry() {
  static base::NamedRegistry<RuntimeRegistration> r;
  return r;
}

}  // namespace

void register_runtime(RuntimeRegistration r) {
  config::register_runtime_schema(r.schema);  // aborts on a name already taken, before this could
  std::string name = r.schema.name;
  registry().add(std::move(name), std::move(r));
}

const RuntimeRegistration* find_runtime(std::string_view name) {
  return registry().find(name);
}

}  // namespace batlehub::adapters
