// SPDX-License-Identifier: LGPL-2.1-or-later
// The machine seam (lib/machine.c, rcupl_machine_set_root) and what reads
// through it: the cores of lib/cores.c (the kernel's topology, CPUs that
// come online and go), the mask of a fake machine, the unrounded cgroup
// quota in the sizing line and rcupool_describe(), and the default rule
// (rcupool_options_t.default_rule, rcupool_set_default_rule). Every case
// runs on a fake machine, so none depends on the one it runs on.
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "rcupool_private/testing.h"
#include "tests/support/support.h"

namespace {

// A fake machine: n CPUs online and in the mask, each its own core unless
// Smt() pairs them; removed, and the real machine back, at scope exit.
class FakeMachine {
 public:
  explicit FakeMachine(int cpus) {
    const char *tmp = getenv("TEST_TMPDIR");
    root_ = std::string(tmp != nullptr ? tmp : "/tmp") + "/machineXXXXXX";
    EXPECT_NE(mkdtemp(&root_[0]), nullptr);
    std::string all = "0-" + std::to_string(cpus - 1);
    Write("sys/devices/system/cpu/present", all);
    Write("sys/devices/system/cpu/online", all);
    Write("proc/self/status", "Name:\tt\nCpus_allowed_list:\t" + all);
    Write("proc/self/cgroup", "0::/");
    for (int c = 0; c < cpus; c++)
      Write(Cpu(c) + "topology/core_cpus_list", std::to_string(c));
    unsetenv("RCUPOOL_CPU_CLASSES");
    unsetenv("RCUPOOL_NUM_THREADS");
  }
  ~FakeMachine() {
    rcupl_machine_set_root(nullptr);
    EXPECT_EQ(system(("rm -rf " + root_).c_str()), 0);
  }
  static std::string Cpu(int c) {
    return "sys/devices/system/cpu/cpu" + std::to_string(c) + "/";
  }
  void Write(const std::string &rel, const std::string &text) {
    std::string path = root_ + "/" + rel;
    for (size_t at = root_.size() + 1;
         (at = path.find('/', at + 1)) != std::string::npos;)
      mkdir(path.substr(0, at).c_str(), 0755);
    std::ofstream(path) << text << "\n";
  }
  // CPUs c and c + half share a core (SMT, as x86 numbers them).
  void Smt(int cpus) {
    for (int c = 0; c < cpus; c++) {
      int a = c % (cpus / 2), b = a + cpus / 2;
      Write(Cpu(c) + "topology/core_cpus_list",
            std::to_string(a) + "," + std::to_string(b));
    }
  }
  void Use() { rcupl_machine_set_root(root_.c_str()); }
  const char *root() const { return root_.c_str(); }

 private:
  std::string root_;
};

std::string Describe() {
  int n = rcupool_describe(nullptr, 0);
  EXPECT_GT(n, 0);
  std::string text((size_t)n + 1, '\0');
  EXPECT_EQ(rcupool_describe(&text[0], text.size()), n);
  return text;
}

rcupool_t *Create(size_t threads, int rule = RCUPOOL_DEFAULT_RULE_CORES) {
  rcupool_options_t o;
  memset(&o, 0, sizeof o);
  o.threads = threads;
  o.default_rule = rule;
  o.follow = RCUPOOL_FOLLOW_OFF;
  o.warm_pools = RCUPOOL_WARM_NONE;
  rcupool_t *m = nullptr;
  EXPECT_EQ(rcupool_create(&o, &m), 0);
  return m;
}

TEST(RcuplMachineSetRoot, DefaultCountGroupsSmtSiblingsIntoOneCore) {
  FakeMachine fm(8);
  fm.Smt(8);
  fm.Use();
  rcupool_test::LogRecorder log;
  rcupool_t *m = Create(0);
  EXPECT_EQ(rcupool_threads(m), 4u);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_INFO,
                      "default size 4 threads: 4 performance cores (kernel "
                      "topology) in the affinity mask of 8 CPUs"),
            1u);
  EXPECT_EQ(rcupool_destroy(m), 0);
}

TEST(RcuplMachineSetRoot, ThreadSiblingsListServesWhereCoreCpusListIsMissing) {
  FakeMachine fm(4);
  for (int c = 0; c < 4; c++) {
    std::string dir = std::string(fm.root()) + "/" + FakeMachine::Cpu(c);
    ASSERT_EQ(unlink((dir + "topology/core_cpus_list").c_str()), 0);
    fm.Write(FakeMachine::Cpu(c) + "topology/thread_siblings_list",
             c < 2 ? "0-1" : "2-3");
  }
  fm.Use();
  EXPECT_NE(Describe().find("\ncores: 2 (2 performance), from kernel "
                            "topology\n"),
            std::string::npos)
      << Describe();
}

