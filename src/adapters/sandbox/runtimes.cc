// The sandbox runtimes this worker knows, one line each, in the order messages list them
// ("runtime = \"x\" is not one of none, bwrap, oci, kubernetes"). Each registration lives in
// its own adapter; adding a runtime adds its line here (docs/architecture.md, "Adding a
// runtime"). One translation unit, so that the order is the order of the lines.
#include "adapters/sandbox/bwrap.h"
#include "adapters/sandbox/kubernetes.h"
#include "adapters/sandbox/none.h"
#include "adapters/sandbox/oci.h"
#include "adapters/sandbox/registry.h"

namespace batlehub::adapters {
namespace {

const RegisterRuntime kNone(none_registration());
const RegisterRuntime kBwrap(bwrap_registration());
const RegisterRuntime kOci(oci_registration());
const RegisterRuntime kKubernetes(kubernetes_registration());

}  // namespace
}  // namespace batlehub::adapters
