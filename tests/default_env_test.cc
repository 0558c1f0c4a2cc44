// rcupool_default and RCUPOOL_NUM_THREADS. No test of this binary touches
// the default manager in the parent process: each case forks a child that
// makes the process's first rcupool_default() call.
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "tests/support/in_child.h"
#include "tests/support/support.h"

// RCUPOOL_NUM_THREADS is read once per process, by the first
// rcupool_default(): each case runs in a fresh child process.
namespace {
int DefaultThreadsInChild(const char *value, bool *warned) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    if (value) setenv(RCUPOOL_ENV_NUM_THREADS, value, 1);
    else unsetenv(RCUPOOL_ENV_NUM_THREADS);
    int warnings = 0;
    rcupool_set_log(
        [](void *ctx, rcupool_log_level_t level, const char *msg) {
          if (level == RCUPOOL_LOG_WARN && strstr(msg, "RCUPOOL_NUM_THREADS"))
            ++*static_cast<int *>(ctx);
        },
        &warnings);
    rcupool_t *m = rcupool_default();
    long out[2] = {m ? (long)rcupool_threads(m) : -1, warnings};
    if (write(fds[1], out, sizeof out) != sizeof out) _exit(2);
    _exit(0);
  }
  close(fds[1]);
  long in[2] = {-1, 0};
  ssize_t got = read(fds[0], in, sizeof in);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (got != sizeof in || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return -1;
  *warned = in[1] != 0;
  return (int)in[0];
}
}  // namespace

TEST(RcupoolDefault, ValidEnvironmentCountIsUsed) {
  bool warned = true;
  EXPECT_EQ(DefaultThreadsInChild("3", &warned), 3);
  EXPECT_FALSE(warned);
  EXPECT_EQ(DefaultThreadsInChild(" 7 ", &warned), 7);
  EXPECT_FALSE(warned);
}

TEST(RcupoolDefault, InvalidEnvironmentCountIsLoggedAndIgnored) {
  bool warned = false;
  const int fallback = DefaultThreadsInChild(nullptr, &warned);
  ASSERT_GE(fallback, 1);
  EXPECT_FALSE(warned);
  for (const char *bad : {"", "0", "-2", "abc", "4x", "999999999999999999999",
                          "257", "1.5"}) {
    warned = false;
    EXPECT_EQ(DefaultThreadsInChild(bad, &warned), fallback) << bad;
    EXPECT_TRUE(warned) << bad;
  }
}

// A fork child's inherited pools have no workers there: the child's first
// pin settles the default manager (lib/fork.c), and the orphaned pools are
// then freed without their pthreadpools, which cannot be destroyed there
// (pthreadpool_destroy would wait for workers that do not exist). Those
// pthreadpools must stay reachable, not lost: the valgrind job runs this
// binary under memcheck, whose leak check at the grandchild's exit turns a
// definitely lost block into exit code 99.
TEST(RcupoolDefault, ForkChildFreesOrphanedPoolsAndKeepsTheirPthreadpoolsReachable) {
  SKIP_UNDER_TSAN();
  int code = rcupool_test::ForkAndWait([] {
    rcupool_t *m = rcupool_default();
    if (m == nullptr || rcupool_reset(m, 2) != 0) return 10;
    return rcupool_test::ForkAndWait([m] {
      rcupool_stats_t before{}, after{};
      if (rcupool_get_stats(m, &before) != 0) return 11;
      rcupool_pin_t pin{};
      if (rcupool_pin(m, &pin) != 0) return 12;
      if (rcupool_pin_threads(&pin) != 2) return 13;
      rcupool_unpin(&pin);
      // The spare turns warm when the pin settles the manager: trim lets
      // it go (a barrier would keep it for the next pin of one thread).
      if (rcupool_trim(m) < 0) return 14;
      if (rcupool_get_stats(m, &after) != 0) return 15;
      // Freed in this process: the orphaned 2-thread pool and the spare
      // that stood in until the pin settled the manager.
      if (after.pools_freed < before.pools_freed + 2) return 16;
      return 0;
    });
  });
  EXPECT_EQ(code, 0);
}
