// A package's extracted tree, walked once: npm's package.json says which files its install
// hooks and its entry point run, then every Python and JavaScript file is analysed
// (signals.h). Symbolic links are never followed; a file over kMaxFileBytes or past the
// tree's byte budget is skipped and counted, never read in part.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "signals/signals.h"

namespace batlehub::signals {

struct TreeLimits {
  std::uint64_t max_file_bytes = 2U << 20;     // a bigger source file is a bundle or data
  std::uint64_t max_total_bytes = 256U << 20;  // read in all
  std::size_t max_files = 100'000;             // walked in all
  std::size_t max_facts = 2'000;               // reported in all
};

struct TreeReport {
  std::vector<Fact> facts;
  std::size_t files_read = 0;
  std::uint64_t bytes_read = 0;
  std::size_t files_skipped = 0;  // over a limit, or unreadable
  bool facts_truncated = false;
};

TreeReport scan_tree(const std::string& root, const TreeLimits& limits = {});

// One JSON object per line: each fact, then {"done": {...}} with the counts. The worker
// reads a run without its "done" line as cut short.
std::string to_json_lines(const TreeReport& report);

}  // namespace batlehub::signals
