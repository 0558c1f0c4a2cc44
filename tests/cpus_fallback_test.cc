// SPDX-License-Identifier: LGPL-2.1-or-later
// The default size when cpuinfo cannot initialise (docs/default-size.md:
// the kernel's cores where sysfs has the topology, else each CPU of the
// mask counted), forced through the RCUPL_FAULT_SITE_CPUINFO hook of
// lib/testing.h; the cgroup files are
// read from an empty tree, so no quota caps the count. Also built for
// aarch64 and run under qemu-aarch64 (tests/aarch64), where cpuinfo reads
// the host's /proc/cpuinfo.
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <string>

#include <gtest/gtest.h>

#include "rcupool_private/testing.h"
#include "tests/support/fault_injector.h"
#include "tests/support/support.h"

namespace {

size_t CpusInMask() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
  return (size_t)CPU_COUNT(&set);
}

// An empty directory as the cgroup root: no cgroup file, no quota.
class NoQuota {
 public:
  NoQuota() {
    char tmpl[] = "/tmp/rcupool-cpus-fallback.XXXXXX";
    const char *d = mkdtemp(tmpl);
    if (d != nullptr) path_ = d;
    rcupl_cpus_set_cgroup_root(path_.c_str());
  }
  ~NoQuota() {
    rcupl_cpus_set_cgroup_root(nullptr);
    if (!path_.empty()) rmdir(path_.c_str());
  }
  bool ok() const { return !path_.empty(); }

 private:
  std::string path_;
};

size_t DefaultCount() {
  rcupool_t *m = nullptr;
  EXPECT_EQ(rcupool_create(nullptr, &m), 0);
  size_t n = rcupool_threads(m);
  EXPECT_EQ(rcupool_destroy(m), 0);
  return n;
}

TEST(RcupoolCpusFallback, CpuinfoInitFailureCountsTheKernelsCoresOrTheMaskAndSaysSo) {
  NoQuota no_quota;
  ASSERT_TRUE(no_quota.ok());
  size_t in_mask = CpusInMask();
  ASSERT_GT(in_mask, 0u);
  const size_t with_cpuinfo = DefaultCount();
  rcupool_test::LogRecorder log;
  rcupool_test::FaultInjector cpuinfo_fails(RCUPL_FAULT_SITE_CPUINFO, 0,
                                            /*fail_all=*/true);
  rcupool_t *m = nullptr;
  ASSERT_EQ(rcupool_create(nullptr, &m), 0);
  EXPECT_GE(cpuinfo_fails.failed(), 1);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_INFO, "no cpuinfo"), 1u);
  if (log.Count(RCUPOOL_LOG_INFO, "(kernel topology; no cpuinfo)") == 1) {
    // The kernel's cores do not need cpuinfo: the same count.
    EXPECT_EQ(rcupool_threads(m), with_cpuinfo);
  } else {
    // No topology in sysfs either: each CPU of the mask is a core.
    size_t want = in_mask > RCUPOOL_MAX_THREADS ? RCUPOOL_MAX_THREADS : in_mask;
    EXPECT_EQ(rcupool_threads(m), want);
    EXPECT_EQ(log.Count(RCUPOOL_LOG_INFO,
                        "no kernel topology, no cpuinfo: each CPU counted"),
              1u);
  }
  EXPECT_EQ(log.Count(RCUPOOL_LOG_INFO, "1 CPUs"), 0u);
  for (const std::string &l : log.All())
    if (l.find("default size") != std::string::npos)
      printf("log: %s\n", l.c_str());
  // The pool of that size works.
  EXPECT_TRUE(rcupool_test::ManagerSumIsRight(m, 1000));
  EXPECT_EQ(rcupool_destroy(m), 0);
}

// The control: with cpuinfo working the default is cpuinfo's count of
// performance cores in the mask (at most the mask's CPUs), and the log
// says so; never the fallback's reason.
TEST(RcupoolCpusFallback, CpuinfoWorkingNeverTakesTheFallback) {
  NoQuota no_quota;
  ASSERT_TRUE(no_quota.ok());
  rcupool_test::LogRecorder log;
  rcupool_t *m = nullptr;
  ASSERT_EQ(rcupool_create(nullptr, &m), 0);
  EXPECT_GE(rcupool_threads(m), 1u);
  EXPECT_LE(rcupool_threads(m), CpusInMask());
  EXPECT_EQ(log.Count(RCUPOOL_LOG_INFO, "no cpuinfo"), 0u);
  EXPECT_EQ(rcupool_destroy(m), 0);
}

}  // namespace
