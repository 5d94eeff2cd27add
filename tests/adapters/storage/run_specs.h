// The runs the bundle tests stage (storage_test.cc with presigning stubbed, s3_bundle_test.cc
// against a real S3 server).
#pragma once

#include <memory>
#include <string>

#include "core/sandbox.h"
#include "wire/rel_path.h"

namespace batlehub::testing {

// A scanner reading an artifact at /work/pkg, beside an inline lock.json.
inline core::RunSpec spec_reading(std::shared_ptr<const core::Blob> blob, std::string scanner,
                                  std::string job = "job-1") {
  core::RunSpec s;
  s.argv = {"scanner", "/work/pkg"};
  s.label = core::RunLabel{std::move(job), std::move(scanner), 1};
  s.bundle.entries.push_back(core::BundleEntry::archive(*wire::RelPath::parse("pkg"), std::move(blob), true));
  s.bundle.entries.push_back(core::BundleEntry::inline_file(*wire::RelPath::parse("lock.json"), "{}"));
  return s;
}

}  // namespace batlehub::testing
