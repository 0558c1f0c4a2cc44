// SPDX-License-Identifier: LGPL-2.1-or-later
// The default size (lib/cpus.c, with the cgroup quota of lib/limits.c): the
// affinity mask, the cgroup CPU quota and RCUPOOL_NUM_THREADS. The taskset
// cases run tests/cpus_probe in a child process under `taskset -c <first
// CPU of this test's mask>`.
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "rcupool_private/testing.h"
#include "tests/support/support.h"

extern char **environ;

namespace {

// Relative to the test's working directory (its runfiles).
const char kProbe[] = "tests/cpus_probe";

int FirstCpuOfMask() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
  for (int i = 0; i < CPU_SETSIZE; i++)
    if (CPU_ISSET(i, &set)) return i;
  return -1;
}

// Every CPU of this test's mask, as a taskset list ("0,1").
std::string MaskList() {
  cpu_set_t set;
  std::string list;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return list;
  for (int i = 0; i < CPU_SETSIZE; i++)
    if (CPU_ISSET(i, &set)) list += (list.empty() ? "" : ",") + std::to_string(i);
  return list;
}

// Runs `taskset -c <cpus> tests/cpus_probe [flag]` with RCUPOOL_NUM_THREADS
// set to env_value (nullptr: unset) and returns its key=value output.
std::map<std::string, long> RunProbeUnderTaskset(const std::string &cpus,
                                                 const char *env_value,
                                                 const char *flag) {
  std::map<std::string, long> out;
  std::vector<std::string> env;
  for (char **e = environ; *e != nullptr; e++)
    if (strncmp(*e, "RCUPOOL_NUM_THREADS=", 20) != 0) env.push_back(*e);
  if (env_value != nullptr)
    env.push_back(std::string("RCUPOOL_NUM_THREADS=") + env_value);
  std::vector<char *> envp;
  for (auto &s : env) envp.push_back(&s[0]);
  envp.push_back(nullptr);

  std::string cpu_list = cpus;
  std::string probe = kProbe;
  std::string flag_s = flag != nullptr ? flag : "";
  char taskset[] = "taskset", dash_c[] = "-c";
  char *argv[] = {taskset, dash_c, &cpu_list[0], &probe[0],
                  flag != nullptr ? &flag_s[0] : nullptr, nullptr};

  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  pid_t pid = -1;
  int err = posix_spawnp(&pid, "taskset", &fa, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  EXPECT_EQ(err, 0) << "taskset could not start";
  std::string text;
  char buf[256];
  ssize_t got;
  while ((got = read(fds[0], buf, sizeof buf)) > 0) text.append(buf, got);
  close(fds[0]);
  int status = 0;
  if (err == 0) waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "probe status " << status << ", output: " << text;
  printf("taskset -c %s %s%s%s (RCUPOOL_NUM_THREADS=%s): %s", cpus.c_str(),
         kProbe,
         flag ? " " : "", flag ? flag : "", env_value ? env_value : "unset",
         text.c_str());
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eq = text.find('=', pos);
    if (eq == std::string::npos) break;
    size_t end = text.find_first_of(" \n", eq);
    if (end == std::string::npos) end = text.size();
    out[text.substr(pos, eq - pos)] = strtol(text.c_str() + eq + 1, nullptr, 10);
    pos = end + 1;
  }
  return out;
}

TEST(RcupoolDefault, UnderTasksetOneCpuHasOneThreadInStatsAndOs) {
  int cpu = FirstCpuOfMask();
  ASSERT_GE(cpu, 0);
  auto r = RunProbeUnderTaskset(std::to_string(cpu), nullptr, nullptr);
  EXPECT_EQ(r["threads"], 1);
  EXPECT_EQ(r["os_threads"], 1);
}

