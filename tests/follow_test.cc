// SPDX-License-Identifier: LGPL-2.1-or-later
// Following the CPU limits (lib/follow.c): a manager whose count is the
// default resets to the new default when the process's affinity mask (all
// threads, as `taskset -a -p` sets it) or its cgroup CPU quota changes;
// pinned methods keep their pool and see is_current false; a chosen count
// never changes; nothing happens without a call (no timer).
//
// Most cases set the check period to 0 (testing.h), so the first parallel
// call after a change must follow: a deterministic check of "follows
// within the documented time" (the next parallel call at least a period
// after the last check). One case keeps the documented period and waits
// for the change with a generous deadline. The mask cases need CPUs 0 and
// 1 (skip otherwise); the cgroup v1 case needs a writable
// /sys/fs/cgroup/cpu (skips with a message otherwise).
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <initializer_list>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "rcupool_private/testing.h"
#include "tests/placement_support.h"
#include "tests/support/in_child.h"
#include "tests/support/support.h"

namespace {

using rcupool_test::CpuSetOf;
using rcupool_test::SetProcessAffinity;
using rcupool_test::Stats;

const uint64_t kDocumentedPeriodNs = RCUPOOL_FOLLOW_PERIOD_MS * 1000000ull;

// Period 0 for the test's scope; the mask of every thread back to CPUs 0-1
// and the documented period at its end.
class Follow {
 public:
  explicit Follow(uint64_t period_ns = 0) {
    rcupl_follow_set_period_ns(period_ns);
  }
  ~Follow() {
    EXPECT_TRUE(SetProcessAffinity(CpuSetOf({0, 1})));
    rcupl_follow_set_period_ns(kDocumentedPeriodNs);
    rcupl_cpus_set_cgroup_root(nullptr);
  }
};

// The default count of a manager created now (cpuinfo's cores in the
// mask: 1 under valgrind, whose CPU emulation shows cpuinfo one core).
size_t DefaultCountNow() {
  rcupool_options_t o;
  memset(&o, 0, sizeof o);
  o.follow = RCUPOOL_FOLLOW_OFF;
  rcupool_t *m = nullptr;
  if (rcupool_create(&o, &m) != 0) return 0;
  size_t n = rcupool_threads(m);
  rcupool_destroy(m);
  return n;
}

#define NEED_CPUS_01()                                                    \
  do {                                                                    \
    if (!rcupool_test::MaskIsCpus01())                                    \
      GTEST_SKIP() << "needs an affinity mask of CPUs 0 and 1";           \
    if (size_t n_ = DefaultCountNow(); n_ != 2)                           \
      GTEST_SKIP() << "needs a default count of 2 on CPUs 0-1, not " << n_ \
                   << " (valgrind shows cpuinfo one core)";               \
  } while (0)

rcupool_t *Create(size_t threads, rcupool_follow_t follow) {
  rcupool_options_t o;
  memset(&o, 0, sizeof o);
  o.threads = threads;
  o.follow = follow;
  o.warm_pools = RCUPOOL_WARM_NONE;
  rcupool_t *m = nullptr;
  EXPECT_EQ(rcupool_create(&o, &m), 0);
  return m;
}

void Dispatch(rcupool_t *m) { ASSERT_TRUE(rcupool_test::ManagerSumIsRight(m, 64)); }

TEST(RcupoolParallelize, DefaultCountFollowsAffinity2To1To2AndPinKeepsItsPool) {
  NEED_CPUS_01();
  Follow f;
  rcupool_test::LogRecorder log;
  rcupool_t *m = Create(0, RCUPOOL_FOLLOW_DEFAULT);
  rcupool_t *chosen = Create(2, RCUPOOL_FOLLOW_DEFAULT);
  ASSERT_NE(m, nullptr);
  ASSERT_NE(chosen, nullptr);
  ASSERT_EQ(rcupool_threads(m), 2u);
  Dispatch(m);  // no change: no reset
  EXPECT_EQ(Stats(m).follows, 0u);
  EXPECT_EQ(Stats(m).resets, 0u);

  rcupool_pin_t method{};  // a method loaded at 2 threads
  ASSERT_EQ(rcupool_pin(m, &method), 0);
  pthreadpool_t planned = rcupool_pin_pthreadpool(&method);

  ASSERT_TRUE(SetProcessAffinity(CpuSetOf({0})));
  Dispatch(m);
  Dispatch(chosen);
  EXPECT_EQ(rcupool_threads(m), 1u);
  EXPECT_EQ(Stats(m).follows, 1u);
  EXPECT_EQ(rcupool_threads(chosen), 2u);  // chosen: never follows
  EXPECT_EQ(Stats(chosen).follows, 0u);
  EXPECT_FALSE(rcupool_pin_is_current(&method));
  EXPECT_EQ(rcupool_pin_threads(&method), 2u);
  EXPECT_EQ(rcupool_pin_pthreadpool(&method), planned);
  EXPECT_TRUE(rcupool_test::ParallelSumIsRight(planned, 1000));
  EXPECT_EQ(log.Count(RCUPOOL_LOG_INFO,
                      "default size 2 -> 1: affinity mask 2 CPUs -> 1 CPU"),
            1u);

  ASSERT_TRUE(SetProcessAffinity(CpuSetOf({0, 1})));
  Dispatch(m);
  EXPECT_EQ(rcupool_threads(m), 2u);
  EXPECT_EQ(Stats(m).follows, 2u);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_INFO,
                      "default size 1 -> 2: affinity mask 1 CPU -> 2 CPUs"),
            1u);
  // The method's pool was kept alive by its pin, so the way back reused it.
  EXPECT_TRUE(rcupool_pin_is_current(&method));
  EXPECT_EQ(Stats(m).reuses, 1u);
  rcupool_unpin(&method);
  EXPECT_EQ(rcupool_destroy(chosen), 0);
  EXPECT_EQ(rcupool_destroy(m), 0);
}

