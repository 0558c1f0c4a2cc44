// SPDX-License-Identifier: LGPL-2.1-or-later
// rcupool_default and RCUPOOL_NUM_THREADS. No test of this binary touches
// the default manager in the parent process: each case forks a child that
// makes the process's first rcupool_default() call.
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

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
