// SPDX-License-Identifier: LGPL-2.1-or-later
// The library's one rule for errors it returns (lib/log.c, LOG-5): every
// negative errno of a public call is logged once, with its reason, where
// it is decided (-EBUSY at warning level, the rest at error level; -EINVAL
// for a NULL argument is not logged). Each case here is an error path that
// used to return without a word, next to barrier's, which always logged
// (tests/reclaim_test.cc).
// Also: a fork child's settle says so at debug level (the line existed but
// could never be written).
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "rcupool_private/testing.h"
#include "tests/support/support.h"

using rcupool_test::LogRecorder;
using rcupool_test::NoWarmManager;

namespace {

void DestroyFromTask(void *ctx, size_t) {
  auto *m = static_cast<rcupool_t **>(ctx);
  m[1] = reinterpret_cast<rcupool_t *>(
      static_cast<intptr_t>(rcupool_destroy(m[0])));
}

bool FailEveryAllocation(void *, int site) {
  return site == RCUPL_FAULT_SITE_ALLOC;
}

}  // namespace

TEST(RcupoolDestroy, InsideSectionIsEdeadlkAndLoggedOnceAtErrorLevel) {
  NoWarmManager m(1);
  LogRecorder log;
  rcupool_read_lock();
  int err = rcupool_destroy(m);
  rcupool_read_unlock();
  EXPECT_EQ(err, -EDEADLK);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_ERROR, "destroy:"), 1u);
}

TEST(RcupoolDestroy, InsideTaskIsEdeadlkAndLoggedOnceAtErrorLevel) {
  NoWarmManager m(2);
  rcupool_t *ctx[2] = {m, nullptr};
  LogRecorder log;
  ASSERT_EQ(rcupool_parallelize_1d(m, DestroyFromTask, ctx, 1, 0), 0);
  EXPECT_EQ(static_cast<int>(reinterpret_cast<intptr_t>(ctx[1])), -EDEADLK);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_ERROR, "destroy:"), 1u);
}

TEST(RcupoolDestroy, DefaultManagerIsEpermAndLoggedOnceAtErrorLevel) {
  rcupool_t *m = rcupool_default();
  ASSERT_NE(m, nullptr);
  LogRecorder log;
  EXPECT_EQ(rcupool_destroy(m), -EPERM);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_ERROR, "destroy:"), 1u);
}

TEST(RcupoolDestroy, WithPinHeldIsEbusyAndLoggedOnceAtWarningLevel) {
  NoWarmManager m(1);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin(m, &pin), 0);
  {
    LogRecorder log;
    EXPECT_EQ(rcupool_destroy(m), -EBUSY);
    EXPECT_EQ(log.Count(RCUPOOL_LOG_WARN, "destroy:"), 1u);
  }
  rcupool_unpin(&pin);
}

TEST(RcupoolCreate, AllocationFailureIsEnomemAndLoggedOnceAtErrorLevel) {
  LogRecorder log;
  rcupool_t *m = nullptr;
  rcupl_fault_set_hook(FailEveryAllocation, nullptr);
  int err = rcupool_create(nullptr, &m);
  rcupl_fault_set_hook(nullptr, nullptr);
  EXPECT_EQ(err, -ENOMEM);
  EXPECT_EQ(m, nullptr);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_ERROR, "create:"), 1u);
}

TEST(RcupoolCreate, NullOutIsEinvalAndNotLogged) {
  LogRecorder log;
  EXPECT_EQ(rcupool_create(nullptr, nullptr), -EINVAL);
  EXPECT_TRUE(log.All().empty());
}

// A fork child's first pin settles the default manager (docs/flavours.md, "fork") and
// logs it at debug level. ThreadSanitizer cannot follow a child of a
// multi-threaded fork that starts threads (as tests/fork).
TEST(RcupoolPin, InForkChildSettlesDefaultManagerAndLogsItAtDebugLevel) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "ThreadSanitizer does not support threads in a fork child";
#endif
  rcupool_t *m = rcupool_default();
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(rcupool_reset(m, 2), 0);
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  ASSERT_GE(pid, 0) << strerror(errno);
  if (pid == 0) {
    alarm(30);
    int failures = 0;
    {
      LogRecorder log;
      rcupool_pin_t pin{};
      if (rcupool_pin(m, &pin) != 0) failures++;
      if (rcupool_pin_threads(&pin) != 2) failures++;
      rcupool_unpin(&pin);
      if (log.Count(RCUPOOL_LOG_DEBUG, "settled at 2 threads") != 1) {
        fprintf(stderr, "child: no \"settled at 2 threads\" line; log:\n");
        for (const auto &line : log.All())
          fprintf(stderr, "  %s\n", line.c_str());
        failures++;
      }
    }
    _exit(failures == 0 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "child killed by a signal";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "child checks failed (see above)";
}