TEST(RcuplMachineSetRoot, NoTopologyCountsEachCpuAndSaysSo) {
  FakeMachine fm(3);
  for (int c = 0; c < 3; c++)
    ASSERT_EQ(system(("rm -r " + std::string(fm.root()) + "/" +
                      FakeMachine::Cpu(c) + "topology")
                         .c_str()),
              0);
  fm.Use();
  std::string text = Describe();
  EXPECT_NE(text.find("default size 3 threads: 3 performance cores (no "
                      "kernel topology, cpuinfo not read: each CPU counted)"),
            std::string::npos)
      << text;
}

TEST(RcuplMachineSetRoot, ResetZeroCountsCpusGoingOfflineAndComingOnline) {
  FakeMachine fm(4);
  fm.Use();
  rcupool_t *m = Create(0);
  EXPECT_EQ(rcupool_threads(m), 4u);
  fm.Write("sys/devices/system/cpu/online", "0-1");
  ASSERT_EQ(rcupool_reset(m, 0), 0);
  EXPECT_EQ(rcupool_threads(m), 2u);
  EXPECT_NE(Describe().find("in the affinity mask of 4 CPUs (online: 2)"),
            std::string::npos)
      << Describe();
  fm.Write("sys/devices/system/cpu/online", "0-3");
  ASSERT_EQ(rcupool_reset(m, 0), 0);
  EXPECT_EQ(rcupool_threads(m), 4u);
  EXPECT_EQ(rcupool_destroy(m), 0);
}

// A CPU hot-added after the manager was made (a VM's new vCPU: present and
// online 0 -> 0-1, its own core, and in the mask), then removed again.
TEST(RcuplMachineSetRoot, ResetZeroCountsAndClassesACpuHotAddedThenRemoved) {
  FakeMachine fm(1);
  fm.Use();
  rcupool_t *m = Create(0);
  EXPECT_EQ(rcupool_threads(m), 1u);
  EXPECT_EQ(rcupool_cpu_class(1), RCUPOOL_CLASS_NONE);
  fm.Write(FakeMachine::Cpu(1) + "topology/core_cpus_list", "1");
  fm.Write("proc/self/status", "Name:\tt\nCpus_allowed_list:\t0-1");
  fm.Write("sys/devices/system/cpu/present", "0-1");
  fm.Write("sys/devices/system/cpu/online", "0-1");
  ASSERT_EQ(rcupool_reset(m, 0), 0);
  EXPECT_EQ(rcupool_threads(m), 2u);
  EXPECT_EQ(rcupool_cpu_class(1), RCUPOOL_CLASS_PERFORMANCE);
  EXPECT_NE(Describe().find("cpu classes: performance 0-1;"),
            std::string::npos)
      << Describe();
  fm.Write("sys/devices/system/cpu/online", "0");
  fm.Write("sys/devices/system/cpu/present", "0");
  ASSERT_EQ(rcupool_reset(m, 0), 0);
  EXPECT_EQ(rcupool_threads(m), 1u);
  EXPECT_EQ(rcupool_cpu_class(1), RCUPOOL_CLASS_NONE);
  EXPECT_EQ(rcupool_destroy(m), 0);
}

// Readers of the classes while the CPUs present change under them: each
// change publishes a new snapshot and frees the old one (CLASSES-1); a
// copy never reads a freed one (ASan, TSAN) and sees CPU 0 performance.
TEST(RcupoolCpuClass, ReadWhileCpusPresentChangeSeesWholeSnapshots) {
  FakeMachine fm(2);
  fm.Use();
  std::atomic<bool> stop{false};
  std::atomic<long> reads{0}, wrong{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; t++)
    readers.emplace_back([&] {
      while (!stop.load()) {
        if (rcupool_cpu_class(0) != RCUPOOL_CLASS_PERFORMANCE) wrong++;
        reads++;
      }
    });
  for (int i = 0; i < 200; i++) {
    fm.Write("sys/devices/system/cpu/present", i % 2 == 0 ? "0" : "0-1");
    EXPECT_GT(Describe().size(), 0u);  // a look that reads online
  }
  stop = true;
  for (auto &t : readers) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(reads.load(), 0);
  std::printf("%ld reads of the classes\n", reads.load());
}

