// SPDX-License-Identifier: LGPL-2.1-or-later
// Core classes (lib/classes.c) and placement (lib/placement.c): the class
// of each CPU, detected from sysfs or set by RCUPOOL_CPU_CLASSES; placed
// pools whose workers are bound as their policy says (read back from
// /proc/self/task/<tid>/status, Cpus_allowed_list); a pool's identity
// (width, placement); bad input.
//
// The binding cases need CPUs 0 and 1 in the mask (this project's 2-CPU
// machine); elsewhere they skip with a message.
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "rcupool_private/testing.h"
#include "tests/placement_support.h"
#include "tests/support/support.h"

namespace {

using rcupool_test::CpusAllowedList;
using rcupool_test::NewTids;
using rcupool_test::Stats;
using rcupool_test::WorkerTids;

// Sets RCUPOOL_CPU_CLASSES (nullptr: unset) and recomputes the classes;
// restores the real classes and the variable's absence at scope exit.
class Classes {
 public:
  explicit Classes(const char *env, const char *root = nullptr) {
    if (env != nullptr)
      setenv("RCUPOOL_CPU_CLASSES", env, 1);
    else
      unsetenv("RCUPOOL_CPU_CLASSES");
    rcupl_classes_reload(root);
  }
  ~Classes() {
    unsetenv("RCUPOOL_CPU_CLASSES");
    rcupl_classes_reload(nullptr);
  }
};

// A fake sysfs tree under a temporary folder.
class FakeSysfs {
 public:
  FakeSysfs() {
    char tmpl[] = "/tmp/rcupool_sysfs_XXXXXX";
    root_ = mkdtemp(tmpl);
  }
  ~FakeSysfs() { system(("rm -rf " + root_).c_str()); }
  void Write(const std::string &rel, const std::string &text) {
    std::string path = root_ + "/sys/devices/system/cpu/" + rel;
    system(("mkdir -p $(dirname " + path + ")").c_str());
    std::ofstream(path) << text;
  }
  const char *path() const { return root_.c_str(); }

 private:
  std::string root_;
};

rcupool_placement_t Placement(const char *text) {
  rcupool_placement_t pl;
  memset(&pl, 0, sizeof pl);
  EXPECT_EQ(rcupool_placement_parse(text, &pl), 0) << text;
  return pl;
}

rcupool_t *PlacedManager(size_t threads, const char *placement) {
  rcupool_options_t o;
  memset(&o, 0, sizeof o);
  o.threads = threads;
  o.warm_ms = 60000;
  o.placement = Placement(placement);
  rcupool_t *m = nullptr;
  EXPECT_EQ(rcupool_create(&o, &m), 0) << placement;
  return m;
}

// The Cpus_allowed_list of the workers `pin` added (its pool's workers:
// started by the pin, so new since `before`), one entry each.
std::multiset<std::string> MasksOf(const std::set<pid_t> &tids) {
  std::multiset<std::string> out;
  for (pid_t t : tids) out.insert(CpusAllowedList(t));
  return out;
}

#define NEED_CPUS_01()                                            \
  do {                                                            \
    if (!rcupool_test::MaskIsCpus01())                            \
      GTEST_SKIP() << "needs an affinity mask of CPUs 0 and 1";   \
  } while (0)

// --- classes ---------------------------------------------------------------

TEST(RcupoolCpuClass, EnvironmentSetsEachCpusClassAndTheReverse) {
  {
    rcupool_test::LogRecorder log;
    Classes c("0:efficiency,1:performance");
    EXPECT_EQ(rcupool_cpu_class(0), RCUPOOL_CLASS_EFFICIENCY);
    EXPECT_EQ(rcupool_cpu_class(1), RCUPOOL_CLASS_PERFORMANCE);
    EXPECT_EQ(log.Count(RCUPOOL_LOG_INFO,
                        "CPU classes (RCUPOOL_CPU_CLASSES): performance 1; "
                        "efficiency 0"),
              1u);
  }
  {
    Classes c("0:performance,1:efficiency");
    EXPECT_EQ(rcupool_cpu_class(0), RCUPOOL_CLASS_PERFORMANCE);
    EXPECT_EQ(rcupool_cpu_class(1), RCUPOOL_CLASS_EFFICIENCY);
  }
  EXPECT_EQ(rcupool_cpu_class(RCUPOOL_PLACEMENT_MAX_CPUS),
            RCUPOOL_CLASS_NONE);
}

// Issue 38, defect 5: RCUPOOL_CPU_CLASSES is read as every variable of
// docs/environment.md: blanks around the value, names without case.
// (Before: warned about and ignored.)
TEST(RcupoolCpuClass, EnvironmentTakesBlanksAroundAndNamesWithoutCase) {
  rcupool_test::LogRecorder log;
  Classes c(" 0:Efficiency,1:PERFORMANCE \t");
  EXPECT_EQ(rcupool_cpu_class(0), RCUPOOL_CLASS_EFFICIENCY);
  EXPECT_EQ(rcupool_cpu_class(1), RCUPOOL_CLASS_PERFORMANCE);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_WARN, "RCUPOOL_CPU_CLASSES"), 0u);
}

