// The one definition of installs_watch_filter() a room's batlehub-behavior has: it watches.
// A test-only binary (tests/helpers/blind_behavior.cc) defines its own, which the linker then
// takes instead of this file's: how the probe's observer check is proven to fail.
#include "behavior/observer.h"

namespace batlehub::behavior {

bool installs_watch_filter() {
  return true;
}

}  // namespace batlehub::behavior
