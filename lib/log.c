/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The log: a bounded record queue filled by the library, emptied on the
 * application's own threads.
 *
 * Invariants:
 *   LOG-1. No user code inside the library's machinery (docs/log.md says
 *          it to users). rcupl_log() only formats a record and queues it (lq.mu is a
 *          leaf lock held for a copy, never while anything else runs): it
 *          may be called anywhere, with any rcupool lock held, on the
 *          reclaim thread, on a pool worker. The hook runs only in
 *          rcupl_log_deliver(), called at the end of a public call, and only
 *          on a thread where lib/log_deliver.c's gate holds: no rcupool lock
 *          held by the thread (rcupl_locks_held), not the reclaim thread, not
 *          a pool worker or inside a task, not inside a read-side section,
 *          not already delivering. While a hook runs, no rcupool lock is
 *          held and no fork handler waits for it.
 *   LOG-2. Nothing is silently lost. A record that finds the queue full
 *          is dropped and counted (rcupool_stats_t.log_dropped, process
 *          wide); the next delivery hands the hook a warning that says how
 *          many were lost. Without a hook (the default sink) nothing is
 *          queued: warnings and errors are written to stderr at once by
 *          the thread that logs (write(2): no user code).
 *   LOG-3. A delivery hands the hook only the records queued before it
 *          began, so a hook that logs (or calls rcupool functions that
 *          log) ends; its records wait for the next delivery.
 *   LOG-4. rcupool_set_log() returns once no call of a previous hook is
 *          running on another thread: the previous ctx may then be freed.
 *          Called from inside a hook it does not wait at all (two hooks
 *          installing sinks at once would wait for each other); the caller
 *          then knows other threads' calls may still run. Calls in flight
 *          are listed under lq.mu with the hook generation (`epoch`) they
 *          started under.
 *   LOG-5. The rule for errors. A public call that returns a negative
 *          errno logs why, once, where it decides to return it, before it
 *          returns: at error level, except -EBUSY (a refusal that changes
 *          nothing and that the caller resolves by letting go of a pin),
 *          at warning level. The one exception is -EINVAL for a NULL
 *          argument, which is not logged (the return says it all, and the
 *          NULL checks of the fast paths stay one branch). Calls that
 *          cannot return an error but ignore a misuse (unpin of an empty
 *          pin, scope exit with none entered) log it at warning level.
 *   LOG-6. The one fatal path, rcupl_die(), is lib/die.c's (DIE-1): it
 *          takes no lock and calls no hook.
 *   LOG-7. fork: prepare takes lq.mu after every lock that may be held
 *          while logging; only limits_lock and cpus_lock come after it,
 *          leaf locks held for a copy, never while logging or taking
 *          lq.mu (lib/fork.c, FORK-2 step 4). Parent and child release
 *          it right after those two. The child
 *          keeps only its own thread's calls in flight (a hook that forked
 *          returns in the child too) and wakes no one (no waiter exists).
 *          It starts with an empty queue: the records queued at the fork
 *          are the parent's, which delivers them (not counted as dropped).
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "die.h"
#include "fault.h"
#include "lock.h"
#include "log_internal.h"
#include "plural.h"
#include "rcupool/rcupool.h"

#define RCUPL_LOG_QUEUE 256 /* records; a record is about 260 bytes */

/* A hook call in flight (on the delivering thread's stack). */
struct rcupl_log_call {
  struct rcupl_log_call *next;
  uint64_t epoch;
  pthread_t thread;
};

static struct {
  pthread_mutex_t mu;
  pthread_cond_t calls_done; /* rcupool_set_log() waits for old calls */
  /* Under mu. */
  rcupool_log_record_t ring[RCUPL_LOG_QUEUE];
  uint64_t head, tail;     /* tail - head records queued */
  uint64_t dropped;        /* ever (stats) */
  uint64_t dropped_unsaid; /* not yet told to a hook */
  rcupool_log_fn fn;       /* NULL: the default sink (or held) */
  void *ctx;
  bool held;      /* rcupool_log_hold(): queue for log_take */
  uint64_t epoch; /* bumped by every change of sink */
  struct rcupl_log_call *calls;
  /* Atomic, read without mu. */
  int min_level;
  int stderr_level; /* the default sink writes records from it up */
} lq = {.mu = PTHREAD_MUTEX_INITIALIZER,
        .calls_done = PTHREAD_COND_INITIALIZER,
        .stderr_level = RCUPOOL_LOG_WARN};