TEST(RcupoolCpuClass, DetectionTakesTheCpuCapacityTierAboveTheLittleOnesAsPerformance) {
  FakeSysfs fs;
  fs.Write("present", "0-3\n");
  fs.Write("online", "0-3\n");
  const char *cap[] = {"1024", "1024", "446", "446"};
  for (int i = 0; i < 4; i++)
    fs.Write("cpu" + std::to_string(i) + "/cpu_capacity", cap[i]);
  Classes c(nullptr, fs.path());
  EXPECT_EQ(rcupool_cpu_class(0), RCUPOOL_CLASS_PERFORMANCE);
  EXPECT_EQ(rcupool_cpu_class(1), RCUPOOL_CLASS_PERFORMANCE);
  EXPECT_EQ(rcupool_cpu_class(2), RCUPOOL_CLASS_EFFICIENCY);
  EXPECT_EQ(rcupool_cpu_class(3), RCUPOOL_CLASS_EFFICIENCY);
  EXPECT_EQ(rcupool_cpu_class(4), RCUPOOL_CLASS_NONE);
}

TEST(RcupoolCpuClass, DetectionUsesHighestPerfWhereNoCapacityAndKeepsFavouredCoresTogether) {
  FakeSysfs fs;
  fs.Write("present", "0-2\n");
  // A hybrid x86: two P cores (one favoured, a little higher), one E core.
  const char *perf[] = {"72", "70", "40"};
  for (int i = 0; i < 3; i++)
    fs.Write("cpu" + std::to_string(i) + "/acpi_cppc/highest_perf", perf[i]);
  Classes c(nullptr, fs.path());
  EXPECT_EQ(rcupool_cpu_class(0), RCUPOOL_CLASS_PERFORMANCE);
  EXPECT_EQ(rcupool_cpu_class(1), RCUPOOL_CLASS_PERFORMANCE);
  EXPECT_EQ(rcupool_cpu_class(2), RCUPOOL_CLASS_EFFICIENCY);
}

TEST(RcupoolCpuClass, DetectionOfEqualCpusIsOneClassPerformance) {
  FakeSysfs fs;
  fs.Write("present", "0-1\n");
  fs.Write("cpu0/cpufreq/cpuinfo_max_freq", "3000000");
  fs.Write("cpu1/cpufreq/cpuinfo_max_freq", "3000000");
  Classes c(nullptr, fs.path());
  EXPECT_EQ(rcupool_cpu_class(0), RCUPOOL_CLASS_PERFORMANCE);
  EXPECT_EQ(rcupool_cpu_class(1), RCUPOOL_CLASS_PERFORMANCE);
}