TEST(RcupoolDefault, UnderTasksetOneCpuEnvironmentCountStillOverrides) {
  int cpu = FirstCpuOfMask();
  ASSERT_GE(cpu, 0);
  auto r = RunProbeUnderTaskset(std::to_string(cpu), "3", nullptr);
  EXPECT_EQ(r["threads"], 3);
  EXPECT_EQ(r["os_threads"], 3);
}

TEST(RcupoolReset, ZeroAfterProcessNarrowedItsMaskGivesOneThreadPinKeepsPool) {
  // The default manager of a fresh process (the probe), on every CPU of this
  // test's mask; the probe narrows itself to one CPU at run time.
  auto r = RunProbeUnderTaskset(MaskList(), nullptr, "--narrow");
  if (r["threads"] < 2) GTEST_SKIP() << "default is already 1 thread here";
  EXPECT_EQ(r["narrowed"], 1);
  EXPECT_EQ(r["pin_threads"], r["threads"]);
  EXPECT_EQ(r["pin_ok"], 1);
}

// A fake cgroup tree: <root>/proc/self/cgroup and <root>/sys/fs/cgroup/...
class FakeRoot {
 public:
  FakeRoot() {
    const char *tmp = getenv("TEST_TMPDIR");
    std::string templ = std::string(tmp ? tmp : "/tmp") + "/cgroupXXXXXX";
    EXPECT_NE(mkdtemp(&templ[0]), nullptr);
    root_ = templ;
  }
  ~FakeRoot() {
    std::string cmd = "rm -rf '" + root_ + "'";
    EXPECT_EQ(system(cmd.c_str()), 0);
  }
  // Writes text to <root>/rel, creating directories.
  void Write(const std::string &rel, const std::string &text) {
    std::string path = root_;
    size_t pos = 0;
    while ((pos = rel.find('/', pos + 1)) != std::string::npos) {
      mkdir((root_ + rel.substr(0, pos)).c_str(), 0755);
    }
    path += rel;
    FILE *f = fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr) << path;
    fputs(text.c_str(), f);
    fclose(f);
  }
  const char *path() const { return root_.c_str(); }

 private:
  std::string root_;
};

// Restores the real cgroup files when a test leaves.
struct RealRootAtExit {
  ~RealRootAtExit() { rcupl_cpus_set_cgroup_root(nullptr); }
};

// The default count of a private manager created now under root.
size_t DefaultCountUnder(const char *root) {
  rcupl_cpus_set_cgroup_root(root);
  rcupool_t *m = nullptr;
  EXPECT_EQ(rcupool_create(nullptr, &m), 0);
  size_t n = rcupool_threads(m);
  EXPECT_EQ(rcupool_destroy(m), 0);
  return n;
}

// The count with no cgroup files at all: cores in the mask.
size_t UnlimitedCount() {
  FakeRoot empty;
  RealRootAtExit restore;
  return DefaultCountUnder(empty.path());
}

TEST(RpCpusParseCpuMax, EachFormHasItsCount) {
  struct Case {
    const char *text;
    int err;
    size_t cpus;
  } cases[] = {
      {"max 100000\n", 0, 0},      {"max", 0, 0},
      {"150000 100000\n", 0, 2},   {"50000 100000\n", 0, 1},
      {"100000 100000", 0, 1},     {"400000 100000", 0, 4},
      {"1 100000", 0, 1},          {"999999999999999999 1", 0, 256},
      {"", -EINVAL, 7},            {"abc", -EINVAL, 7},
      {"100000", -EINVAL, 7},      {"-5 100000", -EINVAL, 7},
      {"150000 0", -EINVAL, 7},    {"0 100000", -EINVAL, 7},
      {"max x", -EINVAL, 7},       {"150000  100000", -EINVAL, 7},
      {"1.5 100000", -EINVAL, 7},  {"9999999999999999999999 1", -EINVAL, 7},
  };
  for (const Case &c : cases) {
    size_t cpus = 7;
    EXPECT_EQ(rcupl_limits_parse_cpu_max(c.text, &cpus), c.err) << c.text;
    EXPECT_EQ(cpus, c.cpus) << c.text;
  }
}

