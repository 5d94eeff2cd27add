#include "base/spawn.h"

#include "base/spawn_child.h"

namespace batlehub::base {

SpawnResult spawn_and_wait(const SpawnSpec& spec) {
  switch (spec.supervisor) {
    case Supervisor::kThisProcess:
      return spawn_detail::supervise_in_process(spec);
    case Supervisor::kThisThread:
      return spawn_detail::supervise_from_thread(spec);
    case Supervisor::kKeeper:
      break;
  }
  return spawn_detail::supervise_by_keeper(spec);
}

}  // namespace batlehub::base