// The class rule of lib/classes.c on the shapes of real machines (the
// zoo, tests/zoo, has them whole).
TEST(RcupoolCpuClass, DetectionOfThreeCapacityTiersMakesMidAndBigPerformance) {
  FakeSysfs fs;
  fs.Write("present", "0-7\n");
  fs.Write("online", "0-7\n");
  const char *cap[] = {"160", "160", "160", "160", "498", "498", "1024", "1024"};
  for (int i = 0; i < 8; i++)
    fs.Write("cpu" + std::to_string(i) + "/cpu_capacity", cap[i]);
  Classes c(nullptr, fs.path());
  for (unsigned i = 0; i < 4; i++)
    EXPECT_EQ(rcupool_cpu_class(i), RCUPOOL_CLASS_EFFICIENCY) << i;
  for (unsigned i = 4; i < 8; i++)
    EXPECT_EQ(rcupool_cpu_class(i), RCUPOOL_CLASS_PERFORMANCE) << i;
}

TEST(RcupoolCpuClass, DetectionKeepsFavouredCoresFourPercentApartOneClass) {
  FakeSysfs fs;
  fs.Write("present", "0-3\n");
  const char *khz[] = {"4800000", "4800000", "4600000", "4600000"};
  for (int i = 0; i < 4; i++)
    fs.Write("cpu" + std::to_string(i) + "/cpufreq/cpuinfo_max_freq", khz[i]);
  Classes c(nullptr, fs.path());
  for (unsigned i = 0; i < 4; i++)
    EXPECT_EQ(rcupool_cpu_class(i), RCUPOOL_CLASS_PERFORMANCE) << i;
}

TEST(RcupoolCpuClass, DetectionKeepsCppcRankingsInSmallStepsOneClass) {
  FakeSysfs fs;
  fs.Write("present", "0-15\n");
  for (int i = 0; i < 16; i++)  // 166, 171, ... 236: a 16-core desktop
    fs.Write("cpu" + std::to_string(i) + "/acpi_cppc/highest_perf",
             std::to_string(i < 15 ? 166 + 5 * i : 236));
  Classes c(nullptr, fs.path());
  for (unsigned i = 0; i < 16; i++)
    EXPECT_EQ(rcupool_cpu_class(i), RCUPOOL_CLASS_PERFORMANCE) << i;
}

TEST(RcupoolCpuClass, DetectionLooksPastASourceGivingEveryCpuTheSameValue) {
  FakeSysfs fs;
  fs.Write("present", "0-7\n");
  const char *khz[] = {"1804800", "1804800", "1804800", "2419200",
                       "2419200", "2419200", "2419200", "2841600"};
  for (int i = 0; i < 8; i++) {
    fs.Write("cpu" + std::to_string(i) + "/cpu_capacity", "1024");
    fs.Write("cpu" + std::to_string(i) + "/cpufreq/cpuinfo_max_freq", khz[i]);
  }
  Classes c(nullptr, fs.path());
  for (unsigned i = 0; i < 3; i++)
    EXPECT_EQ(rcupool_cpu_class(i), RCUPOOL_CLASS_EFFICIENCY) << i;
  for (unsigned i = 3; i < 8; i++)
    EXPECT_EQ(rcupool_cpu_class(i), RCUPOOL_CLASS_PERFORMANCE) << i;
}

TEST(RcupoolCpuClass, DetectionByMidrMakesEveryBigTierPerformance) {
  FakeSysfs fs;
  fs.Write("present", "0-7\n");
  for (int i = 0; i < 8; i++) {
    // 4x Cortex-X4 (0xd82) above 4x Cortex-A720 (0xd81): no little core.
    fs.Write("cpu" + std::to_string(i) + "/regs/identification/midr_el1",
             i < 4 ? "0x00000000410fd810" : "0x00000000410fd820");
    fs.Write("cpu" + std::to_string(i) + "/cpufreq/cpuinfo_max_freq",
             i < 4 ? "2000000" : "3250000");
  }
  Classes c(nullptr, fs.path());
  for (unsigned i = 0; i < 8; i++)
    EXPECT_EQ(rcupool_cpu_class(i), RCUPOOL_CLASS_PERFORMANCE) << i;
}

