// SPDX-License-Identifier: LGPL-2.1-or-later
// The stand-in's default count is ExecuTorch's own default: every logical
// processor of the affinity mask that is online (ETTP-4), not rcupool's
// performance cores, so ExecuTorch's tests see on every machine the count
// its own threadpool.cpp gives there. Each case runs in a child that makes
// the default manager itself. The expected count is read from this
// machine (the mask, the CPUs online); a machine with a cgroup CPU quota
// skips (the quota caps both rules alike).
#include <sched.h>
#include <stdlib.h>

#include <string>

#include <gtest/gtest.h>

#include <executorch/extension/threadpool/threadpool.h>
#include <rcupool/rcupool.h>

#include "tests/support/in_child.h"

namespace {

namespace et = ::executorch::extension::threadpool;

// The calling thread's CPUs that are online, at most the library maximum.
size_t OnlineCpusInMask() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
  size_t n = 0;
  for (int c = 0; c < CPU_SETSIZE; c++) {
    if (!CPU_ISSET(c, &set)) continue;
    std::string path = "/sys/devices/system/cpu/cpu" + std::to_string(c) +
                       "/online";
    FILE *f = fopen(path.c_str(), "r");
    int online = 1;  // cpu0 often has no "online" file: it is online
    if (f != nullptr) {
      if (fscanf(f, "%d", &online) != 1) online = 1;
      fclose(f);
    }
    n += online == 1;
  }
  return n > RCUPOOL_MAX_THREADS ? RCUPOOL_MAX_THREADS : n;
}

bool HasCgroupQuota() {
  char text[4096];
  int len = rcupool_describe(text, sizeof text);
  return len > 0 && std::string(text).find("cgroup quota: none") ==
                        std::string::npos;
}

TEST(EtDefaultCount, GetThreadCountIsEveryOnlineProcessorOfTheMask) {
  if (HasCgroupQuota())
    GTEST_SKIP() << "a cgroup CPU quota caps the count on this machine";
  size_t want = OnlineCpusInMask();
  ASSERT_GT(want, 0u);
  int code = rcupool_test::ForkAndWait([want]() -> int {
    unsetenv("RCUPOOL_NUM_THREADS");
    et::ThreadPool *tp = et::get_threadpool();
    if (tp == nullptr) return 1;
    if (tp->get_thread_count() != want) {
      fprintf(stderr, "child: get_thread_count() %zu, want %zu\n",
              tp->get_thread_count(), want);
      return 2;
    }
    if (rcupool_default_rule(rcupool_default()) !=
        RCUPOOL_DEFAULT_RULE_PROCESSORS)
      return 3;
    return 0;
  });
  EXPECT_EQ(code, 0) << "see the child's output above";
}

TEST(EtDefaultCount, FirstCallThroughGetPthreadpoolAppliesTheSameRule) {
  if (HasCgroupQuota())
    GTEST_SKIP() << "a cgroup CPU quota caps the count on this machine";
  size_t want = OnlineCpusInMask();
  int code = rcupool_test::ForkAndWait([want]() -> int {
    unsetenv("RCUPOOL_NUM_THREADS");
    if (et::get_pthreadpool() == nullptr) return 1;  // the first call
    if (rcupool_threads(rcupool_default()) != want) return 2;
    return 0;
  });
  EXPECT_EQ(code, 0);
}

TEST(EtDefaultCount, AChosenCountIsLeftAsItIs) {
  int code = rcupool_test::ForkAndWait([]() -> int {
    setenv("RCUPOOL_NUM_THREADS", "3", 1);
    et::ThreadPool *tp = et::get_threadpool();
    if (tp == nullptr || tp->get_thread_count() != 3) return 1;
    return 0;
  });
  EXPECT_EQ(code, 0);
}

}  // namespace
