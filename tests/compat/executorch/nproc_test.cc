// SPDX-License-Identifier: LGPL-2.1-or-later
// The stand-in where no thread can start: an unprivileged user (nobody)
// with RLIMIT_NPROC 1, as `ulimit -u 1` sets it. ExecuTorch's callers never
// check get_threadpool() for null, so the default manager must come up
// anyway, on a 1-thread pool (which starts no thread: the caller runs the
// work), say so in a warning and count the failed start in its stats.
// Each case runs in a fork child that drops root; without root the test
// cannot become another user and is skipped with that reason.
#include <grp.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include <string>

#include <gtest/gtest.h>

#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/extension/threadpool/threadpool_guard.h>
#include <rcupool/rcupool.h>

#include "tests/compat/executorch/util.h"
#include "tests/support/in_child.h"

namespace {

namespace et = ::executorch::extension::threadpool;

// Warnings that reached rcupool's log hook (the child is single-threaded
// until the library could start a thread, which it cannot here).
std::string warnings;

void Hook(void *, rcupool_log_level_t level, const char *message) {
  if (level >= RCUPOOL_LOG_WARN) warnings += std::string(message) + "\n";
}

// The child's exit code when it cannot change its user (root inside a user
// namespace, such as a sandbox that maps no other user): the test skips.
constexpr int kCannotDrop = 77;

// In the child: become `nobody` with RLIMIT_NPROC 1, and check that a
// thread really cannot start (otherwise the test would prove nothing).
// Returns 0, or an exit code that names the step that failed.
int DropToNobodyWithoutThreads(uid_t uid, gid_t gid) {
  if (setgroups(0, nullptr) != 0 || setgid(gid) != 0 || setuid(uid) != 0) {
    perror("child: cannot become nobody");
    return kCannotDrop;
  }
  struct rlimit one = {1, 1};
  if (setrlimit(RLIMIT_NPROC, &one) != 0) {
    perror("child: setrlimit(RLIMIT_NPROC)");
    return 91;
  }
  pthread_t t;
  if (pthread_create(
          &t, nullptr, [](void *) -> void * { return nullptr; }, nullptr) ==
      0) {
    pthread_join(t, nullptr);
    fprintf(stderr, "child: a thread started under RLIMIT_NPROC 1\n");
    return 92;
  }
  return 0;
}

#define CHILD_CHECK(cond, code)                                          \
  do {                                                                   \
    if (!(cond)) {                                                       \
      fprintf(stderr, "child: failed: %s\n%s", #cond, warnings.c_str()); \
      return code;                                                       \
    }                                                                    \
  } while (0)

class NoThreadCanStart : public ::testing::Test {
 protected:
  void SetUp() override {
#if defined(__SANITIZE_THREAD__)
    GTEST_SKIP() << "ThreadSanitizer needs threads of its own in the child";
#endif
    if (geteuid() != 0)
      GTEST_SKIP() << "needs root to become an unprivileged user (nobody) "
                      "with RLIMIT_NPROC 1 (`ulimit -u 1`)";
    struct passwd *pw = getpwnam("nobody");
    if (pw == nullptr) GTEST_SKIP() << "no user named nobody";
    uid_ = pw->pw_uid;
    gid_ = pw->pw_gid;
  }
  uid_t uid_ = 0;
  gid_t gid_ = 0;
};

TEST_F(NoThreadCanStart, GetThreadpoolIsNotNullAndRunsWorkOnCaller) {
  uid_t uid = uid_;
  gid_t gid = gid_;
  int code = rcupool_test::ForkAndWait([uid, gid]() -> int {
    int err = DropToNobodyWithoutThreads(uid, gid);
    if (err != 0) return err;
    rcupool_set_log(Hook, nullptr);
    // The first pool must want a worker whatever this machine's default
    // count is (1 on a machine of one core): 2 threads, which cannot start.
    setenv("RCUPOOL_NUM_THREADS", "2", 1);
    et::ThreadPool *tp = et::get_threadpool();
    CHILD_CHECK(tp != nullptr, 1);
    CHILD_CHECK(tp->get_thread_count() == 1, 2);
    CHILD_CHECK(et::get_pthreadpool() != nullptr, 3);
    CHILD_CHECK(et_test::RunSumIsRight(1000), 4);
    pthread_t caller = pthread_self();
    bool all_on_caller = true;
    tp->run(
        [&](size_t) {
          all_on_caller &= pthread_equal(pthread_self(), caller) != 0;
        },
        64);
    CHILD_CHECK(all_on_caller, 5);
    // The warning says what happened and what the process got.
    CHILD_CHECK(warnings.find("1 thread") != std::string::npos, 6);
    rcupool_stats_t s{};
    CHILD_CHECK(rcupool_get_stats(rcupool_default(), &s) == 0, 7);
    CHILD_CHECK(s.threads == 1 && s.pools_alive == 1, 8);
    CHILD_CHECK(s.start_failures >= 1, 9);
    // A reset that needs threads fails and leaves the pool working.
    CHILD_CHECK(!tp->_unsafe_reset_threadpool(3), 10);
    CHILD_CHECK(tp->get_thread_count() == 1 && et_test::RunSumIsRight(100), 11);
    CHILD_CHECK(rcupool_get_stats(rcupool_default(), &s) == 0, 12);
    CHILD_CHECK(s.start_failures >= 2 && s.pools_alive == 1, 13);
    return 0;
  });
  if (code == kCannotDrop)
    GTEST_SKIP() << "cannot become nobody here (root in a user namespace?)";
  EXPECT_EQ(code, 0) << "see the child's output above";
}

TEST_F(NoThreadCanStart, GuardAndPinnedPoolStillRunWork) {
  uid_t uid = uid_;
  gid_t gid = gid_;
  int code = rcupool_test::ForkAndWait([uid, gid]() -> int {
    int err = DropToNobodyWithoutThreads(uid, gid);
    if (err != 0) return err;
    rcupool_set_log(Hook, nullptr);
    {
      et::PinnedPthreadpool pinned = et::get_pinned_pthreadpool();
      CHILD_CHECK(pinned.get() != nullptr, 1);
    }
    {
      // A width of 1 needs no thread either.
      et::UseNThreadsThreadPoolGuard guard(1);
      CHILD_CHECK(et::get_threadpool()->get_thread_count() == 1, 2);
      CHILD_CHECK(et_test::RunSumIsRight(100), 3);
    }
    {
      et::NoThreadPoolGuard none;
      CHILD_CHECK(et_test::RunSumIsRight(100), 4);
    }
    return 0;
  });
  if (code == kCannotDrop)
    GTEST_SKIP() << "cannot become nobody here (root in a user namespace?)";
  EXPECT_EQ(code, 0) << "see the child's output above";
}

}  // namespace