TEST(RcupoolCpuClass, DetectionByMidrMakesLittleCoresEfficiencyWhateverTheirCapacity) {
  FakeSysfs fs;
  fs.Write("present", "0-3\n");
  // 2x Cortex-A510 (0xd46) and 2x Cortex-A715 (0xd4d), capacities alike.
  for (int i = 0; i < 4; i++) {
    fs.Write("cpu" + std::to_string(i) + "/regs/identification/midr_el1",
             i < 2 ? "0x00000000411fd460" : "0x00000000411fd4d0");
    fs.Write("cpu" + std::to_string(i) + "/cpu_capacity", "1024");
  }
  Classes c(nullptr, fs.path());
  EXPECT_EQ(rcupool_cpu_class(0), RCUPOOL_CLASS_EFFICIENCY);
  EXPECT_EQ(rcupool_cpu_class(1), RCUPOOL_CLASS_EFFICIENCY);
  EXPECT_EQ(rcupool_cpu_class(2), RCUPOOL_CLASS_PERFORMANCE);
  EXPECT_EQ(rcupool_cpu_class(3), RCUPOOL_CLASS_PERFORMANCE);
}

TEST(RcupoolCpuClass, DetectionByHybridListsMakesAtomCpusEfficiency) {
  FakeSysfs fs;
  fs.Write("present", "0-5\n");
  fs.Write("../../cpu_core/cpus", "0-3\n");
  fs.Write("../../cpu_atom/cpus", "4-5\n");
  for (int i = 0; i < 6; i++)  // frequencies that alone would say otherwise
    fs.Write("cpu" + std::to_string(i) + "/cpufreq/cpuinfo_max_freq",
             i == 0 ? "5000000" : "3800000");
  Classes c(nullptr, fs.path());
  for (unsigned i = 0; i < 4; i++)
    EXPECT_EQ(rcupool_cpu_class(i), RCUPOOL_CLASS_PERFORMANCE) << i;
  EXPECT_EQ(rcupool_cpu_class(4), RCUPOOL_CLASS_EFFICIENCY);
  EXPECT_EQ(rcupool_cpu_class(5), RCUPOOL_CLASS_EFFICIENCY);
}

TEST(RcupoolCpuClass, EnvironmentNamingACpuNotPresentWarnsAndGivesItNoClass) {
  FakeSysfs fs;
  fs.Write("present", "0-1\n");
  rcupool_test::LogRecorder log;
  Classes c("0:efficiency,1000:performance", fs.path());
  EXPECT_EQ(rcupool_cpu_class(0), RCUPOOL_CLASS_EFFICIENCY);
  EXPECT_EQ(rcupool_cpu_class(1), RCUPOOL_CLASS_PERFORMANCE);
  EXPECT_EQ(rcupool_cpu_class(1000), RCUPOOL_CLASS_NONE);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_WARN, "not present (1000)"), 1u);
}

TEST(RcupoolCpuClass, MalformedEnvironmentIsLoggedAndDetectionStands) {
  FakeSysfs fs;
  fs.Write("present", "0-1\n");
  fs.Write("cpu0/cpu_capacity", "512");
  fs.Write("cpu1/cpu_capacity", "1024");
  for (const char *bad :
       {"0:fast", "0-:performance", "x:efficiency", "0:performance,",
        "3-1:efficiency", "0", "1:performance,,0:efficiency",
        "99999:performance"}) {
    rcupool_test::LogRecorder log;
    Classes c(bad, fs.path());
    EXPECT_EQ(rcupool_cpu_class(0), RCUPOOL_CLASS_EFFICIENCY) << bad;
    EXPECT_EQ(rcupool_cpu_class(1), RCUPOOL_CLASS_PERFORMANCE) << bad;
    EXPECT_EQ(log.Count(RCUPOOL_LOG_WARN, "RCUPOOL_CPU_CLASSES="), 1u) << bad;
  }
}

