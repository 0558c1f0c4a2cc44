/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The threads of an executor's set (exec_thread.h): each one drains the
 * set's queue, waits for a hand-over (spin, then a futex sleep), runs its
 * task, and stops when a trim asked it to; the reclaim thread's run of a
 * view's queued tasks. The claims and schedule() are lib/exec_set.c's,
 * growth and trim lib/exec_size.c's.
 *
 * Invariants kept here (stated in lib/exec_set.c): EXEC_SET-1's thread
 * side (idle only after the queue was seen empty), EXEC_SET-3 (spin, then
 * sleep on the state word), EXEC_SET-4's thread side (it commits STOP by
 * its own CAS when EXIT is set, and only when idle), EXEC_SET-5 (the
 * yield policy's spin) and EXEC_SET-6 (a view's queued tasks run by the
 * reclaim thread).
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "clock.h"
#include "context.h"
#include "exec_thread.h"
#include "exec_types.h"
#include "idle.h"
#include "lock.h"
#include "names.h"
#include "placement.h"
#include "testing.h"

#if RCUPL_HAVE_EXECUTOR

static uint64_t rcupl_exec_unspun; /* atomic: rcupl_exec_unspun_sleeps() */

/* Pause iterations before a sleep: under the spin policy as many as
 * pthreadpool's own workers spin (after those a borrowed thread spent in
 * its view), under yield a quarter while spinning pays (EXEC_SET-5). */
#define RCUPL_EXEC_SPIN_YIELD 256u
#define RCUPL_EXEC_SPIN_SPIN 1000u

static void rcupl_exec_wait(uint32_t *word, uint32_t val) {
  syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

void rcupl_exec_wake(uint32_t *word) {
  syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static inline void rcupl_exec_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/* Takes the first task off e's queue (of ctx only, unless ctx is NULL);
 * false when there is none. */
static bool rcupl_exec_take(struct rcupl_exec_set *e,
                            const struct rcupl_exec_ctx *ctx,
                            void (**fn)(void *), void **arg) {
  bool took = false;
  rcupl_mutex_lock(&e->lock);
  struct rcupl_exec_task **link = &e->head, *prev = NULL;
  while (*link != NULL && ctx != NULL && (*link)->ctx != ctx) {
    prev = *link;
    link = &(*link)->next;
  }
  struct rcupl_exec_task *t = *link;
  if (t != NULL) {
    *link = t->next;
    if (e->tail == t) e->tail = prev;
    __atomic_sub_fetch(&e->queued, 1, __ATOMIC_RELAXED);
    *fn = t->fn;
    *arg = t->arg;
    t->next = e->spare;
    e->spare = t;
    took = true;
  }
  rcupl_mutex_unlock(&e->lock);
  return took;
}

static void rcupl_exec_drain(struct rcupl_exec_set *e) {
  void (*fn)(void *);
  void *arg;
  while (__atomic_load_n(&e->queued, __ATOMIC_ACQUIRE) != 0 &&
         rcupl_exec_take(e, NULL, &fn, &arg))
    fn(arg);
}

void rcupl_exec_set_run_queued(struct rcupl_exec_set *e,
                               const struct rcupl_exec_ctx *ctx) {
  void (*fn)(void *);
  void *arg;
  while (rcupl_exec_take(e, ctx, &fn, &arg)) fn(arg); /* EXEC_SET-6 */
}

/* Waits for a hand-over (EXEC_SET-3); returns GIVEN, or STOP once it has
 * committed STOP itself (asked by a trim, EXEC_SET-4). */
static uint32_t rcupl_exec_idle(struct rcupl_exec_slot *s) {
  const bool yield = rcupl_idle_flags_of(s->set->m) != 0;
  const uint32_t spins = !yield         ? RCUPL_EXEC_SPIN_SPIN
                         : s->spin_next ? RCUPL_EXEC_SPIN_YIELD
                                        : 0;
  bool slept = false;
  for (uint32_t i = 0;; i++) {
    uint32_t st = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
    uint32_t low = RCUPL_EXEC_LOW(st);
    if (low == GIVEN) { /* EXEC_SET-5 */
      s->spin_next = !slept || s->claimed_tick == s->slept_tick;
      return GIVEN;
    }
    if ((st & RCUPL_EXEC_EXIT) && (low == IDLE || low == SLEEP)) {
      if (__atomic_compare_exchange_n(&s->state, &st, STOP, false,
                                      __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
        return STOP; /* EXEC_SET-4: no claimer can take it now */
      continue;
    }
    if (low == CLAIMED || i < spins) {
      rcupl_exec_pause();
      continue;
    }
    if (st == IDLE) {
      uint64_t now = rcupl_coarse_now_ns(); /* before SLEEP (EXEC_SET-5) */
      uint32_t x = IDLE;
      if (!__atomic_compare_exchange_n(&s->state, &x, SLEEP, false,
                                       __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
        continue;
      s->slept_tick = now;
      slept = true;
      if (spins == 0)
        __atomic_add_fetch(&rcupl_exec_unspun, 1, __ATOMIC_RELAXED);
    }
    rcupl_exec_wait(&s->state, SLEEP);
  }
}

/* After a drain: IDLE, or STOP when a trim asked (EXEC_SET-4). */
static bool rcupl_exec_go_idle(struct rcupl_exec_slot *s) {
  uint32_t x = __atomic_load_n(&s->state, __ATOMIC_RELAXED);
  uint32_t next;
  do {
    next = (x & RCUPL_EXEC_EXIT) ? STOP : IDLE;
  } while (!__atomic_compare_exchange_n(&s->state, &x, next, false,
                                        __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
  return next == IDLE;
}

void *rcupl_exec_thread(void *arg) {
  struct rcupl_exec_slot *s = arg;
  struct rcupl_exec_set *e = s->set;
  rcupl_context_mark_worker(); /* CONTEXT-1 */
  rcupl_thread_name_set_worker(s->index + 1);
  if (e->bind)
    s->bind_failed =
        !rcupl_placement_bind_worker(&e->cpus, e->placement.strict, s->index);
  s->spin_next = true;
  __atomic_store_n(&s->state, RUN, __ATOMIC_RELEASE); /* started */
  for (;;) {
    rcupl_exec_drain(e);
    if (!rcupl_exec_go_idle(s)) break;
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* EXEC_SET-1 */
    uint32_t x = IDLE;
    if (__atomic_load_n(&e->queued, __ATOMIC_SEQ_CST) != 0 &&
        __atomic_compare_exchange_n(&s->state, &x, RUN, false, __ATOMIC_SEQ_CST,
                                    __ATOMIC_RELAXED))
      continue;
    if (rcupl_exec_idle(s) == STOP) break;
    void (*fn)(void *) = s->fn;
    void *fn_arg = s->arg;
    /* GIVEN -> RUN, keeping RCUPL_EXEC_EXIT (EXEC_SET-4). */
    __atomic_add_fetch(&s->state, RUN - GIVEN, __ATOMIC_RELAXED);
    if (fn != NULL) fn(fn_arg);
  }
  return NULL;
}

uint64_t rcupl_exec_unspun_sleeps(void) {
  return __atomic_load_n(&rcupl_exec_unspun, __ATOMIC_RELAXED);
}
#else
uint64_t rcupl_exec_unspun_sleeps(void) { return 0; }
#endif /* RCUPL_HAVE_EXECUTOR */
