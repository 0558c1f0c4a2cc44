/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Runs a child process with a timeout (child_process.h).
 *
 * Invariants kept here:
 *   CHILD-1. The child is always reaped: it exits, is killed by a signal,
 *            or is killed with SIGKILL at the timeout and then waited for.
 *   CHILD-2. Between fork() and _exit() the forked child runs only the
 *            caller's body; a program is started by posix_spawn, so no
 *            fork handler of this process runs for it.
 */
#define _GNU_SOURCE
#include "tools/child_process.h"

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Waits for pid until timeout_seconds after start; kills it then (CHILD-1). */
static void wait_child(pid_t pid, double start, double timeout_seconds,
                       child_result_t *r) {
  int status = 0;
  for (;;) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) break;
    if (now_seconds() - start > timeout_seconds) {
      kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      r->timed_out = 1;
      break;
    }
    struct timespec nap = {0, 10 * 1000 * 1000};
    nanosleep(&nap, NULL);
  }
  r->seconds = now_seconds() - start;
  if (r->timed_out) return;
  if (WIFEXITED(status)) {
    r->exited = 1;
    r->exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    r->signaled = 1;
    r->term_signal = WTERMSIG(status);
  }
}

/* Copies the first complete "...Sanitizer: what" line of the tail. */
static void keep_first_report(child_result_t *r) {
  if (r->sanitizer[0] != '\0') return;
  const char *hit = strstr(r->tail, "Sanitizer: ");
  if (hit == NULL) return;
  while (hit > r->tail && hit[-1] != ' ' && hit[-1] != '\n') hit--;
  const char *eol = strchr(hit, '\n');
  if (eol == NULL) return; /* not complete yet */
  size_t n = (size_t)(eol - hit);
  if (n >= sizeof r->sanitizer) n = sizeof r->sanitizer - 1;
  memcpy(r->sanitizer, hit, n);
  r->sanitizer[n] = '\0';
}

/* Scans the whole capture for a report and keeps its tail for the reader. */
static void read_capture(FILE *out, child_result_t *r) {
  char buf[4096];
  size_t len = 0, n;
  rewind(out);
  while ((n = fread(buf, 1, sizeof buf, out)) > 0) {
    for (size_t i = 0; i < n; i++) {
      if (len == sizeof r->tail - 1) {
        memmove(r->tail, r->tail + 1, len - 1);
        len--;
      }
      r->tail[len++] = buf[i];
    }
    r->tail[len] = '\0';
    if (strstr(r->tail, "AddressSanitizer: heap-use-after-free") != NULL)
      r->asan_use_after_free = 1;
    keep_first_report(r);
  }
}

int child_run_program(char *const argv[], char *const envp[], int capture,
                      double timeout_seconds, child_result_t *r) {
  memset(r, 0, sizeof *r);
  FILE *out = NULL;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (capture) {
    out = tmpfile();
    if (out == NULL) {
      int e = errno;
      posix_spawn_file_actions_destroy(&actions);
      return -e;
    }
    posix_spawn_file_actions_adddup2(&actions, fileno(out), STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, fileno(out), STDERR_FILENO);
  }
  fflush(NULL);
  double start = now_seconds();
  pid_t pid;
  int err = posix_spawn(&pid, argv[0], &actions, NULL, argv,
                        envp != NULL ? envp : environ);
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0) {
    if (out != NULL) fclose(out);
    return -err;
  }
  wait_child(pid, start, timeout_seconds, r);
  if (out != NULL) {
    read_capture(out, r);
    fclose(out);
  }
  return 0;
}

int child_run_function(int (*body)(void *arg), void *arg,
                       double timeout_seconds, child_result_t *r) {
  memset(r, 0, sizeof *r);
  fflush(NULL);
  double start = now_seconds();
  pid_t pid = fork();
  if (pid < 0) return -errno;
  if (pid == 0) {
    alarm((unsigned)timeout_seconds + 5);
    _exit(body(arg));
  }
  wait_child(pid, start, timeout_seconds, r);
  return 0;
}

void child_describe(const child_result_t *r, char *buf, size_t n) {
  if (r->timed_out)
    snprintf(buf, n, "hung: killed after %.1f s", r->seconds);
  else if (r->asan_use_after_free)
    snprintf(buf, n, "AddressSanitizer reported heap-use-after-free (%s %d)",
             r->signaled ? "signal" : "exit code",
             r->signaled ? r->term_signal : r->exit_code);
  else if (r->sanitizer[0] != '\0')
    snprintf(buf, n, "%s (%s %d)", r->sanitizer,
             r->signaled ? "signal" : "exit code",
             r->signaled ? r->term_signal : r->exit_code);
  else if (r->signaled)
    snprintf(buf, n, "killed by signal %d (%s) after %.1f s", r->term_signal,
             strsignal(r->term_signal), r->seconds);
  else if (r->exit_code != 0)
    snprintf(buf, n, "failed with exit code %d after %.1f s", r->exit_code,
             r->seconds);
  else
    snprintf(buf, n, "exited with code 0 after %.1f s", r->seconds);
}