TEST(RcupoolParallelize, DefaultCountFollowsWithinTheDocumentedPeriod) {
  NEED_CPUS_01();
  Follow f(kDocumentedPeriodNs);
  rcupool_t *m = Create(0, RCUPOOL_FOLLOW_DEFAULT);
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(rcupool_threads(m), 2u);
  ASSERT_TRUE(SetProcessAffinity(CpuSetOf({0})));
  // Documented: the first parallel call at least RCUPOOL_FOLLOW_PERIOD_MS
  // after the last check. Calls every 10 ms; a deadline of 20 periods for
  // a loaded machine (no timing is asserted, only that it comes).
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(20 * RCUPOOL_FOLLOW_PERIOD_MS);
  while (rcupool_threads(m) != 1 && std::chrono::steady_clock::now() < deadline) {
    Dispatch(m);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(rcupool_threads(m), 1u);
  EXPECT_EQ(Stats(m).follows, 1u);
  EXPECT_EQ(rcupool_destroy(m), 0);
}

TEST(RcupoolFollowNow, NothingFollowsWithoutACallNoTimer) {
  NEED_CPUS_01();
  Follow f;
  rcupool_t *m = Create(0, RCUPOOL_FOLLOW_DEFAULT);
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(SetProcessAffinity(CpuSetOf({0})));
  // Pins, unpins and reads never look at the limits.
  for (int i = 0; i < 100; i++) {
    rcupool_pin_t pin{};
    ASSERT_EQ(rcupool_pin(m, &pin), 0);
    rcupool_unpin(&pin);
    rcupool_read_lock();
    EXPECT_NE(rcupool_current(m), nullptr);
    rcupool_read_unlock();
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(rcupool_threads(m), 2u);
  EXPECT_EQ(Stats(m).follows, 0u);
  EXPECT_EQ(rcupool_follow_now(m), 1);
  EXPECT_EQ(rcupool_threads(m), 1u);
  EXPECT_EQ(rcupool_follow_now(m), 0);  // nothing changed since
  EXPECT_EQ(rcupool_follow_now(nullptr), -EINVAL);
  EXPECT_EQ(rcupool_destroy(m), 0);
}

TEST(RcupoolReset, AChosenCountStopsFollowingAndResetToZeroResumes) {
  NEED_CPUS_01();
  Follow f;
  rcupool_t *m = Create(0, RCUPOOL_FOLLOW_DEFAULT);
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(rcupool_reset(m, 2), 0);  // chosen, though the same size
  ASSERT_TRUE(SetProcessAffinity(CpuSetOf({0})));
  Dispatch(m);
  EXPECT_EQ(rcupool_follow_now(m), 0);
  EXPECT_EQ(rcupool_threads(m), 2u);
  ASSERT_EQ(rcupool_reset(m, 0), 0);  // the default again: 1 now
  EXPECT_EQ(rcupool_threads(m), 1u);
  ASSERT_TRUE(SetProcessAffinity(CpuSetOf({0, 1})));
  Dispatch(m);
  EXPECT_EQ(rcupool_threads(m), 2u);
  EXPECT_EQ(Stats(m).follows, 1u);
  EXPECT_EQ(rcupool_destroy(m), 0);
}

// The default count made the mask's CPU count whatever this machine's
// cores (cpuinfo, whose view varies: valgrind and some VMs show one core),
// for the tests of issue 38: cpuinfo fails (the RCUPL_FAULT_SITE_CPUINFO
// hook: docs/default-size.md's step 2, the CPUs in the mask) and no cgroup
// quota is read (an empty tree as the cgroup root). fail_starts makes
// every pool start fail too while set.
class CountIsTheMask {
 public:
  CountIsTheMask() {
    char tmpl[] = "/tmp/rcupool-follow-noquota.XXXXXX";
    const char *d = mkdtemp(tmpl);
    if (d != nullptr) root_ = d;
    rcupl_cpus_set_cgroup_root(root_.c_str());
    fail_starts = false;
    rcupl_fault_set_hook(Hook, nullptr);
  }
  ~CountIsTheMask() {
    rcupl_fault_set_hook(nullptr, nullptr);
    rcupl_cpus_set_cgroup_root(nullptr);
    if (!root_.empty()) rmdir(root_.c_str());
  }
  bool ok() const { return !root_.empty(); }
  static inline std::atomic<bool> fail_starts{false};

 private:
  static bool Hook(void *, int site) {
    return site == RCUPL_FAULT_SITE_CPUINFO ||
           (site == RCUPL_FAULT_SITE_POOL_CREATE && fail_starts.load());
  }
  std::string root_;
};

#define NEED_MASK_01()                                          \
  do {                                                          \
    if (!rcupool_test::MaskIsCpus01())                          \
      GTEST_SKIP() << "needs an affinity mask of CPUs 0 and 1"; \
  } while (0)

// Issue 38, defect 2: a reset that fails leaves the manager as it was,
// following included: a failed start of threads (a fault) and a placement
// that cannot be placed (CPU 1 of a mask become CPU 0) each leave a
// default count that follows the mask to 1 CPU. (Before: the failed reset
// stored "chosen" and the manager never followed again.)
TEST(RcupoolReset, FailedResetLeavesADefaultCountFollowing) {
  NEED_MASK_01();
  Follow f;
  CountIsTheMask count;
  ASSERT_TRUE(count.ok());
  for (int cause = 0; cause < 2; cause++) {
    rcupool_options_t o;
    memset(&o, 0, sizeof o);
    o.warm_pools = RCUPOOL_WARM_NONE;
    if (cause == 1) {
      ASSERT_EQ(rcupool_placement_parse("1", &o.placement), 0);
    }
    rcupool_t *m = nullptr;
    ASSERT_EQ(rcupool_create(&o, &m), 0);
    ASSERT_EQ(rcupool_threads(m), 2u);
    if (cause == 0) {
      CountIsTheMask::fail_starts = true;
      EXPECT_EQ(rcupool_reset(m, 3), -EAGAIN);
      CountIsTheMask::fail_starts = false;
      ASSERT_TRUE(SetProcessAffinity(CpuSetOf({0})));
    } else {
      ASSERT_TRUE(SetProcessAffinity(CpuSetOf({0})));
      EXPECT_EQ(rcupool_reset(m, 3), -EINVAL);  // CPU 1 left the mask
    }
    EXPECT_EQ(rcupool_threads(m), 2u) << "cause " << cause;
    Dispatch(m);
    EXPECT_EQ(rcupool_threads(m), 1u) << "cause " << cause;
    EXPECT_EQ(Stats(m).follows, 1u) << "cause " << cause;
    ASSERT_TRUE(SetProcessAffinity(CpuSetOf({0, 1})));
    EXPECT_EQ(rcupool_destroy(m), 0);
  }
}

// Issue 38, defect 5: blanks around RCUPOOL_FOLLOW's value are allowed, as
// for every variable (docs/environment.md): " 0 " turns following off, and
// "1 " leaves it on, neither warned about. (Before: both warned about, and
// " 0 " followed.) Run in a fresh copy of this program.
void DefaultManagerUnderFollowEnvCountingTheMask(const char *value,
                                                 bool follows) {
  CountIsTheMask count;
  ASSERT_TRUE(count.ok());
  setenv("RCUPOOL_FOLLOW", value, 1);
  rcupl_follow_set_period_ns(0);
  rcupool_test::LogRecorder log;
  rcupool_t *m = rcupool_default();
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(rcupool_threads(m), 2u);
  ASSERT_TRUE(SetProcessAffinity(CpuSetOf({0})));
  Dispatch(m);
  EXPECT_EQ(rcupool_threads(m), follows ? 1u : 2u);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_WARN, "RCUPOOL_FOLLOW"), 0u);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_INFO, "RCUPOOL_FOLLOW"), 1u);
}

