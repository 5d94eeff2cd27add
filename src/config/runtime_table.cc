#include "config/runtime_table.h"

#include <cstdio>
#include <cstdlib>

#include "base/registry.h"

namespace batlehub::config {

std::vector<std::string> RuntimeTables::keys_of(std::string_view name) const {
  auto it = tables_.find(name);
  return it == tables_.end() ? std::vector<std::string>{} : it->second.keys;
}

void RuntimeTables::set_keys(std::string_view name, std::vector<std::string> keys) {
  auto it = tables_.find(name);
  if (it != tables_.end()) it->second.keys = std::move(keys);
}

bool RuntimeTables::operator==(const RuntimeTables& o) const {
  if (tables_.size() != o.tables_.size()) return false;
  for (auto a = tables_.begin(), b = o.tables_.begin(); a != tables_.end(); ++a, ++b) {
    if (a->first != b->first || a->second.keys != b->second.keys) return false;
    if (!a->second.equal(a->second.value, b->second.value)) return false;
  }
  return true;
}

void TableCheck::range(const std::string& key, std::int64_t v, std::int64_t lo, std::int64_t hi, std::string_view why) {
  const std::string name = key.substr(key.find_last_of('.') + 1);
  if (v < lo) refuse(key, name + " = " + std::to_string(v) + " must be at least " + std::to_string(lo));
  if (v > hi) {
    std::string m = name + " = " + std::to_string(v) + " must be at most " + std::to_string(hi);
    if (!why.empty()) m += " (" + std::string(why) + ")";
    refuse(key, m);
  }
}

void TableCheck::not_empty(const std::string& key, const std::string& v) {
  if (v.empty()) refuse(key, key.substr(key.find_last_of('.') + 1) + " must not be empty");
}

namespace {

base::NamedRegistry<RuntimeSchema>& registry() {
  static base::NamedRegistry<RuntimeSchema> r;
  return r;
}

}  // namespace

void register_runtime_schema(RuntimeSchema schema) {
  std::string name = schema.name;
  if (!registry().add(name, std::move(schema))) {
    // Before main, with no logger yet: a duplicate is a build mistake, stopped loudly.
    std::fprintf(stderr, "batlehub: two sandbox runtimes are registered as \"%s\"\n", name.c_str());
    std::abort();
  }
}

const RuntimeSchema* find_runtime_schema(std::string_view name) {
  return registry().find(name);
}

std::vector<const RuntimeSchema*> runtime_schemas() {
  return registry().all();
}

std::optional<std::int64_t> shared_integer(const SandboxConfig& s, std::string_view table, std::string_view key) {
  const RuntimeSchema* r = find_runtime_schema(table);
  if (r == nullptr || !r->shared_integer) return std::nullopt;
  return r->shared_integer(s, key);
}

std::string runtime_names() {
  std::string out;
  for (const RuntimeSchema* s : runtime_schemas()) out += (out.empty() ? "" : ", ") + s->name;
  return out.empty() ? std::string("(no runtime is registered in this build)") : out;
}

}  // namespace batlehub::config