static __thread int delivering;

/* Records queued (plus a pending "dropped" notice), written under lq.mu,
 * read without it by rcupl_log_deliver()'s one-load check (log_deliver.h). */
size_t rcupl_log_pending;

static void rcupl_log_pending_update_locked(void) {
  size_t n = (size_t)(lq.tail - lq.head) + (lq.dropped_unsaid != 0 ? 1 : 0);
  __atomic_store_n(&rcupl_log_pending, n, __ATOMIC_RELAXED);
}

static const char *const level_names[] = {"debug", "info", "warning", "error"};

static void rcupl_log_write_stderr(rcupool_log_level_t level,
                                   const char *text) {
  char line[RCUPOOL_LOG_MESSAGE_MAX + 32];
  int n = snprintf(line, sizeof line, "rcupool: %s: %s\n", level_names[level],
                   text);
  if (n < 0) return;
  rcupl_write_stderr(line,
                     (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

void rcupl_vlog(rcupool_log_level_t level, const char *fmt, va_list ap) {
  if ((int)level < __atomic_load_n(&lq.min_level, __ATOMIC_RELAXED)) return;
  char text[RCUPOOL_LOG_MESSAGE_MAX];
  vsnprintf(text, sizeof text, fmt, ap);
  rcupl_mutex_lock(&lq.mu);
  rcupl_hold_point(RCUPL_HOLD_LOG_QUEUE);
  if (lq.fn == NULL && !lq.held) {
    rcupl_mutex_unlock(&lq.mu);
    if ((int)level >= __atomic_load_n(&lq.stderr_level, __ATOMIC_RELAXED))
      rcupl_log_write_stderr(level, text);
    return;
  }
  if (lq.tail - lq.head == RCUPL_LOG_QUEUE) {
    lq.dropped++;
    lq.dropped_unsaid++;
  } else {
    rcupool_log_record_t *r = &lq.ring[lq.tail % RCUPL_LOG_QUEUE];
    r->level = level;
    memcpy(r->message, text, sizeof text);
    lq.tail++;
  }
  rcupl_log_pending_update_locked();
  rcupl_mutex_unlock(&lq.mu);
}

void rcupl_log(rcupool_log_level_t level, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  rcupl_vlog(level, fmt, ap);
  va_end(ap);
}

/* Pops the oldest record into *out (under lq.mu). A pending count of
 * dropped records comes first, as a warning of its own. */
enum { RCUPL_POP_NONE = 0, RCUPL_POP_RECORD = 1, RCUPL_POP_NOTICE = 2 };
static int rcupl_log_pop_locked(rcupool_log_record_t *out) {
  if (lq.dropped_unsaid != 0) {
    out->level = RCUPOOL_LOG_WARN;
    snprintf(out->message, sizeof out->message,
             "log: %llu %s dropped (the queue of %d %s was full)",
             (unsigned long long)lq.dropped_unsaid,
             rcupl_plural(lq.dropped_unsaid, "record", "records"),
             RCUPL_LOG_QUEUE,
             rcupl_plural(RCUPL_LOG_QUEUE, "record", "records"));
    lq.dropped_unsaid = 0;
    rcupl_log_pending_update_locked();
    return RCUPL_POP_NOTICE;
  }
  if (lq.head == lq.tail) return RCUPL_POP_NONE;
  *out = lq.ring[lq.head % RCUPL_LOG_QUEUE];
  lq.head++;
  rcupl_log_pending_update_locked();
  return RCUPL_POP_RECORD;
}

void rcupl_log_deliver_now(void) {
  if (delivering != 0) return;
  delivering = 1;
  rcupl_mutex_lock(&lq.mu);
  /* LOG-3: the records queued now, and at most one "dropped" notice. */
  uint64_t end = lq.tail;
  bool told_dropped = false;
  rcupool_log_record_t rec;
  int got;
  while (lq.fn != NULL && !lq.held &&
         (lq.head < end || (lq.dropped_unsaid != 0 && !told_dropped)) &&
         (got = rcupl_log_pop_locked(&rec)) != RCUPL_POP_NONE) {
    if (got == RCUPL_POP_NOTICE) told_dropped = true;

    struct rcupl_log_call call = {lq.calls, lq.epoch, pthread_self()};
    lq.calls = &call;
    rcupool_log_fn fn = lq.fn;
    void *ctx = lq.ctx;
    rcupl_mutex_unlock(&lq.mu);
    fn(ctx, rec.level, rec.message); /* LOG-1: no rcupool lock held */
    rcupl_mutex_lock(&lq.mu);
    struct rcupl_log_call **pp = &lq.calls;
    while (*pp != &call) pp = &(*pp)->next;
    *pp = call.next;
    rcupl_cond_broadcast(&lq.calls_done);
  }
  rcupl_mutex_unlock(&lq.mu);
  delivering = 0;
}

/* Calls of hooks installed before `epoch` still running on other threads. */
static bool rcupl_log_old_calls_locked(uint64_t epoch) {
  pthread_t self = pthread_self();
  for (struct rcupl_log_call *c = lq.calls; c != NULL; c = c->next)
    if (c->epoch < epoch && !pthread_equal(c->thread, self)) return true;
  return false;
}

void rcupl_log_set_sink(rcupool_log_fn fn, void *ctx, bool held) {
  rcupl_mutex_lock(&lq.mu);
  lq.fn = fn;
  lq.ctx = ctx;
  lq.held = held;
  uint64_t epoch = ++lq.epoch;
  /* LOG-4. From inside a hook it does not wait: two hooks that each
   * install a sink would wait for each other. */
  while (delivering == 0 && rcupl_log_old_calls_locked(epoch))
    rcupl_cond_wait(&lq.calls_done, &lq.mu);
  rcupl_mutex_unlock(&lq.mu);
  if (fn == NULL && !held) {
    /* The default sink queues nothing: what waits goes to stderr now,
     * written with lq.mu released (LOG-1). */
    rcupool_log_record_t rec;
    for (;;) {
      rcupl_mutex_lock(&lq.mu);
      bool got = lq.fn == NULL && !lq.held &&
                 rcupl_log_pop_locked(&rec) != RCUPL_POP_NONE;
      rcupl_mutex_unlock(&lq.mu);
      if (!got) break;
      if ((int)rec.level >= __atomic_load_n(&lq.stderr_level, __ATOMIC_RELAXED))
        rcupl_log_write_stderr(rec.level, rec.message);
    }
  }
}

void rcupool_log_hold(void) { rcupl_log_set_sink(NULL, NULL, true); }

int rcupool_log_take(rcupool_log_record_t *out) {
  if (out == NULL) return -EINVAL;
  rcupl_mutex_lock(&lq.mu);
  int got = rcupl_log_pop_locked(out);
  rcupl_mutex_unlock(&lq.mu);
  return got != RCUPL_POP_NONE ? 1 : 0;
}

void rcupool_set_log_level(rcupool_log_level_t min) {
  if ((unsigned)min > RCUPOOL_LOG_ERROR) min = RCUPOOL_LOG_ERROR;
  __atomic_store_n(&lq.min_level, (int)min, __ATOMIC_RELAXED);
}

void rcupl_log_set_stderr_level(rcupool_log_level_t min) {
  __atomic_store_n(&lq.stderr_level, (int)min, __ATOMIC_RELAXED);
}

uint64_t rcupl_log_dropped(void) {
  rcupl_mutex_lock(&lq.mu);
  uint64_t n = lq.dropped;
  rcupl_mutex_unlock(&lq.mu);
  return n;
}

/* --- fork (LOG-7) --------------------------------------------------------- */

void rcupl_log_fork_prepare(void) { rcupl_mutex_lock(&lq.mu); }

void rcupl_log_fork_parent(void) { rcupl_mutex_unlock(&lq.mu); }

void rcupl_log_fork_child(void) {
  pthread_t self = pthread_self();
  struct rcupl_log_call **pp = &lq.calls;
  while (*pp != NULL) {
    if (pthread_equal((*pp)->thread, self))
      pp = &(*pp)->next;
    else
      *pp = (*pp)->next;
  }
  rcupl_cond_init(&lq.calls_done);
  lq.head = lq.tail;
  lq.dropped_unsaid = 0;
  rcupl_log_pending_update_locked();
  rcupl_mutex_unlock(&lq.mu);
}