TEST(RcupoolDefault, EnvironmentFollowZeroWithBlanksTurnsFollowingOff) {
  NEED_MASK_01();
  RCUPOOL_RUN_IN_CHILD(30);
  DefaultManagerUnderFollowEnvCountingTheMask(" 0 ", false);
}

TEST(RcupoolDefault, EnvironmentFollowOneWithBlanksFollows) {
  NEED_MASK_01();
  RCUPOOL_RUN_IN_CHILD(30);
  DefaultManagerUnderFollowEnvCountingTheMask("1 ", true);
}

TEST(RcupoolCreate, FollowOffNeverFollows) {
  NEED_CPUS_01();
  Follow f;
  rcupool_t *m = Create(0, RCUPOOL_FOLLOW_OFF);
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(SetProcessAffinity(CpuSetOf({0})));
  Dispatch(m);
  EXPECT_EQ(rcupool_follow_now(m), 0);
  EXPECT_EQ(rcupool_threads(m), 2u);
  rcupool_t *bad = nullptr;
  rcupool_options_t o;
  memset(&o, 0, sizeof o);
  o.follow = (rcupool_follow_t)7;
  EXPECT_EQ(rcupool_create(&o, &bad), -EINVAL);
  EXPECT_EQ(bad, nullptr);
  EXPECT_EQ(rcupool_destroy(m), 0);
}

