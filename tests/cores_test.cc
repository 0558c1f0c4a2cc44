// SPDX-License-Identifier: LGPL-2.1-or-later
// The default count on the machine the test runs on, against the kernel's
// own reading of it: the cores (sysfs topology/core_cpus_list, else
// thread_siblings_list) with a CPU in this test's affinity mask, read here
// independently of the library. The classes come from rcupool_cpu_class():
// the count is the cores holding a performance CPU (all of them when none
// does), capped by the cgroup quota rcupool_describe() reports. Skips
// where the kernel gives no topology.
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <fstream>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "rcupool/rcupool.h"

namespace {

// The lowest CPU of a kernel CPU list ("0,2", "4-7"); -1 if unreadable.
int FirstOfList(const std::string &path) {
  std::ifstream in(path);
  long v = -1;
  if (!(in >> v)) return -1;
  return (int)v;
}

int CoreKey(int cpu) {
  std::string base =
      "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
  int k = FirstOfList(base + "core_cpus_list");
  return k >= 0 ? k : FirstOfList(base + "thread_siblings_list");
}

TEST(RcupoolCreate, DefaultCountIsTheKernelsPerformanceCoresInTheMask) {
  unsetenv("RCUPOOL_NUM_THREADS");
  unsetenv("RCUPOOL_CPU_CLASSES");
  cpu_set_t set;
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  std::set<int> cores, perf_cores;
  for (int c = 0; c < CPU_SETSIZE; c++) {
    if (!CPU_ISSET(c, &set)) continue;
    int key = CoreKey(c);
    if (key < 0) GTEST_SKIP() << "the kernel gives no topology for CPU " << c;
    cores.insert(key);
    if (rcupool_cpu_class((unsigned)c) == RCUPOOL_CLASS_PERFORMANCE)
      perf_cores.insert(key);
  }
  size_t want = perf_cores.empty() ? cores.size() : perf_cores.size();
  int n = rcupool_describe(nullptr, 0);
  ASSERT_GT(n, 0);
  std::string text((size_t)n + 1, '\0');
  ASSERT_EQ(rcupool_describe(&text[0], text.size()), n);
  size_t q = text.find("-> ");  // "cgroup quota: 1.5 CPUs -> 2 threads"
  if (text.find("cgroup quota: none") == std::string::npos &&
      q != std::string::npos) {
    size_t quota = strtoul(text.c_str() + q + 3, nullptr, 10);
    if (quota != 0 && quota < want) want = quota;
  }
  rcupool_t *m = nullptr;
  ASSERT_EQ(rcupool_create(nullptr, &m), 0);
  EXPECT_EQ(rcupool_threads(m), want)
      << "kernel cores in the mask: " << cores.size() << ", performance "
      << perf_cores.size() << "\n"
      << text;
  EXPECT_EQ(rcupool_destroy(m), 0);
  std::printf("%s", text.c_str());
}

}  // namespace
