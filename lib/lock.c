/*
 * The library's lock wrappers (internal.h, "lock.c"): the per-thread count
 * of rcupool locks held and the one death of a failed lock call.
 *
 * Invariants:
 *   LOCK-1. rp_locks_held is the number of rcupool mutexes the calling
 *           thread holds: every lock and unlock of lib/ goes through
 *           rp_mutex_lock/rp_mutex_unlock (a condition wait gives the mutex
 *           back before it returns, so it leaves the count alone). The log
 *           reads it before running a hook (log.c, LOG-1).
 *   LOCK-2. A pthread lock call that fails is a broken invariant (a lock
 *           not initialised, unlocked by a thread that does not own it):
 *           the process dies with the caller's file and line.
 */

#include "internal.h"

__thread unsigned rp_locks_held;

void rp_lock_failed(const char *file, int line, const char *what, int err) {
  rp_die_at(file, line, "%s failed (error %d)", what, err);
}