// The default manager with RCUPOOL_FOLLOW=value, in a fresh copy of this
// program (the first rcupool_default() of its process): does it follow the
// mask to 1 CPU, and did it warn about the value?
void DefaultManagerUnderFollowEnv(const char *value, bool follows, bool warns) {
  setenv("RCUPOOL_FOLLOW", value, 1);
  rcupl_follow_set_period_ns(0);
  rcupool_test::LogRecorder log;
  rcupool_t *m = rcupool_default();
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(rcupool_threads(m), 2u);
  ASSERT_TRUE(SetProcessAffinity(CpuSetOf({0})));
  Dispatch(m);
  EXPECT_EQ(rcupool_threads(m), follows ? 1u : 2u);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_WARN, "RCUPOOL_FOLLOW="), warns ? 1u : 0u);
}

TEST(RcupoolDefault, EnvironmentFollowZeroTurnsFollowingOff) {
  NEED_CPUS_01();
  RCUPOOL_RUN_IN_CHILD(30);
  DefaultManagerUnderFollowEnv("0", false, false);
}

TEST(RcupoolDefault, EnvironmentFollowOneFollows) {
  NEED_CPUS_01();
  RCUPOOL_RUN_IN_CHILD(30);
  DefaultManagerUnderFollowEnv("1", true, false);
}

