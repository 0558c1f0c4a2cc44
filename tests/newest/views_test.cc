// SPDX-License-Identifier: LGPL-2.1-or-later
// rcupool's pools as pthreadpool_create_v2 views over the manager's set of
// threads (lib/pool.c, POOL-7; lib/executor.c; lib/exec_set.c), on a
// pthreadpool with the executor API: the threads alive are the widest
// width in use, shared with a second library's pool, and a parallel call
// never waits for a thread of the set that is busy elsewhere. On Debian
// 12's pthreadpool (pools own their threads) every case skips, saying so.
#include <errno.h>
#include <pthread.h>
#include <pthreadpool.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <future>
#include <thread>

#include <gtest/gtest.h>

#include "rcupool/rcupool.h"
#include "rcupool_private/testing.h"
#include "tests/placement_support.h"
#include "tests/support/annotate.h"
#include "tests/support/support.h"
#include "tests/support/threads.h"
#include "tests/support/watchdog.h"

#ifdef PTHREADPOOL_FLAG_DONT_SPIN_WORKERS
#define HAS_EXECUTOR_API 1
#else
#define HAS_EXECUTOR_API 0
#endif

#define SKIP_WITHOUT_EXECUTOR_API()                                      \
  if (!HAS_EXECUTOR_API)                                                 \
  GTEST_SKIP() << "this pthreadpool has no executor API (Debian 12's): " \
                  "build against the newest set (tests/newest/run.sh)"

