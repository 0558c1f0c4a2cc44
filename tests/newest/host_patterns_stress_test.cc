// SPDX-License-Identifier: LGPL-2.1-or-later
// A host's patterns at once, on the default manager whose pools are views
// over its set of threads (a pthreadpool with the executor API; lib/exec_set.c,
// lib/executor.c): host threads pin, take sized pins of widths 1-8 and run
// parallel sums in their scopes and outside any scope; a second library
// makes and destroys pthreadpool_create_v2() pools of widths 1-8 on
// rcupool_executor()'s executor and runs parallel sums on them; resets,
// trims and barriers come from outside, and from inside tasks (rcupool's
// and the second library's) come resets, sized pins with a scope, and a
// trim, a barrier and a finalize that must answer -EDEADLK; tasks fork (the
// child exits at once, or makes one rcupool call). Every sum and every
// return value is checked. It ends with rcupool_finalize(), after which no
// thread whose name starts with "rcupool" may be left in /proc/self/task.
//
// RCUPOOL_STRESS_SECONDS: the stress's length (default 3);
// RCUPOOL_STRESS_SEED: the seed of its choices (default: from the clock;
// printed first, and in every failure). A watchdog that sees the stress and
// the finalize not done RCUPOOL_STRESS_SECONDS + 30 s after the start
// prints what each thread of the stress was doing, every thread's stack
// (/proc, then gdb when installed) and aborts. On a pthreadpool without
// the executor API (Debian 12's) it skips, saying so.
#include <errno.h>
#include <pthread.h>
#include <pthreadpool.h>
#include <stdlib.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "rcupool/rcupool.h"
#include "tests/support/annotate.h"
#include "tests/support/in_child.h"
#include "tests/support/support.h"
#include "tests/support/threads.h"
#include "tests/support/watchdog.h"
#include "tools/child_process.h"

#ifdef PTHREADPOOL_FLAG_DONT_SPIN_WORKERS
#define HAS_EXECUTOR_API 1
#else
#define HAS_EXECUTOR_API 0
#endif

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define UNDER_SANITIZER 1
#else
#define UNDER_SANITIZER 0
#endif

namespace {

#if HAS_EXECUTOR_API
using rcupool_test::ManagerSumIsRight;
using rcupool_test::ParallelSumIsRight;

constexpr size_t kMaxWidth = 8;
constexpr int kChildTimeoutS = 30;

// Every pattern the stress runs; each must run at least once.
enum Scenario {
  kPinScopeSum,       // host: rcupool_pin, a sum in its scope
  kSizedScopeSum,     // host: rcupool_pin_sized(1..8), a sum in its scope
  kSumOutsideScope,   // host: a sum outside any scope
  kForeignPool,       // second library: create_v2(1..8), sums, destroy
  kForeignTaskReset,  // its task: rcupool_reset(1..8)
  kForeignTaskSized,  // its task: a sized pin, a sum in its scope, unpin
  kOutsideReset,      // rcupool_reset(1..8) from a host thread
  kOutsideTrim,       // rcupool_trim from a host thread
  kOutsideBarrier,    // rcupool_barrier from a host thread
  kTaskReset,         // rcupool's task: rcupool_reset(1..8)
  kTaskSized,         // rcupool's task: a sized pin, a sum in its scope
  kTaskTrim,          // rcupool's task: rcupool_trim is -EDEADLK
  kTaskBarrier,       // rcupool's task: rcupool_barrier is -EDEADLK
  kTaskFinalize,      // rcupool's task: rcupool_finalize is -EDEADLK
  kTaskForkExit,      // rcupool's task forks; the child _exits at once
  kTaskForkCall,      // ... the child makes one rcupool call, then _exits
  kTaskCall,          // host: the call of those tasks, its sum
  kScenarios,
};
const char *const kNames[kScenarios] = {
    "pin+scope sum",          "sized pin+scope sum",
    "sum outside scope",      "foreign pool",
    "foreign task: reset",    "foreign task: sized pin",
    "outside reset",          "outside trim",
    "outside barrier",        "task: reset",
    "task: sized pin",        "task: trim -EDEADLK",
    "task: barrier -EDEADLK", "task: finalize -EDEADLK",
    "task: fork, _exit",      "task: fork, one call",
    "task call: its sum",
};

unsigned long EnvOr(const char *name, unsigned long fallback) {
  const char *v = getenv(name);
  return v != nullptr && *v != '\0' ? strtoul(v, nullptr, 10) : fallback;
}

struct Stress {
  rcupool_t *m = nullptr;
  uint64_t seed = 0;
  std::chrono::steady_clock::time_point end;
  std::array<std::atomic<uint64_t>, kScenarios> ran{};
  std::atomic<int> failures{0};