TEST(RcupoolDefault, EnvironmentFollowMalformedWarnsAndFollows) {
  NEED_CPUS_01();
  RCUPOOL_RUN_IN_CHILD(30);
  DefaultManagerUnderFollowEnv("maybe", true, true);
}

// cgroup v2, a quota on a parent level (every level is read), through a
// fake cgroup root.
TEST(RcupoolParallelize, DefaultCountFollowsACgroupV2QuotaOfAParentLevel) {
  NEED_CPUS_01();
  Follow f;
  const char *tmp = getenv("TEST_TMPDIR");
  std::string root = std::string(tmp ? tmp : "/tmp") + "/followXXXXXX";
  ASSERT_NE(mkdtemp(&root[0]), nullptr);
  ASSERT_EQ(system(("mkdir -p " + root + "/proc/self " + root +
                    "/sys/fs/cgroup/a/b").c_str()),
            0);
  auto write = [&](const std::string &rel, const std::string &text) {
    std::ofstream(root + rel) << text;
  };
  write("/proc/self/cgroup", "0::/a/b\n");
  write("/sys/fs/cgroup/a/b/cpu.max", "max 100000\n");
  write("/sys/fs/cgroup/a/cpu.max", "max 100000\n");
  rcupl_cpus_set_cgroup_root(root.c_str());
  rcupool_test::LogRecorder log;
  rcupool_t *m = Create(0, RCUPOOL_FOLLOW_DEFAULT);
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(rcupool_threads(m), 2u);
  write("/sys/fs/cgroup/a/cpu.max", "100000 100000\n");
  Dispatch(m);
  EXPECT_EQ(rcupool_threads(m), 1u);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_INFO,
                      "default size 2 -> 1: cgroup quota none -> 1 CPU"),
            1u);
  write("/sys/fs/cgroup/a/cpu.max", "max 100000\n");
  Dispatch(m);
  EXPECT_EQ(rcupool_threads(m), 2u);
  EXPECT_EQ(Stats(m).follows, 2u);
  // Each count with its unit, as docs/placement.md shows the line.
  EXPECT_EQ(log.Count(RCUPOOL_LOG_INFO,
                      "default size 1 -> 2: cgroup quota 1 CPU -> none"),
            1u);
  EXPECT_EQ(rcupool_destroy(m), 0);
  EXPECT_EQ(system(("rm -rf " + root).c_str()), 0);
}

// The info line of a follow names each count of CPUs with its unit and
// the right plural, on both sides of the arrow (as docs/placement.md
// shows it); a count of 0 is a word ("none", "unreadable"). No machine
// needed: the limits are given.
TEST(RcupoolFollowDescribe, ChangedLimitsNameEachCountWithUnitAndPlural) {
  char buf[160];
  auto describe = [&](std::initializer_list<size_t> from,
                      std::initializer_list<size_t> to) {
    size_t a[3], b[3];
    std::copy(from.begin(), from.end(), a);
    std::copy(to.begin(), to.end(), b);
    rcupl_follow_describe_counts(a, b, buf, sizeof buf);
    return std::string(buf);
  };
  EXPECT_EQ(describe({2, 0, 2}, {1, 0, 2}), "affinity mask 2 CPUs -> 1 CPU");
  EXPECT_EQ(describe({1, 0, 2}, {2, 0, 2}), "affinity mask 1 CPU -> 2 CPUs");
  EXPECT_EQ(describe({2, 1, 2}, {2, 0, 2}), "cgroup quota 1 CPU -> none");
  EXPECT_EQ(describe({2, 0, 2}, {2, 3, 2}), "cgroup quota none -> 3 CPUs");
  EXPECT_EQ(describe({0, 2, 4}, {1, 1, 4}),
            "affinity mask unreadable -> 1 CPU; cgroup quota 2 CPUs -> 1 CPU");
  EXPECT_EQ(describe({2, 0, 2}, {2, 0, 3}), "online 2 CPUs -> 3 CPUs");
}

