// SPDX-License-Identifier: LGPL-2.1-or-later
// exit() while the library works (lib/reclaim.c, GRACE-2): a fresh copy
// of this program runs lingers of 1 ms (the reclaim thread's passes let a
// pool go and free it all the time), resets and sized pins of a private
// manager and of the default one on three threads, and read-side sections
// of 2 ms on a fourth (so a grace period is in flight most of the time),
// then calls exit() at a random moment with all of them running. Every run
// must end by exit status 0: no crash in liburcu's destructors (which
// unmap liburcu-bp's reader registry) or after them, no hang, no report of
// a sanitizer. RCUPOOL_EXIT_RUNS sets the number of runs (default 40).
// A second case makes the race certain: a grace period that starts after
// liburcu's destructors (a reclaim thread held at its gate until then).
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <random>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "rcupool_private/testing.h"
#include "tests/support/in_child.h"
#include "tests/support/support.h"

namespace {

int Runs() {
  const char *s = getenv("RCUPOOL_EXIT_RUNS");
  int n = s != nullptr ? atoi(s) : 0;
  return n > 0 ? n : 40;
}

[[noreturn]] void WorkThenExit() {
  rcupool_options_t o{};
  o.threads = 1;
  o.warm_ms = 1;
  rcupool_t *m = nullptr;
  if (rcupool_create(&o, &m) != 0) _exit(10);
  rcupool_t *d = rcupool_default();
  if (d == nullptr || rcupool_set_warm(d, 1, 0) != 0) _exit(11);
  // Threads that never stop: exit() comes while they run.
  for (rcupool_t *mm : {m, d}) {
    std::thread([mm] {
      for (size_t w = 1;; w = w % 4 + 1) {
        rcupool_pin_t pin{};
        if (rcupool_pin_sized(mm, w, &pin) != 0) _exit(12);
        rcupool_scope_enter(&pin);
        rcupool_test::ManagerSumIsRight(mm, 64);
        rcupool_scope_exit();
        rcupool_unpin(&pin);
      }
    }).detach();
  }
  std::thread([m] {
    for (size_t w = 1;; w = w % 3 + 1)
      if (rcupool_reset(m, w) != 0) _exit(13);
  }).detach();
  std::thread([] {
    for (;;) {
      rcupool_read_lock();
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      rcupool_read_unlock();
    }
  }).detach();
  std::random_device rd;
  std::this_thread::sleep_for(std::chrono::microseconds(rd() % 30000));
  exit(0);
}

TEST(RcupoolExit, WhileLingersEndAndResetsRunExitsCleanlyEveryRun) {
  SKIP_UNDER_TSAN();  // threads still running at exit: its leak reports
  if (rcupool_test::InChild()) WorkThenExit();
  const int runs = Runs();
  int clean = 0;
  for (int i = 0; i < runs; i++) {
    child_result_t r = rcupool_test::RerunThisTestInChild(30);
    if (r.exited && r.exit_code == 0) {
      clean++;
      continue;
    }
    char what[256];
    child_describe(&r, what, sizeof what);
    ADD_FAILURE() << "run " << i << ": " << what;
  }
  std::printf("%d of %d runs exited cleanly\n", clean, runs);
  EXPECT_EQ(clean, runs);
}

// The certain race. The reclaim thread is held at the library's
// grace-period gate (the hold point before its grace period) until exit()
// has begun, then 50 ms more; stdout's last flush, which exit() makes after
// every destructor, takes 500 ms. A grace period started in that window,
// after liburcu-bp's destructor unmapped its reader registry, reads it:
// SIGSEGV. With GRACE-2 the library's destructor waits for that grace
// period before liburcu's destructors run, and the run exits 0.
std::atomic<bool> exiting{false};

bool HoldUntilExit(void *, int site) {
  if (site != RCUPL_HOLD_SITE_GP_GATE) return false;
  char name[16] = "";
  pthread_getname_np(pthread_self(), name, sizeof name);
  if (strcmp(name, "rcupool-reclaim") != 0) return false;
  while (!exiting.load()) usleep(1000);
  usleep(50000);
  return false;
}

ssize_t SlowWrite(void *, const char *, size_t n) {
  usleep(500000);
  return (ssize_t)n;
}

[[noreturn]] void GracePeriodAfterLiburcuThenExit() {
  rcupool_options_t o{};
  o.threads = 1;
  rcupool_t *m = nullptr;
  if (rcupool_create(&o, &m) != 0) _exit(10);
  rcupool_read_lock();  // this thread is a registered reader
  rcupool_read_unlock();
  if (rcupool_barrier(m) != 0) _exit(11);  // the reclaim thread exists
  cookie_io_functions_t io{};
  io.write = SlowWrite;
  FILE *slow = fopencookie(nullptr, "w", io);
  if (slow == nullptr) _exit(12);
  fputs("flushed at exit", slow);  // buffered until exit's last flush
  rcupl_fault_set_hook(HoldUntilExit, nullptr);
  if (rcupool_reset(m, 2) != 0) _exit(13);  // a retire: a grace period
  atexit([] { exiting = true; });
  exit(0);
}

TEST(RcupoolExit, GracePeriodDueAfterLiburcuDestructorsNeverRuns) {
  if (rcupool_test::InChild()) GracePeriodAfterLiburcuThenExit();
  child_result_t r = rcupool_test::RerunThisTestInChild(30);
  char what[256];
  child_describe(&r, what, sizeof what);
  EXPECT_TRUE(r.exited && r.exit_code == 0) << what;
}

}  // namespace
