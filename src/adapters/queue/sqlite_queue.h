// The scan queue in one SQLite file under the worker's state directory: for one host, where
// a worker, a second worker and `batlehub submit` share the file (WAL, a busy timeout, and
// write transactions taken with BEGIN IMMEDIATE so that a lease is atomic across processes).
#pragma once

#include <memory>
#include <string>

#include "base/expected.h"
#include "core/queue.h"

namespace batlehub::adapters {

// Opens (creating the file, not its directory) and migrates the queue at `path`.
Expected<std::unique_ptr<core::ScanQueue>, core::QueueError> open_sqlite_queue(const std::string& path);

}  // namespace batlehub::adapters
