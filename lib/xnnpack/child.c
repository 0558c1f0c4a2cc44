/*
 * Runs a control in a child process with a timeout (mlp.h).
 *
 * Invariants kept here:
 *   C1. The child is always reaped: it exits, is killed by a signal, or is
 *       killed with SIGKILL at the timeout and then waited for.
 *   C2. Only async-signal-safe calls run between fork() and exec().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/xnnpack/mlp.h"

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Copies the first complete "...Sanitizer: what" line of the tail. */
static void keep_first_report(mlp_child_result_t *r) {
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

int mlp_run_child(char *const argv[], double timeout_seconds,
                  mlp_child_result_t *r) {
  memset(r, 0, sizeof *r);
  FILE *err = tmpfile();
  if (err == NULL) return -errno;
  fflush(NULL);
  double start = now_seconds();
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    fclose(err);
    return -e;
  }
  if (pid == 0) {
    dup2(fileno(err), STDERR_FILENO);
    dup2(fileno(err), STDOUT_FILENO);
    execv(argv[0], argv);
    _exit(127);
  }
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
    struct timespec nap = {0, 20 * 1000 * 1000};
    nanosleep(&nap, NULL);
  }
  r->seconds = now_seconds() - start;
  if (!r->timed_out) {
    if (WIFEXITED(status)) {
      r->exited = 1;
      r->exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      r->signaled = 1;
      r->term_signal = WTERMSIG(status);
    }
  }
  /* Scan the whole capture for the report, keep its tail for the reader. */
  char buf[4096];
  size_t len = 0, n;
  rewind(err);
  while ((n = fread(buf, 1, sizeof buf, err)) > 0) {
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
  fclose(err);
  return 0;
}

void mlp_child_describe(const mlp_child_result_t *r, char *buf, size_t n) {
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
    snprintf(buf, n, "survived: every invoke returned correct outputs");
}
