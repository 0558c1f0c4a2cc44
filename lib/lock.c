/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The library's lock wrappers (lock.h): the per-thread count
 * of rcupool locks held and the one death of a failed lock call.
 *
 * Invariants:
 *   LOCK-1. rcupl_locks_held is the number of rcupool mutexes the calling
 *           thread holds: every lock and unlock of lib/ goes through
 *           rcupl_mutex_lock/rcupl_mutex_unlock (a condition wait gives the mutex
 *           back before it returns, so it leaves the count alone). The log
 *           reads it before running a hook (log.c, LOG-1).
 *   LOCK-2. A pthread lock call that fails is a broken invariant (a lock
 *           not initialised, unlocked by a thread that does not own it):
 *           the process dies with the caller's file and line.
 *   LOCK-3. Every timed wait of lib/ (rcupl_cond_wait_ns: the reclaim
 *           thread's wait for the next warm pass, the one there is) is on
 *           CLOCK_MONOTONIC, as every linger is (design invariant 10): its
 *           condition variable is set to that clock with
 *           pthread_condattr_setclock and its deadline read from it, so a
 *           step of the wall clock moves no linger.
 */

#include <errno.h>
#include <time.h>

#include "die.h"
#include "lock.h"
#include "rcupool/rcupool.h"

__thread unsigned rcupl_locks_held;

void rcupl_lock_failed(const char *file, int line, const char *what, int err) {
  rcupl_die_at(file, line, "%s failed (error %d)", what, err);
}

void rcupl_cond_wait_ns_at(pthread_cond_t *cv, pthread_mutex_t *mu, uint64_t ns,
                           const char *file, int line) {
  struct timespec at;
  clock_gettime(CLOCK_MONOTONIC, &at);
  uint64_t nsec = (uint64_t)at.tv_nsec + ns % 1000000000u;
  at.tv_sec += (time_t)(ns / 1000000000u + nsec / 1000000000u);
  at.tv_nsec = (long)(nsec % 1000000000u);
  int err = pthread_cond_timedwait(cv, mu, &at);
  if (__builtin_expect(err != 0 && err != ETIMEDOUT, 0))
    rcupl_lock_failed(file, line, "pthread_cond_timedwait", err);
}

void rcupl_cond_init_monotonic(pthread_cond_t *cv) {
  pthread_condattr_t attr;
  int err = pthread_condattr_init(&attr);
  if (err == 0) err = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  if (err == 0) err = pthread_cond_init(cv, &attr);
  pthread_condattr_destroy(&attr);
  if (err != 0)
    rcupl_lock_failed(__FILE__, __LINE__, "pthread_cond_init (monotonic)", err);
}