TEST(RpCpusParseCfs, QuotaAndPeriodHaveTheirCount) {
  size_t cpus = 7;
  EXPECT_EQ(rcupl_limits_parse_cfs("-1\n", "100000\n", &cpus), 0);
  EXPECT_EQ(cpus, 0u);
  EXPECT_EQ(rcupl_limits_parse_cfs("150000\n", "100000\n", &cpus), 0);
  EXPECT_EQ(cpus, 2u);
  EXPECT_EQ(rcupl_limits_parse_cfs("50000", "100000", &cpus), 0);
  EXPECT_EQ(cpus, 1u);
  cpus = 7;
  EXPECT_EQ(rcupl_limits_parse_cfs("x", "100000", &cpus), -EINVAL);
  EXPECT_EQ(rcupl_limits_parse_cfs("150000", "0", &cpus), -EINVAL);
  EXPECT_EQ(rcupl_limits_parse_cfs("150000", "", &cpus), -EINVAL);
  EXPECT_EQ(rcupl_limits_parse_cfs("-2", "100000", &cpus), -EINVAL);
  EXPECT_EQ(cpus, 7u);
}

// cgroup v2: each cpu.max gives its limit, and a private manager created
// with the default count gets min(cores in the mask, limit).
TEST(RcupoolCreate, DefaultCountIsCappedByCgroupV2CpuMax) {
  const size_t unlimited = UnlimitedCount();
  RealRootAtExit restore;
  struct Case {
    const char *cpu_max;
    size_t limit;
  } cases[] = {{"max 100000\n", 0}, {"150000 100000\n", 2},
               {"50000 100000\n", 1}};
  for (const Case &c : cases) {
    FakeRoot r;
    r.Write("/proc/self/cgroup", "0::/app.slice/svc\n");
    r.Write("/sys/fs/cgroup/app.slice/svc/cpu.max", c.cpu_max);
    EXPECT_EQ(rcupl_limits_cgroup_cpus(r.path()), c.limit) << c.cpu_max;
    size_t want = c.limit == 0 ? unlimited : std::min(unlimited, c.limit);
    EXPECT_EQ(DefaultCountUnder(r.path()), want) << c.cpu_max;
    printf("cpu.max \"%.*s\": limit %zu, default %zu threads\n",
           (int)strcspn(c.cpu_max, "\n"), c.cpu_max, c.limit, want);
  }
}

TEST(RcupoolCreate, ParentCgroupQuotaBindsChildWithoutOne) {
  RealRootAtExit restore;
  FakeRoot r;
  r.Write("/proc/self/cgroup", "0::/kubepods/pod1/ctr\n");
  r.Write("/sys/fs/cgroup/kubepods/pod1/cpu.max", "50000 100000\n");
  r.Write("/sys/fs/cgroup/kubepods/pod1/ctr/cpu.max", "max 100000\n");
  EXPECT_EQ(rcupl_limits_cgroup_cpus(r.path()), 1u);
  EXPECT_EQ(DefaultCountUnder(r.path()), 1u);
}

