// SPDX-License-Identifier: LGPL-2.1-or-later
// Every line of rcupool's output that the docs and the public headers
// quote is what a run prints. The quoted lines are found by their shape
// (a sizing or follow line, "default size ...", "manager <address>: ...",
// an "rcupool: LEVEL: default..." line of the default sink, and the
// lines under a "$ ... rcupool_info" command of docs/); each must be in
// kCases below, and each case is checked twice: its line stands in its
// file as quoted, and a run made under the case's conditions prints it.
//
// The runs: the library's own code on a fake machine (lib/testing.h's
// machine root): two CPUs, one core each, no cgroup quota unless the case
// sets one, cpuinfo reading 1 core where the quote says so (the project's
// build machine, tests/zoo/machines/epyc-vm-2.machine); the default
// sink's lines in a fresh copy of this program with the quoted
// environment, its stderr read back. A quote with "..." in it is an
// abridged line and is not checked.
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "rcupool_private/testing.h"
#include "tests/support/in_child.h"
#include "tests/support/support.h"

namespace {

// The run that prints a quoted line.
enum Run {
  kFollow,         // a default count following the mask, then the quota
  kSizing,         // a manager of the default size created on the fake machine
  kInfo,           // rcupool_describe(), what rcupool_info prints
  kEnvironment,    // docs/environment.md's variables, default sink at info
  kEnvNumThreads,  // RCUPOOL_NUM_THREADS=3, the line as a hook sees it
};

struct Case {
  const char *file;
  const char *line;
  Run run;
};

const Case kCases[] = {
    {"docs/placement.md",
     "manager <address>: default size 2 -> 1: affinity mask 2 CPUs -> 1 CPU",
     kFollow},
    {"docs/placement.md",
     "manager <address>: default size 1 -> 2: cgroup quota 1 CPU -> none",
     kFollow},
    {"include/rcupool/follow.h",
     "default size 2 -> 1: affinity mask 2 CPUs -> 1 CPU", kFollow},
    {"docs/default-size.md",
     "default size 2 threads: 2 performance cores (kernel topology; cpuinfo "
     "reads 1 core) in the affinity mask of 2 CPUs; cgroup quota 1.5 CPUs -> "
     "2 threads",
     kSizing},
    {"include/rcupool/manager.h",
     "default size 1 thread: 2 performance cores (kernel topology) in the "
     "affinity mask of 2 CPUs; cgroup quota 1 CPU -> 1 thread",
     kSizing},
    {"docs/default-size.md", "default size 3 threads: RCUPOOL_NUM_THREADS=3",
     kEnvNumThreads},
    {"docs/placement.md",
     "cpu classes: performance 1; efficiency 0 (RCUPOOL_CPU_CLASSES)", kInfo},
    {"docs/placement.md", "affinity mask: 0-1 (2 CPUs)", kInfo},
    {"docs/placement.md", "cpus online: 0-1", kInfo},
    {"docs/placement.md", "cgroup quota: none", kInfo},
    {"docs/placement.md",
     "cores: 2 (1 performance), from kernel topology; cpuinfo reads 1 core",
     kInfo},
    {"docs/placement.md",
     "default size 1 thread: 1 performance core (kernel topology; cpuinfo "
     "reads 1 core) in the affinity mask of 2 CPUs; no cgroup quota",
     kInfo},
    {"docs/placement.md",
     "default manager: default size; placement none (RCUPOOL_PLACEMENT "
     "unset); follows the limits: yes",
     kInfo},
    {"docs/environment.md",
     "rcupool: info: default size 4 threads: RCUPOOL_NUM_THREADS=4",
     kEnvironment},
    {"docs/environment.md",
     "rcupool: info: default: idle policy spin (RCUPOOL_IDLE)", kEnvironment},
    {"docs/environment.md",
     "rcupool: info: default: at most 0 warm widths (RCUPOOL_WARM_POOLS)",
     kEnvironment},
};

// The files whose quotes are read (relative to the workspace; the test's
// data).
const char *const kDocs[] = {
    "README.md",           "docs/building.md",     "docs/cpp.md",
    "docs/default-size.md", "docs/environment.md", "docs/executorch.md",
    "docs/flavours.md",    "docs/log.md",          "docs/misuse.md",
    "docs/placement.md",   "docs/python.md",       "docs/xnnpack.md",
    "docs/backends.md",
};
const char *const kHeaders[] = {
    "include/rcupool/follow.h",  "include/rcupool/manager.h",
    "include/rcupool/placement.h", "include/rcupool/log.h",
    "include/rcupool/pin.h",     "include/rcupool/scope.h",
    "include/rcupool/idle.h",    "include/rcupool/warm.h",
};

std::string ReadFile(const std::string &path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::vector<std::string> Lines(const std::string &text) {
  std::vector<std::string> out;
  std::stringstream s(text);
  for (std::string line; std::getline(s, line);) out.push_back(line);
  return out;
}

std::string Trim(const std::string &s) {
  size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// The shape of a quoted output line of the library.
const std::regex kOutput(
    R"(^(rcupool: (info|warning|error|debug): |manager <address>: )?)"
    R"(default(:| size [0-9]).*)");

// The quoted output lines of a markdown file: indented lines and
// backtick spans of that shape, and every line of the block under a
// "$ ... rcupool_info" line.
std::vector<std::string> QuotesOfMarkdown(const std::string &text) {
  std::vector<std::string> out;
  bool info_block = false;
  for (const std::string &line : Lines(text)) {
    std::string t = Trim(line);
    if (info_block) {
      if (t.empty() || line.compare(0, 4, "    ") != 0) {
        info_block = false;
      } else {
        out.push_back(t);
        continue;
      }
    }
    if (std::regex_match(t, std::regex(R"(\$ .*rcupool_info)"))) {
      info_block = true;
      continue;
    }
    if (line.compare(0, 4, "    ") == 0 && std::regex_match(t, kOutput))
      out.push_back(t);
    std::regex tick("`([^`]+)`");
    for (std::sregex_iterator i(line.begin(), line.end(), tick), e; i != e;
         ++i) {
      std::string q = (*i)[1];
      if (std::regex_match(q, kOutput)) out.push_back(q);
    }
  }
  return out;
}

// The quoted output of a header: strings in double quotes of its comments
// (lines joined, " * " marks removed) that have the shape.
std::vector<std::string> QuotesOfHeader(const std::string &text) {
  std::string joined;
  for (const std::string &line : Lines(text)) {
    std::string t = Trim(line);
    if (t.compare(0, 2, "* ") == 0) t = t.substr(2);
    if (t == "*") t.clear();
    joined += t + " ";
  }
  std::vector<std::string> out;
  std::regex quote("\"([^\"]+)\"");
  for (std::sregex_iterator i(joined.begin(), joined.end(), quote), e; i != e;
       ++i) {
    std::string q = (*i)[1];
    if (std::regex_match(q, kOutput)) out.push_back(q);
  }
  return out;
}

bool Abridged(const std::string &q) {
  return q.find("...") != std::string::npos;
}

// --- the fake machine ----------------------------------------------------

class FakeMachine {
 public:
  FakeMachine() {
    const char *tmp = getenv("TEST_TMPDIR");
    root_ = std::string(tmp ? tmp : "/tmp") + "/quotedXXXXXX";
    if (mkdtemp(&root_[0]) == nullptr) {
      ADD_FAILURE() << "mkdtemp";
      return;
    }
    const std::string cpu = "/sys/devices/system/cpu";
    Write(cpu + "/present", "0-1");
    Write(cpu + "/online", "0-1");
    Write(cpu + "/possible", "0-1");
    for (int c = 0; c < 2; c++) {
      std::string d = cpu + "/cpu" + std::to_string(c);
      Write(d + "/cpu_capacity", "1024");
      Write(d + "/topology/core_cpus_list", std::to_string(c));
      Write(d + "/topology/thread_siblings_list", std::to_string(c));
      Write(d + "/topology/core_id", std::to_string(c));
      Write(d + "/topology/physical_package_id", "0");
    }
    Mask("0-1");
    Write("/proc/self/cgroup", "0::/app");
    Quota("max 100000");
  }
  ~FakeMachine() {
    rcupl_cores_fake_cpuinfo(-1);
    rcupl_machine_set_root(nullptr);
    EXPECT_EQ(system(("rm -rf " + root_).c_str()), 0);
  }
  void Mask(const std::string &list) {
    Write("/proc/self/status", "Name:\tdocs\nCpus_allowed_list:\t" + list);
  }
  void Quota(const std::string &cpu_max) {
    Write("/sys/fs/cgroup/app/cpu.max", cpu_max);
  }
  // Makes the library read this tree, and cpuinfo "read" `cores` (-1: not
  // asked).
  void Use(long cpuinfo_cores) {
    rcupl_cores_fake_cpuinfo(cpuinfo_cores);
    rcupl_machine_set_root(root_.c_str());
  }

 private:
  void Write(const std::string &rel, const std::string &text) {
    std::string path = root_ + rel;
    EXPECT_EQ(system(("mkdir -p '" + path.substr(0, path.rfind('/')) + "'")
                         .c_str()),
              0);
    std::ofstream(path) << text << "\n";
  }
  std::string root_;
};

std::string WithoutAddress(const std::string &message) {
  return std::regex_replace(message, std::regex("^manager 0x[0-9a-f]+: "),
                            "manager <address>: ");
}

rcupool_t *CreateDefaultSized() {
  rcupool_options_t o;
  memset(&o, 0, sizeof o);
  o.warm_pools = RCUPOOL_WARM_NONE;
  rcupool_t *m = nullptr;
  EXPECT_EQ(rcupool_create(&o, &m), 0);
  return m;
}

// Every line a run of that kind prints (log messages without the address
// of the manager, with and without their "manager <address>: ").
std::set<std::string> Printed(Run run) {
  std::set<std::string> out;
  auto add_log = [&](const rcupool_test::LogRecorder &log) {
    for (const std::string &m : log.All()) {
      std::string line = WithoutAddress(m);
      out.insert(line);
      const std::string head = "manager <address>: ";
      if (line.compare(0, head.size(), head) == 0)
        out.insert(line.substr(head.size()));
    }
  };
  switch (run) {
    case kFollow: {
      FakeMachine machine;
      machine.Use(-1);
      rcupl_follow_set_period_ns(0);
      rcupool_test::LogRecorder log;
      rcupool_t *m = CreateDefaultSized();
      if (m == nullptr) break;
      EXPECT_EQ(rcupool_threads(m), 2u);
      machine.Mask("0");  // the mask narrows to one CPU
      EXPECT_EQ(rcupool_follow_now(m), 1);  // 1: it reset m
      EXPECT_EQ(rcupool_threads(m), 1u);
      machine.Mask("0-1");  // back to two CPUs with a quota of one
      machine.Quota("100000 100000");
      EXPECT_EQ(rcupool_follow_now(m), 0);  // the count stays 1: no line
      EXPECT_EQ(rcupool_threads(m), 1u);
      machine.Quota("max 100000");  // the quota lifted
      EXPECT_EQ(rcupool_follow_now(m), 1);
      EXPECT_EQ(rcupool_threads(m), 2u);
      EXPECT_EQ(rcupool_destroy(m), 0);
      rcupl_follow_set_period_ns(RCUPOOL_FOLLOW_PERIOD_MS * 1000000ull);
      add_log(log);
      break;
    }
    case kSizing: {
      FakeMachine machine;
      rcupool_test::LogRecorder log;
      machine.Quota("150000 100000");
      machine.Use(1);
      rcupool_t *m = CreateDefaultSized();
      if (m != nullptr) {
        EXPECT_EQ(rcupool_destroy(m), 0);
      }
      machine.Quota("100000 100000");
      machine.Use(-1);
      m = CreateDefaultSized();
      if (m != nullptr) {
        EXPECT_EQ(rcupool_destroy(m), 0);
      }
      add_log(log);
      break;
    }
    case kInfo: {
      FakeMachine machine;
      setenv("RCUPOOL_CPU_CLASSES", "0:efficiency,1:performance", 1);
      machine.Use(1);
      std::vector<char> buf(1 << 16);
      int n = rcupool_describe(buf.data(), buf.size());
      EXPECT_GT(n, 0);
      if (n > 0)
        for (const std::string &l : Lines(buf.data())) out.insert(l);
      unsetenv("RCUPOOL_CPU_CLASSES");
      machine.Use(-1);
      break;
    }
    default:
      ADD_FAILURE() << "not an in-process run";
  }
  return out;
}

// The lines the default sink writes to stderr in a fresh copy of this
// program (this test, InChild()) whose environment adds `env`.
std::set<std::string> PrintedByAFreshProcess(
    const std::vector<std::pair<std::string, std::string>> &env) {
  std::set<std::string> out;
  const char *tmp = getenv("TEST_TMPDIR");
  std::string path = std::string(tmp ? tmp : "/tmp") + "/stderrXXXXXX";
  int fd = mkstemp(&path[0]);
  if (fd < 0) {
    ADD_FAILURE() << "mkstemp";
    return out;
  }
  for (const auto &e : env) setenv(e.first.c_str(), e.second.c_str(), 1);
  fflush(stderr);
  int saved = dup(2);
  dup2(fd, 2);
  child_result_t r = rcupool_test::RerunThisTestInChild(30);
  dup2(saved, 2);
  close(saved);
  close(fd);
  for (const auto &e : env) unsetenv(e.first.c_str());
  EXPECT_TRUE(r.exited && r.exit_code == 0) << "the copy failed";
  for (const std::string &l : Lines(ReadFile(path))) {
    out.insert(l);
    const std::string head = "rcupool: info: ";
    if (l.compare(0, head.size(), head) == 0) out.insert(l.substr(head.size()));
  }
  unlink(path.c_str());
  return out;
}

void CheckRun(Run run, const std::set<std::string> &printed) {
  size_t checked = 0;
  for (const Case &c : kCases) {
    if (c.run != run) continue;
    checked++;
    EXPECT_EQ(printed.count(c.line), 1u)
        << c.file << " quotes a line the run does not print:\n  " << c.line
        << "\nthe run printed:\n" << [&] {
             std::string all;
             for (const std::string &p : printed) all += "  " + p + "\n";
             return all;
           }();
  }
  EXPECT_GT(checked, 0u);
}

// The copy's side of the two fresh-process cases: the default manager,
// made under the environment its parent gave, logs through the default
// sink.
void MakeTheDefaultManager() {
  ASSERT_NE(rcupool_default(), nullptr);
  rcupool_log_deliver();
}

TEST(QuotedOutput, EveryQuotedLineIsACheckedCase) {
  std::set<std::pair<std::string, std::string>> cases;
  for (const Case &c : kCases) cases.insert({c.file, c.line});
  size_t found = 0;
  auto check = [&](const std::string &file, const std::vector<std::string> &qs) {
    for (const std::string &q : qs) {
      if (Abridged(q)) continue;
      found++;
      EXPECT_EQ(cases.count({file, q}), 1u)
          << file << " quotes output that no case of this test checks:\n  "
          << q;
    }
  };
  for (const char *d : kDocs) check(d, QuotesOfMarkdown(ReadFile(d)));
  for (const char *h : kHeaders) check(h, QuotesOfHeader(ReadFile(h)));
  // And each case's line stands in its file as quoted.
  for (const Case &c : kCases) {
    std::vector<std::string> qs =
        std::string(c.file).compare(0, 8, "include/") == 0
            ? QuotesOfHeader(ReadFile(c.file))
            : QuotesOfMarkdown(ReadFile(c.file));
    EXPECT_NE(std::find(qs.begin(), qs.end(), c.line), qs.end())
        << c.file << " no longer quotes:\n  " << c.line;
  }
  EXPECT_EQ(found, sizeof kCases / sizeof *kCases);
}

TEST(QuotedOutput, FollowLinesAreWhatAFollowOnTheFakeMachineLogs) {
  CheckRun(kFollow, Printed(kFollow));
}

TEST(QuotedOutput, SizingLinesAreWhatCreatingOnTheFakeMachineLogs) {
  CheckRun(kSizing, Printed(kSizing));
}

TEST(QuotedOutput, RcupoolInfoBlockIsWhatDescribeWritesOnTheFakeMachine) {
  CheckRun(kInfo, Printed(kInfo));
}

TEST(QuotedOutput, EnvironmentLinesAreWhatTheDefaultSinkWritesUnderThem) {
  if (rcupool_test::InChild()) return MakeTheDefaultManager();
  CheckRun(kEnvironment, PrintedByAFreshProcess({{"RCUPOOL_NUM_THREADS", "4"},
                                                 {"RCUPOOL_IDLE", "spin"},
                                                 {"RCUPOOL_WARM_POOLS", "0"},
                                                 {"RCUPOOL_LOG_LEVEL", "info"}}));
}

TEST(QuotedOutput, NumThreadsLineIsWhatTheDefaultManagerLogsUnderIt) {
  if (rcupool_test::InChild()) return MakeTheDefaultManager();
  CheckRun(kEnvNumThreads, PrintedByAFreshProcess({{"RCUPOOL_NUM_THREADS", "3"},
                                                   {"RCUPOOL_LOG_LEVEL", "info"}}));
}

}  // namespace
