/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/lock.c's API, the library's locks.
 */
#ifndef RCUPOOL_LIB_LOCK_H
#define RCUPOOL_LIB_LOCK_H

#include <pthread.h>
#include <stdint.h>

/* Every pthread mutex and condition-variable call of lib/ goes through
 * these, except manager.c's two pthread_mutex_init calls, whose failure
 * rcupool_create returns (-ENOMEM); tests/tools:lock_calls_test checks it.
 * A failure dies with the caller's file and line (rcupl_die), and the
 * calling thread counts the rcupool locks it holds, so the log never runs
 * a hook while one is held (log.c, LOG-1). */
extern __thread unsigned rcupl_locks_held;
void rcupl_lock_failed(const char *file, int line, const char *what, int err)
    __attribute__((noreturn, cold));
#define rcupl_mutex_lock(mu) rcupl_mutex_lock_at((mu), __FILE__, __LINE__)
#define rcupl_mutex_unlock(mu) rcupl_mutex_unlock_at((mu), __FILE__, __LINE__)
#define rcupl_cond_wait(cv, mu) \
  rcupl_cond_wait_at((cv), (mu), __FILE__, __LINE__)
static inline void rcupl_mutex_lock_at(pthread_mutex_t *mu, const char *file,
                                       int line) {
  int err = pthread_mutex_lock(mu);
  if (__builtin_expect(err != 0, 0))
    rcupl_lock_failed(file, line, "pthread_mutex_lock", err);
  rcupl_locks_held++;
}
static inline void rcupl_mutex_unlock_at(pthread_mutex_t *mu, const char *file,
                                         int line) {
  rcupl_locks_held--;
  int err = pthread_mutex_unlock(mu);
  if (__builtin_expect(err != 0, 0))
    rcupl_lock_failed(file, line, "pthread_mutex_unlock", err);
}
static inline void rcupl_cond_wait_at(pthread_cond_t *cv, pthread_mutex_t *mu,
                                      const char *file, int line) {
  int err = pthread_cond_wait(cv, mu);
  if (__builtin_expect(err != 0, 0))
    rcupl_lock_failed(file, line, "pthread_cond_wait", err);
}

#define rcupl_cond_signal(cv) rcupl_cond_signal_at((cv), __FILE__, __LINE__)
#define rcupl_cond_broadcast(cv) \
  rcupl_cond_broadcast_at((cv), __FILE__, __LINE__)
static inline void rcupl_cond_signal_at(pthread_cond_t *cv, const char *file,
                                        int line) {
  int err = pthread_cond_signal(cv);
  if (__builtin_expect(err != 0, 0))
    rcupl_lock_failed(file, line, "pthread_cond_signal", err);
}
static inline void rcupl_cond_broadcast_at(pthread_cond_t *cv, const char *file,
                                           int line) {
  int err = pthread_cond_broadcast(cv);
  if (__builtin_expect(err != 0, 0))
    rcupl_lock_failed(file, line, "pthread_cond_broadcast", err);
}

/* Initialisation (a fork child's re-initialisation of locks another
 * thread held at the fork included) and destruction: a failure dies too
 * (nothing can use the lock after). */
#define rcupl_mutex_init(mu) rcupl_mutex_init_at((mu), __FILE__, __LINE__)
#define rcupl_mutex_destroy(mu) rcupl_mutex_destroy_at((mu), __FILE__, __LINE__)
#define rcupl_cond_init(cv) rcupl_cond_init_at((cv), __FILE__, __LINE__)
#define rcupl_cond_destroy(cv) rcupl_cond_destroy_at((cv), __FILE__, __LINE__)
static inline void rcupl_mutex_init_at(pthread_mutex_t *mu, const char *file,
                                       int line) {
  int err = pthread_mutex_init(mu, NULL);
  if (__builtin_expect(err != 0, 0))
    rcupl_lock_failed(file, line, "pthread_mutex_init", err);
}
static inline void rcupl_mutex_destroy_at(pthread_mutex_t *mu, const char *file,
                                          int line) {
  int err = pthread_mutex_destroy(mu);
  if (__builtin_expect(err != 0, 0))
    rcupl_lock_failed(file, line, "pthread_mutex_destroy", err);
}
static inline void rcupl_cond_init_at(pthread_cond_t *cv, const char *file,
                                      int line) {
  int err = pthread_cond_init(cv, NULL);
  if (__builtin_expect(err != 0, 0))
    rcupl_lock_failed(file, line, "pthread_cond_init", err);
}
static inline void rcupl_cond_destroy_at(pthread_cond_t *cv, const char *file,
                                         int line) {
  int err = pthread_cond_destroy(cv);
  if (__builtin_expect(err != 0, 0))
    rcupl_lock_failed(file, line, "pthread_cond_destroy", err);
}

/* A condition wait of at most `ns` nanoseconds, on CLOCK_MONOTONIC (LOCK-3):
 * cv must have been initialised by rcupl_cond_init_monotonic(), never by
 * PTHREAD_COND_INITIALIZER (whose clock is CLOCK_REALTIME: a wall-clock
 * step would stretch or cut the wait). A timeout is not a failure. */
#define rcupl_cond_wait_ns(cv, mu, ns) \
  rcupl_cond_wait_ns_at((cv), (mu), (ns), __FILE__, __LINE__)
void rcupl_cond_wait_ns_at(pthread_cond_t *cv, pthread_mutex_t *mu, uint64_t ns,
                           const char *file, int line);

/* Initialises cv to time its waits on CLOCK_MONOTONIC (LOCK-3). No thread
 * may wait on cv, and a signal of cv must be made under the mutex the
 * caller holds, if cv was in use before. Dies on failure (LOCK-2). */
void rcupl_cond_init_monotonic(pthread_cond_t *cv);

#endif /* RCUPOOL_LIB_LOCK_H */