TEST(RcupoolCreate, DefaultCountIsCappedByCgroupV1CfsQuota) {
  const size_t unlimited = UnlimitedCount();
  RealRootAtExit restore;
  {
    FakeRoot r;  // a container that sees its own cgroup at the mount point
    r.Write("/proc/self/cgroup",
            "5:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n0::/\n");
    r.Write("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "50000\n");
    r.Write("/sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n");
    EXPECT_EQ(rcupl_limits_cgroup_cpus(r.path()), 1u);
    EXPECT_EQ(DefaultCountUnder(r.path()), 1u);
  }
  {
    FakeRoot r;
    r.Write("/proc/self/cgroup", "3:cpu:/batch\n");
    r.Write("/sys/fs/cgroup/cpu/batch/cpu.cfs_quota_us", "150000\n");
    r.Write("/sys/fs/cgroup/cpu/batch/cpu.cfs_period_us", "100000\n");
    EXPECT_EQ(rcupl_limits_cgroup_cpus(r.path()), 2u);
    EXPECT_EQ(DefaultCountUnder(r.path()), std::min<size_t>(unlimited, 2));
  }
  {
    FakeRoot r;
    r.Write("/proc/self/cgroup", "3:cpu:/\n");
    r.Write("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "-1\n");
    r.Write("/sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n");
    EXPECT_EQ(rcupl_limits_cgroup_cpus(r.path()), 0u);
    EXPECT_EQ(DefaultCountUnder(r.path()), unlimited);
  }
}

TEST(RcupoolCreate, CgroupV2CpuMaxWinsOverV1Files) {
  RealRootAtExit restore;
  FakeRoot r;
  r.Write("/proc/self/cgroup", "3:cpu:/\n0::/\n");
  r.Write("/sys/fs/cgroup/cpu.max", "50000 100000\n");
  r.Write("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "200000\n");
  r.Write("/sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n");
  EXPECT_EQ(rcupl_limits_cgroup_cpus(r.path()), 1u);
}

TEST(RcupoolCreate, MissingCgroupFilesMeanNoQuota) {
  const size_t unlimited = UnlimitedCount();
  RealRootAtExit restore;
  FakeRoot nothing;
  EXPECT_EQ(rcupl_limits_cgroup_cpus(nothing.path()), 0u);
  FakeRoot no_cpu_files;
  no_cpu_files.Write("/proc/self/cgroup", "0::/a/b\n");
  no_cpu_files.Write("/sys/fs/cgroup/a/b/cgroup.procs", "1\n");
  EXPECT_EQ(rcupl_limits_cgroup_cpus(no_cpu_files.path()), 0u);
  EXPECT_EQ(DefaultCountUnder(no_cpu_files.path()), unlimited);
  FakeRoot v1_without_period;
  v1_without_period.Write("/proc/self/cgroup", "3:cpu:/\n");
  v1_without_period.Write("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "50000\n");
  EXPECT_EQ(rcupl_limits_cgroup_cpus(v1_without_period.path()), 0u);
}

TEST(RcupoolCreate, MalformedCgroupFilesAreLoggedAndIgnored) {
  const size_t unlimited = UnlimitedCount();
  RealRootAtExit restore;
  const std::string long_line(5000, '7');
  for (const std::string &bad :
       {std::string("garbage\n"), std::string(""), std::string("100000\n"),
        std::string("150000 0\n"), std::string("-1 100000\n"), long_line,
        std::string("\x01\x02\xff max", 7)}) {
    rcupool_test::LogRecorder log;
    FakeRoot r;
    r.Write("/proc/self/cgroup", "0::/s\n");
    r.Write("/sys/fs/cgroup/s/cpu.max", bad);
    EXPECT_EQ(rcupl_limits_cgroup_cpus(r.path()), 0u) << bad;
    EXPECT_EQ(DefaultCountUnder(r.path()), unlimited) << bad;
    EXPECT_GE(log.Count(RCUPOOL_LOG_WARN, "not a CPU quota"), 1u) << bad;
  }
  // A /proc/self/cgroup that is no list of cgroups: no quota, no crash.
  for (const std::string &bad :
       {std::string("nonsense"), std::string("0::"), std::string(":::\n::\n"),
        std::string(5000, ':'), std::string("1:cpu\n")}) {
    FakeRoot r;
    r.Write("/proc/self/cgroup", bad);
    r.Write("/sys/fs/cgroup/cpu.max", "50000 100000\n");
    EXPECT_EQ(rcupl_limits_cgroup_cpus(r.path()), 0u) << bad;
  }
}

TEST(RcupoolCreate, DefaultSizeLineIsLoggedAtInfoOnceWhileLimitsStay) {
  RealRootAtExit restore;
  FakeRoot r;
  r.Write("/proc/self/cgroup", "0::/\n");
  r.Write("/sys/fs/cgroup/cpu.max", "50000 100000\n");
  rcupool_test::LogRecorder log;
  EXPECT_EQ(DefaultCountUnder(r.path()), 1u);
  rcupool_t *again = nullptr;
  ASSERT_EQ(rcupool_create(nullptr, &again), 0);
  EXPECT_EQ(rcupool_destroy(again), 0);
  // One thread, one CPU: singular (issue 34's "1 CPUs").
  const char line[] = "default size 1 thread: ";
  EXPECT_EQ(log.Count(RCUPOOL_LOG_INFO, line), 1u);
  // The quota as the cgroup gives it, and the count it rounds up to.
  EXPECT_EQ(log.Count(RCUPOOL_LOG_INFO, "cgroup quota 0.5 CPUs -> 1 thread"),
            1u);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_INFO, "1 CPUs"), 0u);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_INFO, "1 threads"), 0u);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_INFO, "in the affinity mask of"), 1u);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_DEBUG, line), 1u);
  for (const std::string &l : log.All())
    if (l.find("default size") != std::string::npos)
      printf("log: %s\n", l.c_str());
}