TEST(RcupoolDescribe, PrintsClassesMaskQuotaAndDefaultSizeWithItsReason) {
  Classes c("0:efficiency,1:performance");
  int n = rcupool_describe(nullptr, 0);
  ASSERT_GT(n, 0);
  std::string text((size_t)n + 1, '\0');
  ASSERT_EQ(rcupool_describe(&text[0], text.size()), n);
  EXPECT_NE(text.find("cpu classes: performance 1; efficiency 0 "
                      "(RCUPOOL_CPU_CLASSES)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("affinity mask: "), std::string::npos) << text;
  EXPECT_NE(text.find("cgroup quota: "), std::string::npos) << text;
  EXPECT_NE(text.find("default size "), std::string::npos) << text;
  EXPECT_EQ(rcupool_describe(nullptr, 5), -EINVAL);
  char small[8];
  EXPECT_EQ(rcupool_describe(small, sizeof small), n);
  EXPECT_EQ(strlen(small), sizeof small - 1);
}

TEST(RcupoolDefaultSize, CountsOnlyPerformanceCoresOfTheClasses) {
  NEED_CPUS_01();
  Classes c("0:efficiency,1:performance");
  rcupool_t *m = nullptr;
  ASSERT_EQ(rcupool_create(nullptr, &m), 0);
  EXPECT_EQ(rcupool_threads(m), 1u);
  EXPECT_EQ(rcupool_destroy(m), 0);
}

// --- placement text ----------------------------------------------------------

TEST(RcupoolPlacementParse, ReadsEveryPolicyAndFormatsItBack) {
  for (const char *text :
       {"none", "performance", "efficiency", "performance:strict",
        "efficiency:strict", "0-3,6", "0-1:strict", "5"}) {
    rcupool_placement_t pl = Placement(text);
    char out[64];
    EXPECT_EQ(rcupool_placement_format(&pl, out, sizeof out),
              (int)strlen(text));
    EXPECT_STREQ(out, text);
  }
  rcupool_placement_t pl = Placement("  performance:strict\n");
  EXPECT_EQ(pl.policy, RCUPOOL_PLACE_PERFORMANCE);
  EXPECT_TRUE(pl.strict);
}

TEST(RcupoolPlacementParse, RejectsWhatIsNotAPlacement) {
  rcupool_placement_t pl = Placement("efficiency");
  for (const char *bad : {"", "perf", "strict", ":strict", "0-", "1-0",
                          "0,,1", "none:strictly", "1024", "-1"}) {
    EXPECT_EQ(rcupool_placement_parse(bad, &pl), -EINVAL) << bad;
    EXPECT_EQ(pl.policy, RCUPOOL_PLACE_EFFICIENCY) << bad;  // unchanged
  }
  EXPECT_EQ(rcupool_placement_parse(nullptr, &pl), -EINVAL);
  EXPECT_EQ(rcupool_placement_parse("none", nullptr), -EINVAL);
  rcupool_placement_t empty_set;
  memset(&empty_set, 0, sizeof empty_set);
  empty_set.policy = RCUPOOL_PLACE_CPUS;
  char out[16];
  EXPECT_EQ(rcupool_placement_format(&empty_set, out, sizeof out), -EINVAL);
}

// --- binding -----------------------------------------------------------------

// Each placement of a 2-thread pool (one worker), under both class maps:
// the worker's Cpus_allowed_list is the policy's CPU set.
struct BindCase {
  const char *classes;
  const char *placement;
  const char *want;
};

TEST(RcupoolPinPlaced, EveryWorkerIsBoundAsItsPolicySaysUnderBothClassMaps) {
  NEED_CPUS_01();
  const BindCase cases[] = {
      {"0:efficiency,1:performance", "performance", "1"},
      {"0:efficiency,1:performance", "efficiency", "0"},
      {"0:efficiency,1:performance", "performance:strict", "1"},
      {"0:efficiency,1:performance", "efficiency:strict", "0"},
      {"0:efficiency,1:performance", "none", "0-1"},
      {"0:efficiency,1:performance", "0", "0"},
      {"0:efficiency,1:performance", "0-1:strict", "0"},
      {"0:performance,1:efficiency", "performance", "0"},
      {"0:performance,1:efficiency", "efficiency", "1"},
      {"0:performance,1:efficiency", "performance:strict", "0"},
      {"0:performance,1:efficiency", "efficiency:strict", "1"},
      {"0:performance,1:efficiency", "1", "1"},
  };
  for (const BindCase &bc : cases) {
    Classes c(bc.classes);
    rcupool_test::NoWarmManager m(1);
    const std::set<pid_t> before = WorkerTids();
    rcupool_placement_t pl = Placement(bc.placement);
    rcupool_pin_t pin{};
    ASSERT_EQ(rcupool_pin_placed(m, 2, &pl, &pin), 0) << bc.placement;
    const std::set<pid_t> workers = NewTids(before, WorkerTids());
    ASSERT_EQ(workers.size(), 1u) << bc.placement;
    EXPECT_EQ(CpusAllowedList(*workers.begin()), bc.want)
        << bc.classes << " " << bc.placement;
    EXPECT_EQ(Stats(m).bind_failures, 0u);
    EXPECT_TRUE(rcupool_test::ParallelSumIsRight(
        rcupool_pin_pthreadpool(&pin), 1000));
    rcupool_unpin(&pin);
  }
}

TEST(RcupoolCreate, PlacedManagersPoolsAreBoundFromTheFirstAndAfterAReset) {
  NEED_CPUS_01();
  Classes c("0:efficiency,1:performance");
  // Strict, 3 threads on the 2 CPUs: the two workers on CPU 0 and CPU 1
  // (the k-th worker on the k-th CPU).
  const std::set<pid_t> before = WorkerTids();
  rcupool_t *m = PlacedManager(3, "0-1:strict");
  ASSERT_NE(m, nullptr);
  std::multiset<std::string> want = {"0", "1"};
  EXPECT_EQ(MasksOf(NewTids(before, WorkerTids())), want);
  // A reset starts its pool with the manager's placement.
  rcupool_t *p = PlacedManager(1, "performance");
  ASSERT_NE(p, nullptr);
  const std::set<pid_t> before_reset = WorkerTids();
  ASSERT_EQ(rcupool_reset(p, 2), 0);
  want = {"1"};
  EXPECT_EQ(MasksOf(NewTids(before_reset, WorkerTids())), want);
  rcupool_placement_t got;
  ASSERT_EQ(rcupool_get_placement(p, &got), 0);
  EXPECT_EQ(got.policy, RCUPOOL_PLACE_PERFORMANCE);
  EXPECT_EQ(rcupool_destroy(p), 0);
  EXPECT_EQ(rcupool_destroy(m), 0);
}

// --- identity (width, placement) ----------------------------------------------

TEST(RcupoolPinPlaced, SameWidthOtherPlacementIsAnotherPoolAndEachIsReused) {
  NEED_CPUS_01();
  Classes c("0:efficiency,1:performance");
  rcupool_test::Manager m(2, 60000, 8);  // warm pools stay
  rcupool_placement_t big = Placement("performance"),
                      little = Placement("efficiency");
  rcupool_pin_t a{}, b{};
  ASSERT_EQ(rcupool_pin_placed(m, 2, &big, &a), 0);
  ASSERT_EQ(rcupool_pin_placed(m, 2, &little, &b), 0);
  pthreadpool_t tp_big = rcupool_pin_pthreadpool(&a),
                tp_little = rcupool_pin_pthreadpool(&b);
  rcupool_stats_t s = Stats(m);
  EXPECT_NE(tp_big, tp_little);
  // The current pool (2 threads, no placement) is a third of width 2.
  rcupool_pin_t cur{};
  ASSERT_EQ(rcupool_pin(m, &cur), 0);
  EXPECT_NE(rcupool_pin_pthreadpool(&cur), tp_big);
  EXPECT_NE(rcupool_pin_pthreadpool(&cur), tp_little);
  rcupool_unpin(&cur);
  EXPECT_EQ(s.pools_created, 3u);
  EXPECT_EQ(s.pools_alive, 3u);
  EXPECT_FALSE(rcupool_pin_is_current(&a));
  rcupool_unpin(&a);
  rcupool_unpin(&b);
  // Warm now; each placement finds its own pool again.
  for (int round = 0; round < 3; round++) {
    ASSERT_EQ(rcupool_pin_placed(m, 2, &big, &a), 0);
    ASSERT_EQ(rcupool_pin_placed(m, 2, &little, &b), 0);
    EXPECT_EQ(rcupool_pin_pthreadpool(&a), tp_big);
    EXPECT_EQ(rcupool_pin_pthreadpool(&b), tp_little);
    rcupool_unpin(&a);
    rcupool_unpin(&b);
  }
  EXPECT_EQ(Stats(m).pools_created, 3u);
  // A sized pin (the manager's placement, none) of width 2 is the current
  // pool, not either placed one.
  rcupool_pin_t plain{};
  ASSERT_EQ(rcupool_pin_sized(m, 2, &plain), 0);
  EXPECT_TRUE(rcupool_pin_is_current(&plain));
  EXPECT_NE(rcupool_pin_pthreadpool(&plain), tp_big);
  EXPECT_NE(rcupool_pin_pthreadpool(&plain), tp_little);
  rcupool_unpin(&plain);
  EXPECT_EQ(rcupool_trim(m), 2);
}

TEST(RcupoolPinPlaced, BigCoreGuardIsALookupWhenWarm) {
  NEED_CPUS_01();
  Classes c("0:efficiency,1:performance");
  rcupool_test::Manager m(1, 60000, 8);
  rcupool_placement_t big = Placement("performance");
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin_placed(m, 2, &big, &pin), 0);
  pthreadpool_t tp = rcupool_pin_pthreadpool(&pin);
  rcupool_unpin(&pin);
  const rcupool_stats_t warm = Stats(m);
  ASSERT_EQ(warm.pools_idle, 1u);
  const std::set<pid_t> workers = WorkerTids();
  for (int i = 0; i < 100; i++) {
    ASSERT_EQ(rcupool_pin_placed(m, 2, &big, &pin), 0);
    rcupool_scope_enter(&pin);
    ASSERT_TRUE(rcupool_test::ManagerSumIsRight(m, 64));
    rcupool_scope_exit();
    EXPECT_EQ(rcupool_pin_pthreadpool(&pin), tp);
    rcupool_unpin(&pin);
  }
  const rcupool_stats_t after = Stats(m);
  EXPECT_EQ(after.pools_created, warm.pools_created);  // no pool started
  EXPECT_EQ(WorkerTids(), workers);                     // no thread started
  EXPECT_EQ(after.pools_idle, 1u);
}

TEST(RcupoolReset, ReusesOnlyPoolsOfTheManagersPlacement) {
  NEED_CPUS_01();
  Classes c("0:efficiency,1:performance");
  rcupool_t *m = PlacedManager(2, "performance");
  ASSERT_NE(m, nullptr);
  // A pool of width 1 placed elsewhere is alive (pinned); a reset to 1
  // must not take it.
  rcupool_placement_t little = Placement("efficiency");
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin_placed(m, 1, &little, &pin), 0);
  ASSERT_EQ(rcupool_reset(m, 1), 0);
  EXPECT_FALSE(rcupool_pin_is_current(&pin));
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.reuses, 0u);
  EXPECT_EQ(s.pools_created, 3u);
  // Back to 2: the first pool (performance) is reused.
  ASSERT_EQ(rcupool_reset(m, 2), 0);
  EXPECT_EQ(Stats(m).reuses, 1u);
  rcupool_unpin(&pin);
  EXPECT_EQ(rcupool_destroy(m), 0);
}