  bool Running() const { return std::chrono::steady_clock::now() < end; }
  // Counts scenario `s` as run, and fails the test (saying the scenario
  // and the seed) unless ok.
  void Check(Scenario s, bool ok, const std::string &what) {
    ran[s].fetch_add(1, std::memory_order_relaxed);
    if (ok) return;
    if (failures.fetch_add(1) < 20)
      ADD_FAILURE() << kNames[s] << ": " << what << " (seed " << seed << ")";
  }
};

// What each thread of the stress does now, for the watchdog's report.
struct Doing {
  std::string who;
  std::atomic<const char *> what{"starting"};
};

// The child's one rcupool call. A fork child of a task is inside that task:
// its parallel call runs inline, which the plain build checks; under a
// sanitizer, which cannot follow threads (TSan) or allocation (ASan) into
// a child of a busy process, a call that touches neither.
int ChildOneCall() {
#if UNDER_SANITIZER
  return rcupool_threads(rcupool_default()) >= 1 ? 0 : 1;
#else
  return ManagerSumIsRight(rcupool_default(), 100) ? 0 : 1;
#endif
}

void CheckFork(Stress *s, Scenario sc) {
  child_result_t r = rcupool_test::ForkChild(
      [sc] { return sc == kTaskForkExit ? 0 : ChildOneCall(); },
      kChildTimeoutS);
  char how[256];
  child_describe(&r, how, sizeof how);
  s->Check(sc, r.exited && r.exit_code == 0, std::string("child ") + how);
}

// A sized pin of `width` on the task's thread, a parallel sum in its scope
// (inline there when the thread is inside an rcupool task), then unpin.
void SizedPinSum(Stress *s, Scenario sc, size_t width) {
  rcupool_pin_t pin = {};
  int err = rcupool_pin_sized(s->m, width, &pin);
  s->Check(sc, err == 0, "rcupool_pin_sized: " + std::to_string(err));
  if (err != 0) return;
  s->Check(sc, rcupool_pin_threads(&pin) == width,
           "pinned " + std::to_string(rcupool_pin_threads(&pin)) +
               " threads, asked " + std::to_string(width));
  rcupool_scope_enter(&pin);
  s->Check(sc, ManagerSumIsRight(s->m, 37), "sum in the sized pin's scope");
  rcupool_scope_exit();
  rcupool_unpin(&pin);
}

// One parallel call whose item i runs kinds[i] (kScenarios: nothing) besides
// its share of a sum that proves every item ran once.
struct TaskCall {
  Stress *s;
  std::array<Scenario, kMaxWidth> kinds;
  std::array<size_t, kMaxWidth> widths;
  std::atomic<uint64_t> total{0};
  bool SumIsRight(size_t range) const {
    return total.load() == 3 * (range * (range - 1) / 2) + range;
  }
};

void ActionTask(void *arg, size_t i) {
  auto *c = static_cast<TaskCall *>(arg);
  c->total.fetch_add(i * 3 + 1);
  Stress *s = c->s;
  const Scenario sc = c->kinds[i];
  switch (sc) {
    case kTaskReset:
    case kForeignTaskReset: {
      int err = rcupool_reset(s->m, c->widths[i]);
      s->Check(sc, err == 0, "rcupool_reset: " + std::to_string(err));
      break;
    }
    case kTaskSized:
    case kForeignTaskSized:
      SizedPinSum(s, sc, c->widths[i]);
      break;
    case kTaskTrim:
      s->Check(sc, rcupool_trim(s->m) == -EDEADLK, "not -EDEADLK");
      break;
    case kTaskBarrier:
      s->Check(sc, rcupool_barrier(s->m) == -EDEADLK, "not -EDEADLK");
      break;
    case kTaskFinalize:
      s->Check(sc, rcupool_finalize() == -EDEADLK, "not -EDEADLK");
      break;
    case kTaskForkExit:
    case kTaskForkCall:
      CheckFork(s, sc);
      break;
    default:
      break;
  }
}

using Rng = std::mt19937_64;
size_t Width(Rng &rng) { return 1 + rng() % kMaxWidth; }

// Host threads: pins, sized pins and sums, in scopes and outside.
void Pinner(Stress *s, Doing *d, Rng rng) {
  while (s->Running()) {
    switch (rng() % 3) {
      case 0: {
        d->what = "rcupool_pin, a sum in its scope";
        rcupool_pin_t pin = {};
        int err = rcupool_pin(s->m, &pin);
        s->Check(kPinScopeSum, err == 0, "rcupool_pin: " + std::to_string(err));
        if (err != 0) break;
        rcupool_scope_enter(&pin);
        s->Check(kPinScopeSum, ManagerSumIsRight(s->m, 1 + rng() % 300),
                 "sum in the pin's scope");
        rcupool_scope_exit();
        rcupool_unpin(&pin);
        break;
      }
      case 1:
        d->what = "rcupool_pin_sized, a sum in its scope";
        SizedPinSum(s, kSizedScopeSum, Width(rng));
        break;
      default:
        d->what = "a sum outside any scope";
        s->Check(kSumOutsideScope, ManagerSumIsRight(s->m, 1 + rng() % 300),
                 "sum outside any scope");
    }
  }
  d->what = "done";
}

// Host threads: parallel calls whose tasks reset, pin, trim, fork...
void Tasker(Stress *s, Doing *d, Rng rng) {
  static const Scenario kActions[] = {
      kTaskReset,    kTaskSized,    kTaskTrim,     kTaskBarrier,
      kTaskFinalize, kTaskForkExit, kTaskForkCall, kScenarios};
  constexpr size_t kN = sizeof kActions / sizeof kActions[0];
  for (size_t iter = 0; s->Running(); iter++) {
    TaskCall c;
    c.s = s;
    const size_t range = 2 + rng() % (kMaxWidth - 1);
    bool forked = false;
    for (size_t i = 0; i < range; i++) {
      // Item 0 takes each action in turn, the others at random (one fork
      // a call at most, to keep the stress's pace).
      Scenario a = kActions[i == 0 ? iter % kN : rng() % kN];
      const bool fork = a == kTaskForkExit || a == kTaskForkCall;
      if (fork && forked) a = kScenarios;
      forked = forked || fork;
      c.kinds[i] = a;
      c.widths[i] = Width(rng);
    }
    rcupool_pin_t pin = {};
    const bool scoped = rng() % 2 == 0;
    if (scoped) {
      d->what = "rcupool_pin_sized for a task call's scope";
      int err = rcupool_pin_sized(s->m, Width(rng), &pin);
      s->Check(kSizedScopeSum, err == 0,
               "rcupool_pin_sized: " + std::to_string(err));
      if (err != 0) continue;
      rcupool_scope_enter(&pin);
    }
    d->what = scoped ? "a call of acting tasks, in a sized pin's scope"
                     : "a call of acting tasks, outside any scope";
    int err = rcupool_parallelize_1d(s->m, ActionTask, &c, range, 0);
    s->Check(kTaskCall, err == 0,
             "rcupool_parallelize_1d: " + std::to_string(err));
    s->Check(kTaskCall, c.SumIsRight(range), "the acting tasks' sum");
    if (scoped) {
      rcupool_scope_exit();
      rcupool_unpin(&pin);
    }
  }
  d->what = "done";
}

// A host thread: resets, trims and barriers from outside any task.
void Outsider(Stress *s, Doing *d, Rng rng) {
  while (s->Running()) {
    switch (rng() % 3) {
      case 0: {
        d->what = "rcupool_reset";
        int err = rcupool_reset(s->m, Width(rng));
        s->Check(kOutsideReset, err == 0,
                 "rcupool_reset: " + std::to_string(err));
        break;
      }
      case 1: {
        d->what = "rcupool_trim";
        int got = rcupool_trim(s->m);
        s->Check(kOutsideTrim, got >= 0,
                 "rcupool_trim: " + std::to_string(got));
        break;
      }
      default: {
        d->what = "rcupool_barrier";
        int err = rcupool_barrier(s->m);
        s->Check(kOutsideBarrier, err == 0,
                 "rcupool_barrier: " + std::to_string(err));
      }
    }
    d->what = "sleeping";
    std::this_thread::sleep_for(std::chrono::milliseconds(1 + rng() % 3));
  }
  d->what = "done";
}

// A second library: its own pools on rcupool's executor, up to three alive
// at once, each made, used and destroyed by this thread.
void ForeignLibrary(Stress *s, Doing *d, Rng rng) {
  std::vector<pthreadpool_t> alive;
  while (s->Running()) {
    d->what = "rcupool_executor, pthreadpool_create_v2";
    struct pthreadpool_executor *e = nullptr;
    void *ctx = nullptr;
    int err = rcupool_executor(s->m, &e, &ctx);
    s->Check(kForeignPool, err == 0,
             "rcupool_executor: " + std::to_string(err));
    if (err != 0) break;
    const size_t width = Width(rng);
    pthreadpool_t tp = pthreadpool_create_v2(e, ctx, width);
    s->Check(kForeignPool, tp != nullptr, "pthreadpool_create_v2 failed");
    if (tp == nullptr) break;
    const size_t got = pthreadpool_get_threads_count(tp);
    s->Check(kForeignPool, got >= 1 && got <= width,
             "a pool of " + std::to_string(got) + " threads, asked " +
                 std::to_string(width));
    alive.push_back(tp);
    pthreadpool_t use = alive[rng() % alive.size()];
    d->what = "sums on a foreign pool";
    s->Check(kForeignPool, ParallelSumIsRight(use, 1 + rng() % 300),
             "sum on a foreign pool");
    TaskCall c;
    c.s = s;
    const size_t range = 1 + rng() % kMaxWidth;
    for (size_t i = 0; i < range; i++) {
      static const Scenario kActions[] = {kForeignTaskReset, kForeignTaskSized,
                                          kScenarios};
      c.kinds[i] = kActions[rng() % 3];
      c.widths[i] = Width(rng);
    }
    d->what = "a call of acting tasks on a foreign pool";
    rcupool_test::AnnotatedParallelize1d(use, ActionTask, &c, range);
    s->Check(kForeignPool, c.SumIsRight(range), "the acting tasks' sum");
    if (alive.size() == 3 || rng() % 2 == 0) {
      d->what = "pthreadpool_destroy of a foreign pool";
      size_t i = rng() % alive.size();
      pthreadpool_destroy(alive[i]);
      alive.erase(alive.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
  d->what = "pthreadpool_destroy of the foreign pools left";
  for (pthreadpool_t tp : alive) pthreadpool_destroy(tp);
  d->what = "done";
}

// The names of the threads of this process that start with "rcupool".
std::vector<std::string> RcupoolThreads() {
  std::vector<std::string> out;
  for (const auto &t : rcupool_test::OsThreadNames())
    if (t.second.rfind("rcupool", 0) == 0) out.push_back(t.second);
  return out;
}
#endif

TEST(HostPatternsStress,
     PinsForeignPoolsResetsTrimsForksInTasksThenFinalizeLeavesNoRcupoolThread) {
#if !HAS_EXECUTOR_API
  GTEST_SKIP() << "this pthreadpool has no executor API (Debian 12's): "
                  "build against the newest set (tests/newest/run.sh)";
#else
  Stress s;
  const unsigned long seconds = EnvOr("RCUPOOL_STRESS_SECONDS", 3);
  s.seed =
      EnvOr("RCUPOOL_STRESS_SEED",
            static_cast<unsigned long>(
                std::chrono::system_clock::now().time_since_epoch().count()));
  printf("stress: %lu s, seed %llu (RCUPOOL_STRESS_SEED)\n", seconds,
         static_cast<unsigned long long>(s.seed));
  s.m = rcupool_default();
  ASSERT_NE(s.m, nullptr);
  // Pools go 2 ms after their last use and at most one stays warm: views
  // are destroyed (and the set trimmed) all through the stress.
  ASSERT_EQ(rcupool_set_warm(s.m, 2, 1), 0);
  // The -EDEADLK answers are logged at error level; nothing else may be.
  rcupool_test::LogRecorder log;

  using Body = void (*)(Stress *, Doing *, Rng);
  const std::vector<std::pair<std::string, Body> > roles = {
      {"pinner", Pinner},
      {"tasker 1", Tasker},
      {"tasker 2", Tasker},
      {"outsider", Outsider},
      {"foreign library", ForeignLibrary},
  };
  std::vector<Doing> doing(roles.size() + 1);
  for (size_t i = 0; i < roles.size(); i++) doing[i].who = roles[i].first;
  doing.back().who = "main thread";
  rcupool_test::Watchdog dog(std::chrono::seconds(seconds + 30), [&doing, &s] {
    fprintf(stderr, "the stress and the finalize (seed %llu) were at:\n",
            static_cast<unsigned long long>(s.seed));
    for (const Doing &d : doing)
      fprintf(stderr, "  %s: %s\n", d.who.c_str(), d.what.load());
  });

  s.end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < roles.size(); i++)
    threads.emplace_back(roles[i].second, &s, &doing[i], Rng(s.seed + i));
  doing.back().what = "joining the stress's threads";
  for (std::thread &t : threads) t.join();

  EXPECT_EQ(s.failures.load(), 0) << "seed " << s.seed;
  for (int i = 0; i < kScenarios; i++) {
    printf("stress: %-24s %llu\n", kNames[i],
           static_cast<unsigned long long>(s.ran[i].load()));
    EXPECT_GT(s.ran[i].load(), 0u) << kNames[i] << " never ran";
  }

  const char *const kWaitForItself = "it would wait for itself";
  EXPECT_EQ(log.Count(RCUPOOL_LOG_ERROR, ""),
            log.Count(RCUPOOL_LOG_ERROR, kWaitForItself));
  EXPECT_GT(log.Count(RCUPOOL_LOG_ERROR, kWaitForItself), 0u);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_WARN, ""), 0u);

  doing.back().what = "rcupool_finalize";
  EXPECT_EQ(rcupool_finalize(), 0);
  doing.back().what = "waiting for rcupool's threads to leave /proc/self/task";
  std::vector<std::string> left = RcupoolThreads();
  for (int i = 0; i < 200 && !left.empty(); i++) {  // a joined thread may
    std::this_thread::sleep_for(std::chrono::milliseconds(10));  // linger
    left = RcupoolThreads();
  }
  std::string names;
  for (const std::string &n : left) names += " " + n;
  EXPECT_TRUE(left.empty()) << "after rcupool_finalize():" << names;
  doing.back().what = "done";
#endif
}

}  // namespace
