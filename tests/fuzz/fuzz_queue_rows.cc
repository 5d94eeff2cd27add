// The readers of rows another writer may have left in the queue's database — upstream's
// proxy and Rust worker, a newer release, anyone with the database's password: a verdict
// row, its findings (raw JSON among them) and a job row, made of the input's fields. Each
// either reads or says which column holds what; nothing crashes, raw JSON that is read back
// is JSON again, and a finding written and read back is stable.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/queue/verdict_rows.h"

namespace rows = batlehub::adapters::queue_rows;

namespace {

// The input cut at NUL bytes into fields, the missing ones empty.
std::vector<std::string> fields(const std::uint8_t* data, std::size_t size, std::size_t n) {
  std::vector<std::string> out(n);
  std::size_t f = 0;
  for (std::size_t i = 0; i < size && f < n; ++i) {
    if (data[i] == 0) {
      ++f;
    } else {
      out[f] += static_cast<char>(data[i]);
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto f = fields(data, size, 12);
  const std::string raw = rows::raw_from_column(f[6]);
  if (!raw.empty() && !nlohmann::json::accept(raw)) __builtin_trap();
  std::vector<rows::FindingRow> findings;
  findings.push_back(rows::FindingRow{f[0], f[1], f[2], f[3], f[4], f[5], f[6],
                                      f[7].empty() ? std::nullopt : std::optional<std::int64_t>(f[7].size() * 37 - 3),
                                      std::nullopt});
  rows::VerdictRow v{f[8], f[9], f[10], f[11], std::nullopt, 0, std::nullopt};
  auto read = rows::verdict_from_rows("r", "n", "v", v, findings);
  if (read) {
    // What was read, once written (made storable), reads back as written, and stays so.
    for (const auto& finding : read->verdict.findings) {
      auto once = rows::finding_from_row(rows::finding_row(finding));
      if (!once) __builtin_trap();
      auto twice = rows::finding_from_row(rows::finding_row(*once));
      if (!twice || *twice != *once) __builtin_trap();
    }
  }
  rows::JobRow job;
  job.id = f[0];
  job.trigger = f[1];
  (void)rows::job_from_row(job);
  return 0;
}