// cgroup v1, the real thing: a cgroup under /sys/fs/cgroup/cpu whose
// cpu.cfs_quota_us goes 1 CPU, then none.
class CgroupV1 {
 public:
  CgroupV1() {
    std::ifstream self("/proc/self/cgroup");
    std::string line;
    while (std::getline(self, line)) {
      size_t a = line.find(':'), b = line.find(':', a + 1);
      if (a == std::string::npos || b == std::string::npos) continue;
      std::string ctl = "," + line.substr(a + 1, b - a - 1) + ",";
      if (ctl.find(",cpu,") != std::string::npos) home_ = line.substr(b + 1);
    }
    if (home_.empty()) {
      why_ = "no cgroup v1 cpu hierarchy in /proc/self/cgroup";
      return;
    }
    dir_ = "/sys/fs/cgroup/cpu" + (home_ == "/" ? std::string() : home_) +
           "/rcupool_follow_" + std::to_string(getpid());
    if (mkdir(dir_.c_str(), 0755) != 0) {
      why_ = "cannot create " + dir_ + ": " + strerror(errno);
      dir_.clear();
      return;
    }
    if (!Write("cgroup.procs", std::to_string(getpid()))) {
      why_ = "cannot move the process into " + dir_;
      return;
    }
    ok_ = true;
  }
  ~CgroupV1() {
    if (dir_.empty()) return;
    std::string home = "/sys/fs/cgroup/cpu" + (home_ == "/" ? std::string() : home_);
    std::ofstream(home + "/cgroup.procs") << getpid();
    EXPECT_EQ(rmdir(dir_.c_str()), 0) << dir_ << ": " << strerror(errno);
  }
  bool Write(const char *file, const std::string &text) {
    std::ofstream f(dir_ + "/" + file);
    f << text;
    f.flush();
    return f.good();
  }
  bool ok() const { return ok_; }
  const std::string &why() const { return why_; }

 private:
  std::string home_, dir_, why_;
  bool ok_ = false;
};

TEST(RcupoolParallelize, DefaultCountFollowsACgroupV1CfsQuota) {
  NEED_CPUS_01();
  Follow f;
  CgroupV1 cg;
  if (!cg.ok()) GTEST_SKIP() << cg.why();
  rcupool_t *m = Create(0, RCUPOOL_FOLLOW_DEFAULT);
  rcupool_t *chosen = Create(2, RCUPOOL_FOLLOW_DEFAULT);
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(rcupool_threads(m), 2u);
  rcupool_pin_t method{};
  ASSERT_EQ(rcupool_pin(m, &method), 0);
  ASSERT_TRUE(cg.Write("cpu.cfs_quota_us", "100000"));  // 1 CPU
  Dispatch(m);
  Dispatch(chosen);
  EXPECT_EQ(rcupool_threads(m), 1u);
  EXPECT_EQ(rcupool_threads(chosen), 2u);
  EXPECT_FALSE(rcupool_pin_is_current(&method));
  EXPECT_TRUE(rcupool_test::ParallelSumIsRight(rcupool_pin_pthreadpool(&method), 1000));
  ASSERT_TRUE(cg.Write("cpu.cfs_quota_us", "-1"));
  Dispatch(m);
  EXPECT_EQ(rcupool_threads(m), 2u);
  EXPECT_EQ(Stats(m).follows, 2u);
  rcupool_unpin(&method);
  EXPECT_EQ(rcupool_destroy(chosen), 0);
  EXPECT_EQ(rcupool_destroy(m), 0);
}

}  // namespace