namespace {

using rcupool_test::Manager;
using rcupool_test::ParallelSumIsRight;
using rcupool_test::RecordThread;
using rcupool_test::FinishesWithin;
using rcupool_test::ThreadIds;
using rcupool_test::WorkerTids;

#if HAS_EXECUTOR_API
// Holds the thread of the set that runs it until `release` is set.
struct Blocker {
  std::atomic<bool> running{false};
  std::atomic<bool> release{false};
  std::atomic<bool> done{false};
};
void Block(void *arg) {
  auto *b = static_cast<Blocker *>(arg);
  b->running = true;
  while (!b->release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  b->done = true;
}

// A second library's pool of `width` threads on m's executor, whose set
// must have `set_threads` threads; nullptr (a failure) if it cannot be made.
pthreadpool_t OtherLibrarysPool(rcupool_t *m, int set_threads, size_t width,
                                struct pthreadpool_executor **e, void **ctx) {
  if (rcupool_executor(m, e, ctx) != 0) {
    ADD_FAILURE() << "rcupool_executor failed";
    return nullptr;
  }
  EXPECT_EQ((*e)->num_threads(*ctx), set_threads);
  pthreadpool_t tp = pthreadpool_create_v2(*e, *ctx, width);
  EXPECT_NE(tp, nullptr);
  if (tp != nullptr) {
    EXPECT_EQ(pthreadpool_get_threads_count(tp), width);
  }
  return tp;
}

// Runs f on a thread of its own; true if it returned within `limit` (a
// caller that waited for a busy thread of the set would not).
template <class F>
bool ReturnsWithin(std::chrono::seconds limit, F f, std::thread *out) {
  auto ready = std::make_shared<std::promise<void>>();
  std::future<void> fut = ready->get_future();
  *out = std::thread([f, ready] {
    f();
    ready->set_value();
  });
  return fut.wait_for(limit) == std::future_status::ready;
}
#endif

// Two parallel calls on two views of width 2 (rcupool's pool and a second
// library's) while the set's only thread is held elsewhere: each caller
// works through all its items itself and returns.
TEST(PoolView, ParallelCallsWhileSetIsBusyRunEveryItemOnTheirCallers) {
  SKIP_WITHOUT_EXECUTOR_API();
#if HAS_EXECUTOR_API
  Manager m(2, 0, 0);  // a view of 2: a set of 1 thread
  struct pthreadpool_executor *e = nullptr;
  void *ctx = nullptr;
  pthreadpool_t other = OtherLibrarysPool(m, 1, 2, &e, &ctx);
  ASSERT_NE(other, nullptr);

  Blocker b;
  e->schedule(ctx, &b, Block);
  while (!b.running) std::this_thread::yield();

  ThreadIds mine, theirs;
  std::atomic<bool> sums_right{true};
  std::thread t;
  bool returned = ReturnsWithin(
      std::chrono::seconds(60),
      [&] {
        std::thread a([&] {
          for (int i = 0; i < 50; i++) {
            if (rcupool_parallelize_1d(m, RecordThread, &mine, 64, 0) != 0 ||
                !rcupool_test::ManagerSumIsRight(m, 101))
              sums_right = false;
          }
        });
        for (int i = 0; i < 50; i++) {
          rcupool_test::AnnotatedParallelize1d(other, RecordThread, &theirs, 64);
          if (!ParallelSumIsRight(other, 101)) sums_right = false;
        }
        a.join();
      },
      &t);
  EXPECT_TRUE(returned) << "a parallel call waited for the set's busy thread";
  EXPECT_FALSE(b.done.load());  // the set's thread was held all along
  b.release = true;             // lets a hung call finish, too
  t.join();
  EXPECT_TRUE(sums_right.load());
  // Every item ran on its own caller: the set had no thread to give.
  EXPECT_EQ(mine.ids.size(), 1u);
  EXPECT_EQ(theirs.ids.size(), 1u);
  // The tasks queued for the views run once the thread is free, so the
  // second library's pool can be destroyed (it waits for them).
  pthreadpool_destroy(other);
  EXPECT_TRUE(b.done.load());
#endif
}

// Widths 1, 2, 4 and 8 alive at once (pinned), and a second library's pool
// of 8 on rcupool_executor(): the OS threads beyond the baseline (rcupool's
// own threads and the test's) are the widest width's 7, all of the set.
TEST(PoolView, WidthsOneTwoFourEightAndAnotherLibrarysPoolShareWidestSet) {
  SKIP_WITHOUT_EXECUTOR_API();
#if HAS_EXECUTOR_API
  Manager m(1, 0, 0);
  // The baseline may hold threads of m's set already (its pools of more
  // than one thread before the reset to 1): rcupool's own threads and the
  // test's are the rest.
  size_t base = rcupool_test::ThreadBaselineAtOneThread(m) -
                rcupool_test::WorkerTids().size();
  rcupool_pin_t pins[4] = {};
  const size_t widths[4] = {1, 2, 4, 8};
  for (int i = 0; i < 4; i++) {
    ASSERT_EQ(rcupool_pin_sized(m, widths[i], &pins[i]), 0);
    EXPECT_EQ(pins[i].threads_, widths[i]);
    EXPECT_TRUE(ParallelSumIsRight(pins[i].threadpool_, 257));
  }
  struct pthreadpool_executor *e = nullptr;
  void *ctx = nullptr;
  pthreadpool_t other = OtherLibrarysPool(m, 7, 8, &e, &ctx);
  ASSERT_NE(other, nullptr);
  EXPECT_TRUE(ParallelSumIsRight(other, 257));
  EXPECT_EQ(rcupool_test::SettledOsThreadCount(), base + 7);
  EXPECT_EQ(rcupool_test::WorkerTids().size(), 7u);
  // A reset to 4 and back to 8 starts no thread: the set has them.
  ASSERT_EQ(rcupool_reset(m, 4), 0);
  ASSERT_EQ(rcupool_reset(m, 8), 0);
  EXPECT_TRUE(rcupool_test::ManagerSumIsRight(m, 257));
  EXPECT_EQ(rcupool_test::SettledOsThreadCount(), base + 7);
  pthreadpool_destroy(other);
  for (auto &p : pins) rcupool_unpin(&p);
#endif
}

// EXEC_SET-5: under the yield policy a thread of the set whose tasks come a
// tick or more apart sleeps without spinning first (as Debian 12's workers
// do under PTHREADPOOL_FLAG_YIELD_WORKERS), so a borrowed thread that
// arrives after its call is over burns no spin; under the spin policy it
// always spins. Ten parallel calls 30 ms apart (several ticks of the
// coarse clock at any HZ of 100 or more) on a pool of 2: each wakes the
// set's one thread from its sleep.
#if HAS_EXECUTOR_API
uint64_t UnspunSleepsOverSparseCalls(rcupool_idle_t idle, int calls) {
  Manager m(2, 0, 0);
  EXPECT_EQ(rcupool_set_idle(m, idle), 0);
  EXPECT_TRUE(rcupool_test::ManagerSumIsRight(m, 64));  // the set's thread
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  const uint64_t before = rcupl_exec_unspun_sleeps();
  for (int i = 0; i < calls; i++) {
    EXPECT_TRUE(rcupool_test::ManagerSumIsRight(m, 64));
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
  }
  return rcupl_exec_unspun_sleeps() - before;
}
#endif

TEST(PoolView, YieldPolicyThreadWhoseTasksComeTicksApartSleepsWithoutSpin) {
  SKIP_WITHOUT_EXECUTOR_API();
#if HAS_EXECUTOR_API
  const uint64_t unspun = UnspunSleepsOverSparseCalls(RCUPOOL_IDLE_YIELD, 10);
  std::printf("yield policy: %llu of 10 sleeps after a call without a spin\n",
              static_cast<unsigned long long>(unspun));
  // Every call's wake is a tick after the sleep before it; a spurious
  // futex wake-up may add a sleep.
  EXPECT_GE(unspun, 10u);
#endif
}

TEST(PoolView, SpinPolicyThreadAlwaysSpinsBeforeItSleeps) {
  SKIP_WITHOUT_EXECUTOR_API();
#if HAS_EXECUTOR_API
  EXPECT_EQ(UnspunSleepsOverSparseCalls(RCUPOOL_IDLE_SPIN, 10), 0u);
#endif
}

#if HAS_EXECUTOR_API
// A task of the set that holds its thread until `release`, then runs
// `then` (the host's own code: a fork, a pin, a reset) and returns.
struct HeldTask {
  std::atomic<bool> running{false};
  std::atomic<bool> release{false};
  std::atomic<bool> done{false};
  std::function<void()> then;
};
void RunHeld(void *arg) {
  auto *t = static_cast<HeldTask *>(arg);
  t->running = true;
  while (!t->release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (t->then) t->then();
  t->done = true;
}
void Hold(struct pthreadpool_executor *e, void *ctx, HeldTask *t) {
  e->schedule(ctx, t, RunHeld);
  while (!t->running) std::this_thread::yield();
}
void WaitDone(const HeldTask &t) {
  while (!t.done) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}
// Polls until no thread of a set is listed (a joined thread may stay listed
// for a moment); the count left.
size_t SetThreadsLeft() {
  for (int i = 0; i < 200 && !WorkerTids().empty(); i++)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return WorkerTids().size();
}
// A manager of 1 thread whose set's only thread, started by a view of 2,
// is busy in `t` when the view goes: the trim leaves it running, its slot
// outside the set.
void TrimWhileBusy(rcupool_t *m, HeldTask *t, struct pthreadpool_executor **e,
                   void **ctx) {
  ASSERT_EQ(rcupool_executor(m, e, ctx), 0);  // at width 1: keeps none
  ASSERT_EQ(rcupool_reset(m, 2), 0);          // the set grows to 1
  // (Not num_threads(): through the executor's context it is another
  // library's pool sized, which the set keeps threads for.)
  ASSERT_EQ(WorkerTids().size(), 1u);
  Hold(*e, *ctx, t);
  ASSERT_EQ(rcupool_reset(m, 1), 0);
  ASSERT_EQ(rcupool_barrier(m), 0);  // the view of 2 goes: a trim to 0
  ASSERT_EQ((*e)->num_threads(*ctx), 0);
}
#endif

// A retired view whose last call queued a request (the set's only thread
// was busy) is destroyed on the reclaim thread while that busy thread's
// task forks: fork's prepare waits out the reclaim batch, so the batch
// must not wait for a thread of the set to come free (FORK-2, EXEC_SET-6).
TEST(RetiredViewDestroy, DoesNotWaitForSetThreadBusyInTaskThatForks) {
  SKIP_WITHOUT_EXECUTOR_API();
#if HAS_EXECUTOR_API
  Manager m(2, 0, RCUPOOL_WARM_NONE);  // a view of 2: a set of 1 thread
  struct pthreadpool_executor *e = nullptr;
  void *ctx = nullptr;
  ASSERT_EQ(rcupool_executor(m, &e, &ctx), 0);
  std::atomic<int> child_status{-1};
  HeldTask t;
  t.then = [&] {
    pid_t pid = fork();
    if (pid == 0) _exit(7);
    int st = 0;
    if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st))
      child_status = WEXITSTATUS(st);
  };
  Hold(e, ctx, &t);
  // The view's call queues a request for the busy thread and returns.
  ASSERT_TRUE(rcupool_test::ManagerSumIsRight(m, 64));
  ASSERT_EQ(rcupool_reset(m, 1), 0);  // the view retires; its destroy comes
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  FinishesWithin(std::chrono::seconds(30),
                 "a fork in a task of the set while a retired view is destroyed",
                 [&] {
                   t.release = true;
                   WaitDone(t);
                   EXPECT_EQ(rcupool_barrier(m), 0);
                 });
  EXPECT_EQ(child_status.load(), 7);
#endif
}

// A growth made by the task of a thread that a trim left running outside
// the set (a sized pin taken in that task) takes the thread back: it never
// joins its own caller, and the slot never holds two threads (EXEC_SET-4).
TEST(ExecSetGrowth, FromTaskOfThreadTrimmedWhileBusyTakesItBackNotASecond) {
  SKIP_WITHOUT_EXECUTOR_API();
#if HAS_EXECUTOR_API
  {
    Manager m(1, 0, RCUPOOL_WARM_NONE);
    struct pthreadpool_executor *e = nullptr;
    void *ctx = nullptr;
    HeldTask t;
    std::atomic<size_t> in_task_threads{0};
    std::atomic<int> pin_err{1};
    t.then = [&] {
      rcupool_pin_t pin = {};
      pin_err = rcupool_pin_sized(m, 2, &pin);  // needs the set's 1 thread
      in_task_threads = WorkerTids().size();
      if (pin_err == 0) {
        EXPECT_TRUE(ParallelSumIsRight(pin.threadpool_, 101));
        rcupool_unpin(&pin);
      }
    };
    TrimWhileBusy(m, &t, &e, &ctx);
    FinishesWithin(std::chrono::seconds(30), "a sized pin from the task", [&] {
      t.release = true;
      WaitDone(t);
    });
    EXPECT_EQ(pin_err.load(), 0);
    EXPECT_EQ(in_task_threads.load(), 1u) << "a second thread in one slot";
    // 1 while the task's view of 2 is alive, 0 once the reclaim thread has
    // freed it (no view, no floor): never the slot's two threads.
    EXPECT_LE(e->num_threads(ctx), 1);
    EXPECT_TRUE(rcupool_test::ManagerSumIsRight(m, 64));
  }
  EXPECT_EQ(SetThreadsLeft(), 0u) << "a thread outlived its manager";
#endif
}

// A growth from another thread into the slot of a thread busy in a task
// never waits for that task: here the task waits for the growth's caller
// (a reset, for the writer a sized pin holds while it grows the set).
TEST(ExecSetGrowth, IntoSlotOfThreadBusyInTaskDoesNotWaitForTheTask) {
  SKIP_WITHOUT_EXECUTOR_API();
#if HAS_EXECUTOR_API
  {
    Manager m(1, 0, RCUPOOL_WARM_NONE);
    struct pthreadpool_executor *e = nullptr;
    void *ctx = nullptr;
    HeldTask t;
    std::atomic<int> reset_err{1};
    t.then = [&] { reset_err = rcupool_reset(m, 4); };
    TrimWhileBusy(m, &t, &e, &ctx);
    rcupool_pin_t pin = {};
    FinishesWithin(std::chrono::seconds(30),
                   "a sized pin's growth and a reset from the busy task", [&] {
                     std::thread grower([&] {
                       EXPECT_EQ(rcupool_pin_sized(m, 2, &pin), 0);
                     });
                     std::this_thread::sleep_for(std::chrono::milliseconds(100));
                     t.release = true;
                     grower.join();
                     WaitDone(t);
                   });
    EXPECT_EQ(reset_err.load(), 0);
    EXPECT_TRUE(rcupool_test::ManagerSumIsRight(m, 257));
    EXPECT_TRUE(ParallelSumIsRight(pin.threadpool_, 101));
    rcupool_unpin(&pin);
  }
  EXPECT_EQ(SetThreadsLeft(), 0u) << "a thread outlived its manager";
#endif
}

// pthreadpool 2025+ lowers a pool's threads_count for the length of a
// call whose range is smaller than the pool, and puts it back after: a
// thread that asks pthreadpool_get_threads_count() meanwhile reads the
// range. A plan takes rcupool_pin_threads() (docs/backends.md), which
// stays the pinned width. (tests/torture:torture_test reported "pinned
// pool changed its thread count" on these pools.)
#if HAS_EXECUTOR_API
struct ShortCall {
  std::atomic<bool> in{false};
  std::atomic<bool> release{false};
};
void HoldItemZero(void *arg, size_t i) {
  auto *c = static_cast<ShortCall *>(arg);
  if (i != 0) return;
  c->in = true;
  while (!c->release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}
#endif

TEST(PinThreads, StaysPinnedWidthWhileAnotherThreadsShorterCallRuns) {
  SKIP_WITHOUT_EXECUTOR_API();
#if HAS_EXECUTOR_API
  Manager m(1, 0, 0);
  rcupool_pin_t pin = {};
  ASSERT_EQ(rcupool_pin_sized(m, 4, &pin), 0);
  pthreadpool_t tp = rcupool_pin_pthreadpool(&pin);
  ASSERT_EQ(pthreadpool_get_threads_count(tp), 4u);
  ShortCall c;
  std::thread caller(
      [&] { pthreadpool_parallelize_1d(tp, HoldItemZero, &c, 2, 0); });
  while (!c.in) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const size_t pthreadpools = pthreadpool_get_threads_count(tp);
  const size_t pinned = rcupool_pin_threads(&pin);
  c.release = true;
  caller.join();
  EXPECT_EQ(pinned, 4u);
  EXPECT_EQ(pthreadpools, 2u)
      << "pthreadpool's own count during a call of 2 items: docs/backends.md "
         "describes it as the range";
  EXPECT_EQ(pthreadpool_get_threads_count(tp), 4u);
  rcupool_unpin(&pin);
#endif
}

}  // namespace
