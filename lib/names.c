/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Thread names: rcupool's threads say whose they are in top -H, perf, gdb
 * and /proc/<pid>/task/<tid>/comm.
 *
 * Invariants kept here:
 *   NAMES-1. Every name starts with "rcupool" and fits Linux's 15 bytes: a
 *       pool's worker is "rcupool-w<index>/<width>" (index 1..width-1, the
 *       creating thread being index 0), "rcupool-<index>/<width>" when the
 *       "w" would not fit (widths of three digits); a thread of an
 *       executor's set, which serves views of every width, is
 *       "rcupool-w<index>/" and a '*' (which fits for every index); the reclaim
 *       thread is "rcupool-reclaim".
 *   NAMES-2. A thread only ever names itself, and only a thread rcupool
 *       started: the worker census names the workers but never the thread
 *       that creates the pool (lib/worker.c, WORKER-1), the reclaim
 *       thread names itself first thing (lib/reclaim.c), and a thread
 *       of an executor's set as it starts (lib/exec_set.c).
 *   NAMES-3. Naming cannot fail in a way that matters: an error of
 *       pthread_setname_np() leaves the inherited name and is ignored.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>

#include "names.h"
#include "rcupool/rcupool.h"

#define RCUPL_NAME_MAX 16 /* 15 bytes and the NUL */

void rcupl_thread_set_name(const char *name) {
  (void)pthread_setname_np(pthread_self(), name);
}

void rcupl_thread_name_worker(size_t index, size_t threads) {
  char name[RCUPL_NAME_MAX];
  int n = snprintf(name, sizeof name, "rcupool-w%zu/%zu", index, threads);
  if (n < 0 || (size_t)n >= sizeof name)
    snprintf(name, sizeof name, "rcupool-%zu/%zu", index, threads);
  rcupl_thread_set_name(name);
}

void rcupl_thread_name_set_worker(size_t index) {
  char name[RCUPL_NAME_MAX];
  snprintf(name, sizeof name, "rcupool-w%zu/*", index);
  rcupl_thread_set_name(name);
}

_Static_assert(sizeof("rcupool-255/256") <= RCUPL_NAME_MAX,
               "a worker name of the widest pool fits Linux's 15 bytes");
_Static_assert(sizeof("rcupool-w999/*") <= RCUPL_NAME_MAX,
               "a set thread's name fits Linux's 15 bytes");
_Static_assert(RCUPOOL_MAX_THREADS <= 999,
               "worker names hold widths of at most three digits");
_Static_assert(sizeof("rcupool-reclaim") <= RCUPL_NAME_MAX,
               "the reclaim thread's name fits Linux's 15 bytes");
