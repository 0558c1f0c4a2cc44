/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Runs a child process with a timeout and says how it ended: the one
 * runner of the tests (tests/fork, tests/fault, tests/shared's host,
 * tests/xnnpack's unsafe control) and of the demo (tools/demo.c). No
 * rcupool: a host that loads rcupool only through dlopen can use it.
 *
 * Both calls may run on any thread; they block until the child ends or is
 * killed at the timeout, and always reap it. Pointers are read during the
 * call only.
 */
#ifndef RCUPOOL_TOOLS_CHILD_PROCESS_H
#define RCUPOOL_TOOLS_CHILD_PROCESS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How a child process ended. */
typedef struct child_result {
  int exited;      /* exited normally, with exit_code */
  int exit_code;
  int signaled;    /* killed by term_signal (not by the timeout) */
  int term_signal;
  int timed_out;   /* still running at the timeout: killed with SIGKILL */
  int asan_use_after_free; /* its captured output has ASan's UAF report */
  char sanitizer[160];     /* first sanitizer report line, "" if none */
  double seconds;  /* wall time until it ended or was killed */
  char tail[2048]; /* the last bytes of its captured output, or "" */
} child_result_t;

/*
 * Starts the program argv[0] (a path) with argv and envp (NULL: this
 * process's environment) by posix_spawn, so no fork handler of this
 * process runs. With capture, its stdout and stderr go to a temporary file
 * that is scanned for a sanitizer report and whose tail is kept in *r;
 * without, it writes to this process's. Kills it with SIGKILL after
 * timeout_seconds. Returns 0 with *r filled in, or a negative errno when it
 * could not be started.
 */
int child_run_program(char *const argv[], char *const envp[], int capture,
                      double timeout_seconds, child_result_t *r);

/*
 * Forks; the child runs body(arg) and _exit()s with its return value (an
 * alarm ends it too, a few seconds after the timeout, should the parent
 * be gone). Kills it with SIGKILL after timeout_seconds. Returns 0 with *r
 * filled in, or a negative errno when fork() failed.
 */
int child_run_function(int (*body)(void *arg), void *arg,
                       double timeout_seconds, child_result_t *r);

/* One line saying how the child ended, e.g. "hung: killed after 5.0 s". */
void child_describe(const child_result_t *r, char *buf, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* RCUPOOL_TOOLS_CHILD_PROCESS_H */
