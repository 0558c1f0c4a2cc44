// SPDX-License-Identifier: LGPL-2.1-or-later
// The "Python process" shape (issue 10): a host that links no rcupool
// dlopens two extensions that each carry rcupool, and while one thread
// resets in a loop and another runs parallel work, forks 100 times; every
// child runs parallel work on the default pool, resets once and exits 0.
// Once with two copies of the static library (two rcupool copies, each
// with its own fork handlers: liburcu-bp's process-global hooks must run
// once per fork, not once per copy), once with librcupool.so, and once
// with an application that registers liburcu-bp's hooks itself.
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "tests/shared/host.h"

namespace rcupool_host {
namespace {

// gcc 12's AddressSanitizer runtime has no fork handler for its own
// allocator: a child forked while another thread is inside ASan's malloc
// inherits its size-class lock held and hangs at its first allocation (seen
// here, with stacks, about 1 fork in 100). Under ASan the busy threads
// therefore pause (outside any rcupool call) and the reclaim is drained
// around each fork; the plain build forks while they run.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kPauseAroundFork = true;
#else
constexpr bool kPauseAroundFork = false;
#endif

constexpr int kTimeoutS = 240;
constexpr int kForks = 100;

// Returns the child's exit status, or -1 if it died or hung (20 s).
int WaitChild(pid_t pid) {
  int status = 0;
  for (int i = 0; i < 2000; i++) {
    pid_t got = waitpid(pid, &status, WNOHANG);
    if (got == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // Show where it hangs (gdb, when installed), then kill it.
  std::string cmd = "gdb -p " + std::to_string(pid) +
                    " -batch -ex 'thread apply all bt 12' 2>/dev/null | "
                    "grep -E '^#|^Thread' >&2";
  if (system(cmd.c_str()) != 0) fprintf(stderr, "(no stacks)\n");
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  return -1;
}

void ForkWhileBusy(const char *path_a, const char *path_b) {
  Extension a, b;
  ASSERT_NO_FATAL_FAILURE(Open(path_a, &a));
  ASSERT_NO_FATAL_FAILURE(Open(path_b, &b));
  ASSERT_EQ(a.api->reset(2), 0);
  ASSERT_EQ(b.api->reset(2), 0);
  std::atomic<bool> stop{false};
  std::atomic<bool> pause{false};
  std::atomic<int> paused{0};
  std::atomic<int> bad{0};
  auto maybe_pause = [&] {
    if (!pause.load()) return;
    paused++;
    while (pause.load()) std::this_thread::yield();
    paused--;
  };
  std::thread resetter([&] {
    for (size_t i = 0; !stop; i++) {
      maybe_pause();
      if (a.api->reset(1 + i % 3) != 0) bad++;
    }
  });
  std::thread worker([&] {
    while (!stop) {
      maybe_pause();
      if (b.api->sum(200) != 0 || a.api->sum(200) != 0) bad++;
    }
  });
  int failed = 0;
  for (int i = 0; i < kForks; i++) {
    fflush(stderr);
    if (kPauseAroundFork) {
      pause = true;
      while (paused.load() != 2) std::this_thread::yield();
      // rcupool's own threads quiet too: frees done, their joins returned.
      if (a.api->barrier() != 0 || b.api->barrier() != 0) bad++;
    }
    pid_t pid = fork();
    pause = false;
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      alarm(30);
      int rc = 0;
      if (a.api->sum(500) != 0) rc = 1;
      if (b.api->sum(500) != 0) rc = 2;
      if (a.api->reset(2 + i % 2) != 0) rc = 3;
      if (a.api->sum(500) != 0 || b.api->sum(500) != 0) rc = 4;
      _exit(rc);
    }
    int rc = WaitChild(pid);
    if (rc != 0) {
      failed++;
      fprintf(stderr, "fork %d: child status %d\n", i, rc);
    }
  }
  stop = true;
  resetter.join();
  worker.join();
  EXPECT_EQ(failed, 0);
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(a.api->barrier(), 0);
  EXPECT_EQ(b.api->barrier(), 0);
}

TEST(RcupoolForkHost, TwoStaticCopiesForkHundredTimesWhileBusyChildrenWork) {
  SKIP_UNDER_TSAN();
  RCUPOOL_RUN_IN_CHILD(kTimeoutS);
  ForkWhileBusy(kBindingsStatic, kTrainingStatic);
}

TEST(RcupoolForkHost, TwoSharedLibraryUsersForkHundredTimesWhileBusyChildrenWork) {
  SKIP_UNDER_TSAN();
  RCUPOOL_RUN_IN_CHILD(kTimeoutS);
  ForkWhileBusy(kBindings, kTraining);
}

// An application that registers liburcu-bp's fork hooks itself, as
// liburcu's documentation asks, after loading the extensions (docs/flavours.md,
// "fork": registered before an rcupool copy is loaded, its prepare would
// run after that copy's and take liburcu-bp's locks a second time).
TEST(RcupoolForkHost, ApplicationRegisteringUrcuBpHooksForksWhileBusy) {
  SKIP_UNDER_TSAN();
  RCUPOOL_RUN_IN_CHILD(kTimeoutS);
  void *bp = dlopen("liburcu-bp.so.8", RTLD_NOW | RTLD_GLOBAL);
  ASSERT_NE(bp, nullptr) << dlerror();
  auto before = reinterpret_cast<void (*)(void)>(dlsym(bp, "urcu_bp_before_fork"));
  auto parent = reinterpret_cast<void (*)(void)>(dlsym(bp, "urcu_bp_after_fork_parent"));
  auto child = reinterpret_cast<void (*)(void)>(dlsym(bp, "urcu_bp_after_fork_child"));
  ASSERT_TRUE(before && parent && child);
  Extension warm_a, warm_b;
  ASSERT_NO_FATAL_FAILURE(Open(kBindingsStatic, &warm_a));
  ASSERT_NO_FATAL_FAILURE(Open(kTrainingStatic, &warm_b));
  ASSERT_EQ(pthread_atfork(before, parent, child), 0);
  ForkWhileBusy(kBindingsStatic, kTrainingStatic);
}

}  // namespace
}  // namespace rcupool_host
