// What the API server says of a pod, as the kubernetes runtime reads it: a watch stream's
// lines (each a JSON event whose object is a pod), parsed without exceptions and read by
// pod_state. A pod's status carries what the sandbox itself wrote (its termination message),
// so these bytes are the sandbox's as much as the API server's: nothing may crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "adapters/sandbox/pod_manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  std::size_t start = 0;
  while (start <= in.size()) {
    std::size_t nl = in.find('\n', start);
    if (nl == std::string_view::npos) nl = in.size();
    auto event = nlohmann::json::parse(in.substr(start, nl - start), nullptr, false);
    if (!event.is_discarded()) {
      const nlohmann::json& pod = event.is_object() ? batlehub::adapters::pod_object(event, "object") : event;
      const batlehub::adapters::PodState s = batlehub::adapters::pod_state(pod.is_null() ? event : pod);
      (void)s;
      (void)batlehub::adapters::label_value(batlehub::adapters::pod_field(
          batlehub::adapters::pod_object(pod.is_null() ? event : pod, "metadata"), "name"));
    }
    start = nl + 1;
  }
  return 0;
}
