// The scanner's seccomp filter, as reviewable data (RFC 0022 §7, architecture.md §7).
//
// A deny list on a default of ALLOW: Docker's default profile is an allow list, and this
// is the part of its complement the RFC names, plus what the architecture adds. Every
// denial answers with an errno rather than a kill, so a scanner that trips one fails
// readably and the agent reports its exit and stderr.
#pragma once

#include <linux/filter.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/expected.h"
#include "base/spawn.h"

namespace batlehub::agent {

enum class Deny {
  kEperm,   // "operation not permitted"
  kEnosys,  // "not implemented": for clone3, so glibc falls back to clone (moby#42680)
};

// The rule applies when (argument[arg] & mask) == value.
struct ArgMatch {
  unsigned arg = 0;
  std::uint64_t mask = 0;
  std::uint64_t value = 0;
};

struct SyscallRule {
  std::string_view name;
  // The x86_64 number, used when libseccomp 2.5.4 does not know the name yet.
  int x86_64_nr;
  Deny action;
  std::optional<ArgMatch> when;  // unconditional when empty
  std::string_view why;
};

// The rules, in review order.
std::span<const SyscallRule> deny_list();

// What a call from another architecture (i386's int 0x80, x32) gets: the same EPERM, since
// an x86_64 deny list says nothing about another ABI's numbers.
inline constexpr Deny kForeignArchAction = Deny::kEperm;

using base::SeccompProgram;

// The errno each Deny answers with. Tests compile the same rules with distinctive values,
// so that a denial by the filter cannot be mistaken for the kernel's own EPERM.
struct DenyErrnos {
  int eperm;
  int enosys;
};
inline constexpr DenyErrnos kRealErrnos{1 /* EPERM */, 38 /* ENOSYS */};

Expected<SeccompProgram, std::string> compile(std::span<const SyscallRule> rules, DenyErrnos errnos = kRealErrnos);

}  // namespace batlehub::agent