// --- bad input -----------------------------------------------------------------

TEST(RcupoolPinPlaced, CpusOutsideTheMaskAreEinvalOrClippedAndNothingIsLost) {
  NEED_CPUS_01();
  rcupool_test::NoWarmManager m(1);
  const rcupool_stats_t before = Stats(m);
  rcupool_placement_t outside = Placement("5-7");
  rcupool_pin_t pin{};
  {
    rcupool_test::LogRecorder log;
    EXPECT_EQ(rcupool_pin_placed(m, 2, &outside, &pin), -EINVAL);
    EXPECT_EQ(log.Count(RCUPOOL_LOG_ERROR, "no CPU of the placement"), 1u);
  }
  EXPECT_EQ(rcupool_pin_pthreadpool(&pin), nullptr);
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pools_created, before.pools_created);
  EXPECT_EQ(s.pools_alive, before.pools_alive);
  // Partly outside: clipped to CPU 1, logged.
  rcupool_placement_t part = Placement("1,5:strict");
  const std::set<pid_t> tids = WorkerTids();
  {
    rcupool_test::LogRecorder log;
    ASSERT_EQ(rcupool_pin_placed(m, 2, &part, &pin), 0);
    EXPECT_EQ(log.Count(RCUPOOL_LOG_WARN, "placed on 1"), 1u);
  }
  const std::set<pid_t> workers = NewTids(tids, WorkerTids());
  ASSERT_EQ(workers.size(), 1u);
  EXPECT_EQ(CpusAllowedList(*workers.begin()), "1");
  rcupool_unpin(&pin);
  // Not a policy at all.
  rcupool_placement_t junk;
  memset(&junk, 0, sizeof junk);
  junk.policy = (rcupool_place_t)9;
  EXPECT_EQ(rcupool_pin_placed(m, 2, &junk, &pin), -EINVAL);
  rcupool_options_t o;
  memset(&o, 0, sizeof o);
  o.placement = junk;
  rcupool_t *bad = nullptr;
  EXPECT_EQ(rcupool_create(&o, &bad), -EINVAL);
  EXPECT_EQ(bad, nullptr);
  o.placement = outside;
  o.threads = 2;
  EXPECT_EQ(rcupool_create(&o, &bad), -EINVAL);
  EXPECT_EQ(bad, nullptr);
}

