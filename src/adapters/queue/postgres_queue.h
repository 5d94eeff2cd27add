// The scan queue in PostgreSQL, as upstream keeps it (upstream-today.md §6): for many
// workers on many hosts, leasing with FOR UPDATE SKIP LOCKED, on the database's clock.
#pragma once

#include <memory>
#include <string>

#include "base/expected.h"
#include "core/queue.h"

namespace batlehub::adapters {

// Connects with a libpq connection string (URI or key=value) and migrates the schema.
// Error messages name the server as host:port, never the DSN (it may carry a password).
Expected<std::unique_ptr<core::ScanQueue>, core::QueueError> open_postgres_queue(const std::string& dsn);

}  // namespace batlehub::adapters