// Narrows the calling thread's mask to one CPU; restores it when it leaves.
class NarrowedToOneCpu {
 public:
  NarrowedToOneCpu() {
    EXPECT_EQ(sched_getaffinity(0, sizeof saved_, &saved_), 0);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(FirstCpuOfMask(), &one);
    EXPECT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  }
  ~NarrowedToOneCpu() { EXPECT_EQ(sched_setaffinity(0, sizeof saved_, &saved_), 0); }

 private:
  cpu_set_t saved_;
};

TEST(RcupoolReset, ZeroAfterAffinityNarrowedGivesNewCountAndPinKeepsItsPool) {
  RealRootAtExit restore;
  FakeRoot no_quota;
  rcupl_cpus_set_cgroup_root(no_quota.path());
  rcupool_test::NoWarmManager m(0);
  const size_t wide = rcupool_threads(m);
  if (wide < 2) GTEST_SKIP() << "the default is already 1 thread here";
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin(m, &pin), 0);
  {
    NarrowedToOneCpu narrowed;
    ASSERT_EQ(rcupool_reset(m, 0), 0);
    EXPECT_EQ(rcupool_threads(m), 1u);
    EXPECT_EQ(rcupool_test::Stats(m).threads, 1u);
    EXPECT_EQ(rcupool_pin_threads(&pin), wide);
    EXPECT_FALSE(rcupool_pin_is_current(&pin));
    EXPECT_TRUE(rcupool_test::ParallelSumIsRight(rcupool_pin_pthreadpool(&pin),
                                                 10000));
    EXPECT_TRUE(rcupool_test::ManagerSumIsRight(m, 10000));
  }
  // The mask widened again: the next default reset goes back, reusing the
  // pinned pool of that size.
  ASSERT_EQ(rcupool_reset(m, 0), 0);
  EXPECT_EQ(rcupool_threads(m), wide);
  EXPECT_TRUE(rcupool_pin_is_current(&pin));
  EXPECT_EQ(rcupool_test::Stats(m).reuses, 1u);
  rcupool_unpin(&pin);
}

TEST(RcupoolReset, ZeroOnManagerCreatedWithCountKeepsThatCount) {
  rcupool_test::NoWarmManager m(3);
  ASSERT_EQ(rcupool_reset(m, 5), 0);
  NarrowedToOneCpu narrowed;
  ASSERT_EQ(rcupool_reset(m, 0), 0);
  EXPECT_EQ(rcupool_threads(m), 3u);
}

}  // namespace
