// base/owner.h: whose a leftover named after a pid is — the running process that made it, a
// process that took its pid later, or nobody. What keeps a sweep off a live run.
#include "base/owner.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ctime>

namespace batlehub::base {
namespace {

timespec now() {
  timespec t{};
  ::clock_gettime(CLOCK_REALTIME, &t);
  return t;
}

TEST(Owner, this_process_started_before_now_and_owns_what_it_changed_since) {
  auto started = process_started_at(::getpid());
  ASSERT_TRUE(started);
  EXPECT_LE(*started, static_cast<double>(now().tv_sec) + 1);
  EXPECT_EQ(owner_of_leftover(::getpid(), now()), Owner::kLive);
}

TEST(Owner, a_leftover_last_changed_before_its_pid_s_process_started_is_a_reused_pid_s) {
  auto started = process_started_at(::getpid());
  ASSERT_TRUE(started);
  timespec before{static_cast<time_t>(*started) - 60, 0};
  EXPECT_EQ(owner_of_leftover(::getpid(), before), Owner::kReused);
}

TEST(Owner, a_process_that_is_gone_owns_nothing) {
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  int st = 0;
  ::waitpid(child, &st, 0);
  EXPECT_EQ(owner_of_leftover(child, now()), Owner::kGone);
  EXPECT_FALSE(process_started_at(child));
}

}  // namespace
}  // namespace batlehub::base
