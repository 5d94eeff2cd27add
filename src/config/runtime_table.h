// How the configuration knows the sandbox runtimes: only through their registrations. Each
// runtime's adapter declares its [worker.sandbox.<name>] table — a value type of its own, the
// keys it reads with their types, the rules of their values and the messages — as a
// RuntimeSchema; adapters/sandbox/registry.h registers it beside the runtime's builder. The
// configuration holds the tables without knowing their types (RuntimeTables) and asks the
// schema whatever a rule of [worker.sandbox] needs: whether runs are opened from an image,
// which image, whether bundles go through the storage backend. docs/architecture.md,
// "Adding a runtime".
#pragma once

#include <any>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <typeinfo>
#include <utility>
#include <vector>

#include "core/env.h"

namespace batlehub::config {

struct SandboxConfig;

// The runtimes' tables of one [worker.sandbox], each as its adapter's own value type (a
// struct with `static constexpr std::string_view kName` and defaults in its initialisers).
// Copyable and comparable, as the rest of Config is.
class RuntimeTables {
 public:
  // The file's table, else the type's defaults (a runtime whose table is absent reads those).
  template <class T>
  const T& get() const {
    static const T kDefaults{};
    auto it = tables_.find(T::kName);
    if (it == tables_.end()) return kDefaults;
    return std::any_cast<const T&>(it->second.value);
  }
  // Sets a table as though the file had it, with the keys the file set (for the inert rule).
  template <class T>
  void set(T value, std::vector<std::string> keys = {}) {
    tables_.insert_or_assign(std::string(T::kName), Entry{std::any(std::move(value)), &equal<T>, std::move(keys)});
  }
  // Records which keys the file set in the table `name` (the loader, once `read` returned).
  void set_keys(std::string_view name, std::vector<std::string> keys);
  // Whether the file had [worker.sandbox.<name>].
  bool has(std::string_view name) const { return tables_.find(name) != tables_.end(); }
  // The keys the file set in it, in file order; empty when it had no such table.
  std::vector<std::string> keys_of(std::string_view name) const;

  bool operator==(const RuntimeTables& o) const;

 private:
  struct Entry {
    std::any value;
    bool (*equal)(const std::any&, const std::any&) = nullptr;
    std::vector<std::string> keys;
  };
  template <class T>
  static bool equal(const std::any& a, const std::any& b) {
    return a.type() == b.type() && std::any_cast<const T&>(a) == std::any_cast<const T&>(b);
  }
  std::map<std::string, Entry, std::less<>> tables_;
};

// What a schema reads its table through. Each accessor marks its key as known; once `read`
// returns, any key it did not ask for is refused ("unknown key 'x' in [worker.sandbox.oci]",
// with a did-you-mean). A wrong type or a value outside `names` is refused by the accessor,
// with the file's line.
class TableReader {
 public:
  virtual ~TableReader() = default;
  virtual std::optional<std::string> str(std::string_view key) = 0;
  virtual std::optional<std::int64_t> integer(std::string_view key) = 0;
  virtual std::optional<bool> boolean(std::string_view key) = 0;
  virtual std::optional<std::vector<std::string>> strings(std::string_view key) = 0;
  virtual std::optional<std::map<std::string, std::string>> string_map(std::string_view key) = 0;
  // A string that must be one of `names`: `engine = "containerd" is not one of podman, docker`.
  virtual std::optional<std::string> one_of(std::string_view key, const std::vector<std::string_view>& names) = 0;
};

// What a schema's rules refuse and warn through. `key` is dotted from the file's root
// ("worker.sandbox.oci.binary"); the line comes from where the file set it. refuse never
// returns: the first refusal is the validation's answer.
class TableCheck {
 public:
  virtual ~TableCheck() = default;
  [[noreturn]] virtual void refuse(const std::string& key, std::string message) = 0;
  virtual void warn(const std::string& key, std::string message) = 0;
  virtual const core::Env& env() const = 0;

  // `name = v must be at least lo` / `… at most hi (why)`.
  void range(const std::string& key, std::int64_t v, std::int64_t lo, std::int64_t hi, std::string_view why = "");
  // `name must not be empty`.
  void not_empty(const std::string& key, const std::string& v);
};

// One runtime as the configuration sees it. Only `name` is required: a runtime with no
// table of its own (none) leaves `read` empty, and a [worker.sandbox.<name>] table is then
// an unknown key.
struct RuntimeSchema {
  // `[worker.sandbox] runtime = "<name>"`, and its table [worker.sandbox.<name>].
  std::string name;
  // Runs are opened from an image and /work is memory-backed (RFC 0022 §4.2): scanners may
  // name an image, each sandboxed scanner must have one, and max_extracted_mb must stay
  // below memory_limit_mb.
  bool image_runtime = false;
  // Reads the table into `into` (RuntimeTables::set). Empty: the runtime has no table.
  std::function<void(TableReader&, RuntimeTables& into)> read;
  // The rules of its table's values, applied whenever the file has the table, whichever
  // runtime is in use (a mistake in an inert table is still a mistake).
  std::function<void(const SandboxConfig&, TableCheck&)> check;
  // The rules that hold when it is the runtime in use (none's BATLEHUB_UNSAFE_NO_SANDBOX,
  // oci's storage_network).
  std::function<void(const SandboxConfig&, TableCheck&)> check_in_use;
  // When its runs move bundles through presigned URLs (RFC 0022 §5.2), how a refusal names
  // it ("the kubernetes runtime"); nullopt when they do not. Empty: never.
  std::function<std::optional<std::string>(const SandboxConfig&)> storage_transport;
  // An image runtime's table-wide image ("" = none set there).
  std::function<std::string(const SandboxConfig&)> image;
  // Keys of another runtime's table it reads too, as {table, key}: under this runtime, a
  // table that sets only those is not inert, and one that sets more names them. It reads
  // them through shared_integer, never through the other runtime's type.
  std::vector<std::pair<std::string, std::string>> also_reads;
  // An integer key of its own table another runtime may read (kubernetes: orphan_after_secs,
  // which oci's sweep reads too); nullopt for any other key.
  std::function<std::optional<std::int64_t>(const SandboxConfig&, std::string_view key)> shared_integer;
};

// The registry. Registration happens once per runtime, before main (adapters/sandbox/
// runtimes.cc, and a test's own runtime beside its test); a second schema with a name
// already registered is a programming error and aborts with both names.
void register_runtime_schema(RuntimeSchema schema);
const RuntimeSchema* find_runtime_schema(std::string_view name);
// In registration order.
std::vector<const RuntimeSchema*> runtime_schemas();
// The value of `key` in [worker.sandbox.<table>] (or its default) as that runtime's schema
// shares it; nullopt when no runtime of that name is registered or it shares no such key.
std::optional<std::int64_t> shared_integer(const SandboxConfig& s, std::string_view table, std::string_view key);
// "none, bwrap, oci, kubernetes": what `runtime = "x" is not one of …` lists.
std::string runtime_names();

}  // namespace batlehub::config
