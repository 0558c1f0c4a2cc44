/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Why tests/aarch64/run.sh leaves some fork tests out: a fork child of a
 * process with two threads starts one thread. No rcupool. Natively it
 * exits 0; qemu-aarch64 7.2 aborts the child ("qemu_plugin_vcpu_init_hook:
 * assertion failed", "cpu_exec: assertion failed: (cpu == current_cpu)").
 * run.sh runs it to check that the reason still holds. */
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static void *wait_forever(void *arg) {
  for (;;) pause();
  return arg;
}

static void *nothing(void *arg) { return arg; }

int main(void) {
  pthread_t t;
  if (pthread_create(&t, NULL, wait_forever, NULL) != 0) return 2;
  pid_t pid = fork();
  if (pid < 0) return 2;
  if (pid == 0) {
    pthread_t u;
    if (pthread_create(&u, NULL, nothing, NULL) != 0) _exit(1);
    pthread_join(u, NULL);
    _exit(0);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return 2;
  int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  printf("a fork child %s start a thread\n", ok ? "can" : "cannot");
  return ok ? 0 : 1;
}
