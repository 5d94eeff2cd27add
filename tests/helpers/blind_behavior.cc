// batlehub-behavior-blind: the detonation scanner built without its watch filter
// (behavior/observer.h installs_watch_filter). Its phases run, and nothing of what they do is
// seen: what the probe's observer check must fail on (tests/behavior). Only a test room
// holds it.
#include "behavior/observer.h"

namespace batlehub::behavior {

bool installs_watch_filter() {
  return false;
}

}  // namespace batlehub::behavior