// Issue 38, defect 6: rcupool_create() refuses a placement that cannot be
// placed whatever the count, as manager.h says: with 1 thread (no worker to
// place) and with the default count too. (Before: 0 for 1 thread.)
TEST(RcupoolCreate, OneThreadWithAPlacementOutsideTheMaskIsEinval) {
  cpu_set_t *mask = CPU_ALLOC(1024);
  const size_t size = CPU_ALLOC_SIZE(1024);
  const bool in = sched_getaffinity(0, size, mask) == 0 &&
                  CPU_ISSET_S(1000, size, mask);
  CPU_FREE(mask);
  if (in) GTEST_SKIP() << "CPU 1000 is in this process's mask";
  rcupool_options_t o;
  memset(&o, 0, sizeof o);
  o.placement = Placement("1000");
  for (size_t threads : {1, 0}) {
    o.threads = threads;
    rcupool_t *bad = nullptr;
    rcupool_test::LogRecorder log;
    EXPECT_EQ(rcupool_create(&o, &bad), -EINVAL) << threads << " threads";
    EXPECT_EQ(bad, nullptr);
    EXPECT_EQ(log.Count(RCUPOOL_LOG_ERROR, "no CPU of the placement"), 1u);
  }
  // Partly in the mask: created (its workers are placed on the rest).
  o.placement = Placement("0-1023");
  o.threads = 1;
  rcupool_t *m = nullptr;
  ASSERT_EQ(rcupool_create(&o, &m), 0);
  EXPECT_EQ(rcupool_destroy(m), 0);
}

TEST(RcupoolPinPlaced, AClassWithNoCpuInTheMaskFallsBackToTheMask) {
  NEED_CPUS_01();
  // One class: every CPU is a performance CPU, none an efficiency CPU.
  Classes c("0-1:performance");
  rcupool_test::NoWarmManager m(1);
  rcupool_placement_t little = Placement("efficiency");
  rcupool_pin_t pin{};
  const std::set<pid_t> tids = WorkerTids();
  rcupool_test::LogRecorder log;
  ASSERT_EQ(rcupool_pin_placed(m, 2, &little, &pin), 0);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_INFO, "no efficiency CPU in the affinity mask"),
            1u);
  const std::set<pid_t> workers = NewTids(tids, WorkerTids());
  ASSERT_EQ(workers.size(), 1u);
  EXPECT_EQ(CpusAllowedList(*workers.begin()), "0-1");
  rcupool_unpin(&pin);
}

}  // namespace
