/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A set of threads that pthreadpool_create_v2() pools borrow (exec_set.h):
 * pthreadpool hands schedule() one task per thread it recruits for a
 * parallel call, and the task returns when that thread leaves the pool
 * (after the call, at once under PTHREADPOOL_FLAG_DONT_SPIN_WORKERS).
 *
 * Invariants kept here:
 *   EXEC_SET-1. A task given to schedule() runs exactly once, on a thread of
 *       the set: either one idle thread is claimed for it (its state moved
 *       from IDLE or SLEEP to CLAIMED by one compare-and-swap, so one
 *       claimer wins) and the task handed over with the release store of
 *       GIVEN, or it is queued under e->lock and taken off under that
 *       lock. A thread goes idle only after the queue was seen empty: it
 *       stores IDLE, then reads e->queued (both sequentially consistent,
 *       and a scheduler adds to e->queued, then reads the states, fenced
 *       the same way), so a queued task always finds a thread, the idle
 *       one itself or one the scheduler claims to drain the queue. The
 *       threads stop only when no pool of the set is left (no task can
 *       come): pthreadpool_destroy(), which waits for every task it
 *       scheduled, returns.
 *   EXEC_SET-2. e->threads only grows while the set lives (under
 *       e->grow_lock, which no thread of the set takes, by a release store
 *       after the new thread has reported started), and schedule()
 *       and num_threads() read it with an acquire load: a slot below it is
 *       a started thread, and a view sized from it never counts a thread
 *       the set does not have.
 *   EXEC_SET-3. An idle thread spins a short while, then sleeps on its state
 *       (a futex): a claimer that moved SLEEP to CLAIMED wakes it after
 *       the GIVEN store; futex_wait() of SLEEP returns at once if the
 *       state moved first. The spin is short under the yield policy
 *       (lib/idle.c; EXEC_SET-5) and longer under spin: never a lock or a
 *       condition variable per task.
 *   EXEC_SET-4. The set holds the threads of the widest view alive on it
 *       (width - 1), or what rcupool_executor() promised (floor), if more:
 *       when a view goes (its pthreadpool_destroy() has returned, so none
 *       of its tasks is left) the threads above that stop: an idle one at
 *       once (joined there), a busy one when it is next idle (joined by
 *       the next growth into its slot, or the set's stop), so the trim on
 *       the reclaim thread never waits for a task, which may itself wait
 *       for the reclaim thread (a fork's prepare). Their slots leave the
 *       scan (threads drops first); a task queued meanwhile finds a
 *       thread below, which every live view's width needs. In a fork child
 *       the parent's views are orphans, never destroyed: the child's set
 *       forgets them.
 *   EXEC_SET-5. Under yield a thread spins before a sleep only if its
 *       last task found it awake or came in the same coarse-clock tick as
 *       its sleep (stamped before SLEEP is published and before GIVEN: no
 *       precise clock on a call's path). Tasks a tick or more apart: it
 *       sleeps at once, as Debian 12's workers under YIELD_WORKERS, so a
 *       borrowed thread that comes after its call is over (a view's caller
 *       does not wait for it) burns no spin. A wrong guess costs a spin or
 *       a wake, never a task: claimers take IDLE and SLEEP alike.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "clock.h"
#include "context.h"
#include "cpuset.h"
#include "die.h"
#include "exec_set.h"
#include "idle.h"
#include "limits_internal.h"
#include "lock.h"
#include "names.h"
#include "placement.h"
#include "testing.h"

#if RCUPL_HAVE_EXECUTOR

static uint64_t rcupl_exec_unspun; /* atomic: rcupl_exec_unspun_sleeps() */

enum { IDLE, SLEEP, CLAIMED, GIVEN, RUN, STARTING, STOP };

/* Pause iterations before a sleep: under the spin policy as many as
 * pthreadpool's own workers spin (after those a borrowed thread spent in
 * its view), under yield a quarter while spinning pays (EXEC_SET-5). */
#define RCUPL_EXEC_SPIN_YIELD 256u
#define RCUPL_EXEC_SPIN_SPIN 1000u

static void rcupl_exec_wait(uint32_t *word, uint32_t val) {
  syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void rcupl_exec_wake(uint32_t *word) {
  syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static inline void rcupl_exec_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

static bool rcupl_exec_slot_try_stop(struct rcupl_exec_slot *s);

static int rcupl_exec_num_threads(void *context) {
  struct rcupl_exec_set *e = context;
  return (int)__atomic_load_n(&e->threads, __ATOMIC_ACQUIRE); /* EXEC_SET-2 */
}

/* Claims an idle thread for fn(arg) (fn NULL: drain the queue); spinning
 * ones first, whose pick-up costs no wake. EXEC_SET-1. */
static bool rcupl_exec_give(struct rcupl_exec_set *e, void (*fn)(void *),
                            void *arg) {
  size_t n = __atomic_load_n(&e->threads, __ATOMIC_ACQUIRE);
  for (uint32_t want = IDLE; want <= SLEEP; want++) {
    for (size_t i = 0; i < n; i++) {
      struct rcupl_exec_slot *s = &e->slots[i];
      uint32_t x = want;
      if (__atomic_load_n(&s->state, __ATOMIC_RELAXED) != want ||
          !__atomic_compare_exchange_n(&s->state, &x, CLAIMED, false,
                                       __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
        continue;
      s->fn = fn;
      s->arg = arg;
      if (want == SLEEP) s->claimed_tick = rcupl_coarse_now_ns();
      __atomic_store_n(&s->state, GIVEN, __ATOMIC_RELEASE);
      if (want == SLEEP) rcupl_exec_wake(&s->state);
      return true;
    }
  }
  return false;
}

static void rcupl_exec_schedule(void *context, void *arg, void (*fn)(void *)) {
  struct rcupl_exec_set *e = context;
  if (rcupl_exec_give(e, fn, arg)) return;
  rcupl_mutex_lock(&e->lock);
  struct rcupl_exec_task *t = e->spare;
  if (t != NULL) {
    e->spare = t->next;
  } else if ((t = malloc(sizeof(*t))) == NULL) {
    /* pthreadpool counted this task as recruited and waits for it: there
     * is no way to refuse it. */
    rcupl_die("executor: no memory for a task of a pool's parallel call");
  }
  t->fn = fn;
  t->arg = arg;
  t->next = NULL;
  if (e->tail != NULL)
    e->tail->next = t;
  else
    e->head = t;
  e->tail = t;
  __atomic_add_fetch(&e->queued, 1, __ATOMIC_SEQ_CST);
  rcupl_mutex_unlock(&e->lock);
  __atomic_thread_fence(__ATOMIC_SEQ_CST); /* EXEC_SET-1 */
  (void)rcupl_exec_give(e, NULL, NULL);
}

static void rcupl_exec_drain(struct rcupl_exec_set *e) {
  while (__atomic_load_n(&e->queued, __ATOMIC_ACQUIRE) != 0) {
    rcupl_mutex_lock(&e->lock);
    struct rcupl_exec_task *t = e->head;
    void (*fn)(void *) = NULL;
    void *arg = NULL;
    if (t != NULL) {
      e->head = t->next;
      if (e->head == NULL) e->tail = NULL;
      __atomic_sub_fetch(&e->queued, 1, __ATOMIC_RELAXED);
      fn = t->fn;
      arg = t->arg;
      t->next = e->spare;
      e->spare = t;
    }
    rcupl_mutex_unlock(&e->lock);
    if (fn == NULL) return;
    fn(arg);
  }
}

/* Waits for a hand-over (EXEC_SET-3); returns GIVEN or STOP. */
static uint32_t rcupl_exec_idle(struct rcupl_exec_slot *s) {
  const bool yield = rcupl_idle_flags_of(s->set->m) != 0;
  const uint32_t spins = !yield         ? RCUPL_EXEC_SPIN_SPIN
                         : s->spin_next ? RCUPL_EXEC_SPIN_YIELD
                                        : 0;
  bool slept = false;
  for (uint32_t i = 0;; i++) {
    uint32_t st = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
    if (st == GIVEN) /* EXEC_SET-5 */
      s->spin_next = !slept || s->claimed_tick == s->slept_tick;
    if (st == GIVEN || st == STOP) return st;
    if (__atomic_load_n(&s->exiting, __ATOMIC_SEQ_CST) &&
        rcupl_exec_slot_try_stop(s)) /* trimmed while busy (EXEC_SET-4) */
      return STOP;
    if (st == CLAIMED || i < spins) {
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

static void *rcupl_exec_thread(void *arg) {
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
    __atomic_store_n(&s->state, IDLE, __ATOMIC_SEQ_CST);
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* EXEC_SET-1 */
    uint32_t x = IDLE;
    if (__atomic_load_n(&e->queued, __ATOMIC_SEQ_CST) != 0 &&
        __atomic_compare_exchange_n(&s->state, &x, RUN, false, __ATOMIC_SEQ_CST,
                                    __ATOMIC_RELAXED))
      continue;
    if (rcupl_exec_idle(s) == STOP) break;
    void (*fn)(void *) = s->fn;
    void *fn_arg = s->arg;
    __atomic_store_n(&s->state, RUN, __ATOMIC_RELAXED);
    if (fn != NULL) fn(fn_arg);
  }
  return NULL;
}

void rcupl_exec_set_init(struct rcupl_exec_set *e, rcupool_t *m,
                         const rcupool_placement_t *pl,
                         const struct rcupl_cpuset *cpus) {
  e->api.num_threads = rcupl_exec_num_threads;
  e->api.schedule = rcupl_exec_schedule;
  e->m = m;
  e->placement = *pl;
  e->bind = cpus != NULL;
  if (cpus != NULL) e->cpus = *cpus;
  rcupl_mutex_init(&e->grow_lock);
  rcupl_mutex_init(&e->lock);
}

int rcupl_exec_set_grow(struct rcupl_exec_set *e, size_t want) {
  if (want > RCUPOOL_MAX_THREADS) want = RCUPOOL_MAX_THREADS;
  if (__atomic_load_n(&e->threads, __ATOMIC_ACQUIRE) >= want) return 0;
  int err = 0;
  rcupl_mutex_lock(&e->grow_lock);
  size_t n = e->threads;
  /* LIMITS-2: a thread limit makes the growth -EAGAIN, never a hang. */
  if (n < want && !rcupl_limits_threads_can_start(want - n)) err = -EAGAIN;
  for (; err == 0 && n < want; n++) {
    struct rcupl_exec_slot *s = &e->slots[n];
    if (s->unjoined) { /* a thread trimmed while busy: it stops once idle */
      pthread_join(s->tid, NULL);
      s->unjoined = false;
    }
    s->set = e;
    __atomic_store_n(&s->exiting, false, __ATOMIC_RELAXED);
    s->index = (unsigned)n;
    s->bind_failed = false;
    __atomic_store_n(&s->state, STARTING, __ATOMIC_RELAXED);
    if (pthread_create(&s->tid, NULL, rcupl_exec_thread, s) != 0) {
      err = -EAGAIN;
      break;
    }
    while (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == STARTING)
      sched_yield();
    __atomic_store_n(&e->threads, n + 1, __ATOMIC_RELEASE); /* EXEC_SET-2 */
    if (n + 1 > e->high) e->high = n + 1;
  }
  rcupl_mutex_unlock(&e->grow_lock);
  return err;
}

size_t rcupl_exec_set_bind_failures(struct rcupl_exec_set *e, size_t n) {
  size_t failed = 0;
  for (size_t i = 0; i < n && i < RCUPOOL_MAX_THREADS; i++)
    if (e->slots[i].bind_failed) failed++;
  return failed;
}

/* Tries to stop slot s's thread: true if it was idle and is now told to
 * stop (and woken), or had stopped by itself (EXEC_SET-4). */
static bool rcupl_exec_slot_try_stop(struct rcupl_exec_slot *s) {
  uint32_t x = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
  if (x == STOP) return true;
  if ((x == IDLE || x == SLEEP) &&
      __atomic_compare_exchange_n(&s->state, &x, STOP, false, __ATOMIC_SEQ_CST,
                                  __ATOMIC_RELAXED)) {
    rcupl_exec_wake(&s->state);
    return true;
  }
  return false;
}

/* Lets the threads of slots [target, threads) go, under e->grow_lock. The
 * count drops first, so no claimer picks those slots any more. An idle
 * thread is stopped and joined now; a busy one (a task of another view,
 * which may wait for anything, a fork's prepare included) is marked
 * `exiting` and stops itself once idle, and is joined by the next growth
 * into its slot or by the set's stop: a trim never waits for a task
 * (EXEC_SET-4). `wait`: the set's stop, when no task can be left. */
static void rcupl_exec_set_trim_locked(struct rcupl_exec_set *e, size_t target,
                                       bool wait) {
  size_t n = e->threads;
  if (target < n) __atomic_store_n(&e->threads, target, __ATOMIC_RELEASE);
  for (size_t i = target; i < e->high; i++) {
    struct rcupl_exec_slot *s = &e->slots[i];
    if (!s->unjoined && i >= n) continue;
    __atomic_store_n(&s->exiting, true, __ATOMIC_SEQ_CST);
    while (!rcupl_exec_slot_try_stop(s) && wait) sched_yield();
    if (rcupl_exec_slot_try_stop(s) || wait) {
      pthread_join(s->tid, NULL);
      s->unjoined = false;
    } else {
      s->unjoined = true;
    }
  }
}

int rcupl_exec_set_view_made(struct rcupl_exec_set *e, size_t width) {
  /* Counted before the growth, under the lock the trim takes: from here
   * no trim goes below width - 1 (EXEC_SET-4), so the view made next
   * gets its width. */
  rcupl_mutex_lock(&e->grow_lock);
  e->views[width]++;
  rcupl_mutex_unlock(&e->grow_lock);
  int err = rcupl_exec_set_grow(e, width - 1);
  if (err != 0) rcupl_exec_set_view_gone(e, width);
  return err;
}

void rcupl_exec_set_view_gone(struct rcupl_exec_set *e, size_t width) {
  rcupl_mutex_lock(&e->grow_lock);
  if (e->views[width] > 0) e->views[width]--;
  size_t widest = RCUPOOL_MAX_THREADS;
  while (widest > 1 && e->views[widest] == 0) widest--;
  size_t target = widest - 1;
  if (target < e->floor) target = e->floor;
  rcupl_exec_set_trim_locked(e, target, false);
  rcupl_mutex_unlock(&e->grow_lock);
}

void rcupl_exec_set_keep(struct rcupl_exec_set *e, size_t threads) {
  rcupl_mutex_lock(&e->grow_lock);
  if (threads > e->floor) e->floor = threads;
  rcupl_mutex_unlock(&e->grow_lock);
}

void rcupl_exec_set_stop(struct rcupl_exec_set *e) {
  rcupl_mutex_lock(&e->grow_lock);
  rcupl_exec_set_trim_locked(e, 0, true);
  rcupl_mutex_unlock(&e->grow_lock);
  while (e->spare != NULL) {
    struct rcupl_exec_task *t = e->spare;
    e->spare = t->next;
    free(t);
  }
  rcupl_mutex_destroy(&e->lock);
  rcupl_mutex_destroy(&e->grow_lock);
}

void rcupl_exec_set_fork_child(struct rcupl_exec_set *e) {
  rcupl_mutex_init(&e->grow_lock);
  rcupl_mutex_init(&e->lock);
  while (e->head != NULL) { /* the parent's pools' tasks; nodes kept */
    struct rcupl_exec_task *t = e->head;
    e->head = t->next;
    t->next = e->spare;
    e->spare = t;
  }
  e->tail = NULL;
  e->queued = 0;
  e->threads = 0;
  memset(e->views, 0, sizeof e->views); /* the parent's views are orphans */
  for (size_t i = 0; i < e->high; i++) e->slots[i].unjoined = false;
  e->high = 0;
}

uint64_t rcupl_exec_unspun_sleeps(void) {
  return __atomic_load_n(&rcupl_exec_unspun, __ATOMIC_RELAXED);
}
#else
uint64_t rcupl_exec_unspun_sleeps(void) { return 0; }
#endif /* RCUPL_HAVE_EXECUTOR */