TEST(RcuplMachineSetRoot, MaskIsTheFakeMachinesCpusAllowedList) {
  FakeMachine fm(8);
  fm.Write("proc/self/status", "Cpus_allowed_list:\t2-3,6");
  fm.Use();
  std::string text = Describe();
  EXPECT_NE(text.find("affinity mask: 2-3,6 (3 CPUs)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("default size 3 threads"), std::string::npos) << text;
}

TEST(RcuplMachineSetRoot, MaskOfEfficiencyCoresOnlyCountsEveryCoreAndSaysSo) {
  FakeMachine fm(4);
  for (int c = 0; c < 4; c++)
    fm.Write(FakeMachine::Cpu(c) + "cpu_capacity", c < 2 ? "446" : "1024");
  fm.Write("proc/self/status", "Cpus_allowed_list:\t0-1");
  fm.Use();
  std::string text = Describe();
  EXPECT_NE(text.find("default size 2 threads: 2 cores (kernel topology) in "
                      "the affinity mask of 2 CPUs, none of them a "
                      "performance core"),
            std::string::npos)
      << text;
}

TEST(RcuplMachineSetRoot, CgroupQuotaIsShownUnroundedWithTheCountItGives) {
  FakeMachine fm(4);
  fm.Write("sys/fs/cgroup/cpu.max", "150000 100000");
  fm.Use();
  std::string text = Describe();
  EXPECT_NE(text.find("cgroup quota: 1.5 CPUs -> 2 threads\n"),
            std::string::npos)
      << text;
  rcupool_test::LogRecorder log;
  rcupool_t *m = Create(0);
  EXPECT_EQ(rcupool_threads(m), 2u);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_INFO, "; cgroup quota 1.5 CPUs -> 2 threads"),
            1u);
  EXPECT_EQ(rcupool_destroy(m), 0);
}

TEST(RcupoolCreate, DefaultRuleProcessorsCountsEverySmtSibling) {
  FakeMachine fm(8);
  fm.Smt(8);
  fm.Use();
  rcupool_t *cores = Create(0, RCUPOOL_DEFAULT_RULE_CORES);
  rcupool_t *procs = Create(0, RCUPOOL_DEFAULT_RULE_PROCESSORS);
  EXPECT_EQ(rcupool_threads(cores), 4u);
  EXPECT_EQ(rcupool_threads(procs), 8u);
  EXPECT_EQ(rcupool_default_rule(procs), RCUPOOL_DEFAULT_RULE_PROCESSORS);
  EXPECT_EQ(rcupool_destroy(cores), 0);
  EXPECT_EQ(rcupool_destroy(procs), 0);
  rcupool_t *m = nullptr;
  rcupool_options_t bad;
  memset(&bad, 0, sizeof bad);
  bad.default_rule = 7;
  EXPECT_EQ(rcupool_create(&bad, &m), -EINVAL);
}

TEST(RcupoolSetDefaultRule, OnACountNotChosenResetsToTheRulesCountNow) {
  FakeMachine fm(4);
  fm.Smt(4);
  fm.Use();
  rcupool_t *m = Create(0);
  ASSERT_EQ(rcupool_threads(m), 2u);
  EXPECT_EQ(rcupool_set_default_rule(m, RCUPOOL_DEFAULT_RULE_PROCESSORS), 0);
  EXPECT_EQ(rcupool_threads(m), 4u);
  ASSERT_EQ(rcupool_reset(m, 0), 0);  // the rule stays for later resets
  EXPECT_EQ(rcupool_threads(m), 4u);
  EXPECT_EQ(rcupool_set_default_rule(m, RCUPOOL_DEFAULT_RULE_CORES), 0);
  EXPECT_EQ(rcupool_threads(m), 2u);
  EXPECT_EQ(rcupool_destroy(m), 0);
}

TEST(RcupoolSetDefaultRule, OnAChosenCountKeepsItAndAppliesAtResetZero) {
  FakeMachine fm(4);
  fm.Smt(4);
  fm.Use();
  rcupool_t *m = Create(0);
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  EXPECT_EQ(rcupool_set_default_rule(m, RCUPOOL_DEFAULT_RULE_PROCESSORS), 0);
  EXPECT_EQ(rcupool_threads(m), 3u);
  ASSERT_EQ(rcupool_reset(m, 0), 0);
  EXPECT_EQ(rcupool_threads(m), 4u);
  EXPECT_EQ(rcupool_destroy(m), 0);
  rcupool_t *created = Create(3);
  EXPECT_EQ(rcupool_set_default_rule(created, RCUPOOL_DEFAULT_RULE_CORES), 0);
  EXPECT_EQ(rcupool_threads(created), 3u);
  EXPECT_EQ(rcupool_destroy(created), 0);
}

TEST(RcupoolSetDefaultRule, BadRuleOrNoManagerIsEinvalAndChangesNothing) {
  FakeMachine fm(2);
  fm.Use();
  rcupool_t *m = Create(0);
  rcupool_test::LogRecorder log;
  EXPECT_EQ(rcupool_set_default_rule(m, 2), -EINVAL);
  EXPECT_EQ(rcupool_set_default_rule(m, -1), -EINVAL);
  EXPECT_EQ(rcupool_set_default_rule(nullptr, RCUPOOL_DEFAULT_RULE_CORES),
            -EINVAL);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_ERROR, "set_default_rule: "), 3u);
  EXPECT_EQ(rcupool_default_rule(m), RCUPOOL_DEFAULT_RULE_CORES);
  EXPECT_EQ(rcupool_default_rule(nullptr), RCUPOOL_DEFAULT_RULE_CORES);
  EXPECT_EQ(rcupool_destroy(m), 0);
}

}  // namespace
