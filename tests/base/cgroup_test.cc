// The cgroup reader the probe's memory_bounded and pids_bounded stand on: /proc/self/cgroup
// and /proc/self/mountinfo as cgroup v1, v2 and hybrid hosts write them, and limits read
// from a directory tree laid out as cgroupfs lays it out.
#include "base/cgroup.h"

#include <gtest/gtest.h>

#include "scratch.h"

namespace batlehub::base::cgroup {
namespace {

using batlehub::testing::Scratch;

// What this project's test machines show: v1 controllers beside a cgroup2 mount (hybrid).
constexpr std::string_view kHybridCgroup =
    "9:name=systemd:/\n8:pids:/\n4:memory:/process_api/41829d61\n2:cpuacct:/\n1:cpu:/\n0::/\n";
constexpr std::string_view kHybridMountinfo =
    "25 24 0:22 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "26 25 0:23 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
    "29 25 0:26 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
    "33 25 0:30 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
    "35 25 0:32 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"
    "40 1 8:1 / /work\\040dir rw - ext4 /dev/vda rw\n";

TEST(CgroupParse, a_hybrid_hosts_memberships_and_mounts) {
  auto m = parse_proc_cgroup(kHybridCgroup);
  ASSERT_EQ(m.size(), 6u);
  EXPECT_EQ(m[0], (Membership{9, {"name=systemd"}, "/"}));
  EXPECT_EQ(m[2], (Membership{4, {"memory"}, "/process_api/41829d61"}));
  EXPECT_EQ(m[5], (Membership{0, {}, "/"}));
  auto mounts = parse_mountinfo(kHybridMountinfo);
  ASSERT_EQ(mounts.size(), 4u) << "tmpfs and ext4 are not cgroup mounts";
  EXPECT_EQ(mounts[1], (Mount{Version::kV1, "/sys/fs/cgroup/memory", "/", {"memory"}}));
  EXPECT_EQ(mounts[3], (Mount{Version::kV2, "/sys/fs/cgroup/unified", "/", {}}));
}

TEST(CgroupParse, combined_controllers_escapes_and_garbage) {
  auto m = parse_proc_cgroup("3:cpu,cpuacct:/a b\nnot a line\n:x\n7::\n");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].controllers, (std::vector<std::string>{"cpu", "cpuacct"}));
  EXPECT_EQ(m[0].path, "/a b");
  EXPECT_EQ(m[1], (Membership{7, {}, ""}));
  auto mounts = parse_mountinfo(
      "1 0 0:1 /x\\040y /sys/fs/cgroup/cpu,cpuacct ro shared:2 - cgroup cgroup ro,cpu,cpuacct\n"
      "garbage\n2 0 0:2 / /m - cgroup2\n");
  ASSERT_EQ(mounts.size(), 1u);
  EXPECT_EQ(mounts[0].root, "/x y");
  EXPECT_EQ(mounts[0].mount_point, "/sys/fs/cgroup/cpu,cpuacct");
  EXPECT_EQ(mounts[0].controllers, (std::vector<std::string>{"cpu", "cpuacct"}));
}

TEST(CgroupParse, the_line_bound_holds) {
  std::string many;
  for (std::size_t i = 0; i < kMaxLines + 100; ++i) many += "1:memory:/x\n";
  EXPECT_EQ(parse_proc_cgroup(many).size(), kMaxLines);
}

TEST(CgroupParse, limits_as_the_kernel_writes_them) {
  EXPECT_EQ(parse_limit("268435456\n"), 268435456u);
  EXPECT_EQ(parse_limit("max\n"), std::nullopt);
  EXPECT_EQ(parse_limit("9223372036854771712\n"), std::nullopt) << "v1's unlimited memory";
  EXPECT_EQ(parse_limit("-1\n"), std::nullopt) << "v1's unlimited cfs quota";
  EXPECT_EQ(parse_limit(""), std::nullopt);
  EXPECT_EQ(parse_limit("12abc"), std::nullopt);
}

// A cgroupfs-like tree in a temporary directory, mounted (as mountinfo says) at `root`.
struct FakeTree {
  Scratch s;
  std::string root = (s.root() / "cg").string();
  void put(const std::string& rel, const std::string& text) { Scratch::write(root + rel, text); }
};

TEST(CgroupLocate, v1_the_hierarchy_carrying_the_controller_and_the_tightest_bound_up_to_its_mount) {
  FakeTree t;
  t.put("/memory/memory.limit_in_bytes", "9223372036854771712\n");
  t.put("/memory/a/memory.limit_in_bytes", "1073741824\n");
  t.put("/memory/a/run-1/memory.limit_in_bytes", "9223372036854771712\n");
  auto mounts = parse_mountinfo("1 0 0:1 / " + t.root + "/memory rw - cgroup cgroup rw,memory\n");
  auto mb = parse_proc_cgroup("4:memory:/a/run-1\n0::/\n");
  auto l = locate("memory", mb, mounts);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->version, Version::kV1);
  EXPECT_EQ(l->dir, t.root + "/memory/a/run-1");
  auto b = tightest(*l, limit_file("memory", l->version));
  ASSERT_TRUE(b);
  EXPECT_EQ(b->value, 1073741824u);
  EXPECT_EQ(b->where, t.root + "/memory/a/memory.limit_in_bytes");
  EXPECT_FALSE(locate("pids", mb, mounts)) << "no pids hierarchy is mounted";
}

TEST(CgroupLocate, inside_a_cgroup_namespace_the_bind_of_the_runs_own_cgroup_is_what_is_seen) {
  FakeTree t;
  t.put("/run/pids.max", "256\n");
  // The host's whole hierarchy first (shadowed), then the run's own dir bound over it.
  auto mounts = parse_mountinfo("1 0 0:1 /../.. " + t.root + "/run rw - cgroup cgroup rw,pids\n" +
                                "2 0 0:1 / " + t.root + "/run ro - cgroup cgroup rw,pids\n");
  auto l = locate("pids", parse_proc_cgroup("8:pids:/\n"), mounts);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->dir, t.root + "/run");
  EXPECT_EQ(tightest(*l, "pids.max")->value, 256u);
}

TEST(CgroupLocate, v2_counts_a_controller_only_where_its_files_are) {
  FakeTree t;
  t.put("/w/run/memory.max", "max\n");
  t.put("/w/memory.max", "536870912\n");
  t.put("/w/run/memory.events", "low 0\nhigh 0\nmax 3\noom 1\noom_kill 2\n");
  auto mounts = parse_mountinfo("1 0 0:1 / " + t.root + " rw - cgroup2 cgroup2 rw\n");
  auto mb = parse_proc_cgroup("0::/w/run\n");
  auto l = locate("memory", mb, mounts);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->version, Version::kV2);
  EXPECT_EQ(tightest(*l, "memory.max")->value, 536870912u);
  EXPECT_FALSE(locate("pids", mb, mounts)) << "no pids.max: the controller is not enabled there";
  EXPECT_EQ(oom_kills(l->dir, Version::kV2), 2u);
}

TEST(CgroupLocate, v1_oom_kills_from_memory_oom_control) {
  FakeTree t;
  t.put("/m/memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 5\n");
  EXPECT_EQ(oom_kills(t.root + "/m", Version::kV1), 5u);
  EXPECT_EQ(oom_kills(t.root + "/nowhere", Version::kV1), 0u);
}

}  // namespace
}  // namespace batlehub::base::cgroup
