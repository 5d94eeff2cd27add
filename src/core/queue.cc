#include "core/queue.h"

#include "base/names.h"

namespace batlehub::core {

namespace {

// The spellings are upstream's `trigger` column values; the numbers are their priorities.
constexpr base::Names<Trigger, 4> kTriggers{{{Trigger::kFirstSeen, "first_seen"},
                                             {Trigger::kWebhook, "webhook"},
                                             {Trigger::kRescan, "rescan"},
                                             {Trigger::kBackfill, "backfill"}}};

}  // namespace

std::string_view to_string(Trigger t) { return base::name_of(kTriggers, t); }
std::optional<Trigger> parse_trigger(std::string_view s) { return base::value_of(kTriggers, s); }

}  // namespace batlehub::core
