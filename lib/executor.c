/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The manager's executors (include/rcupool/executor.h): one set of threads
 * (lib/exec_set.c) per manager and placement, on which every pool rcupool
 * makes of more than one thread is a pthreadpool_create_v2() view, and
 * which rcupool_executor() hands to other libraries (placement none).
 * Built only against a pthreadpool with the executor API; with any other
 * pools own their threads (lib/pool.c) and rcupool_executor() answers
 * -ENOTSUP.
 *
 * Invariants kept here:
 *   EXECUTOR-1. One set per manager, placement and CPU set, found through
 *       `sets` under sets_lock; a set lives until its manager is destroyed
 *       (rcupl_executor_forget(), once no pool of the manager is left).
 *       A fork child has none of the sets' threads: fork.c's child handler
 *       (FORK-4) empties every set before any pool of the child is made,
 *       and the child's sets grow again on demand; the child's inherited
 *       views are orphans whose pthreadpools are kept, never destroyed
 *       (POOL-5), as pools that owned their threads.
 *   EXECUTOR-2. A view's width is fixed when it is made: it is counted on
 *       the set and the set grown to width - 1 threads first, so pthreadpool_create_v2(), which takes
 *       min(width, num_threads() + 1), gets the width asked, and the view
 *       is counted on the set until pool.c's stop has destroyed it: the
 *       set keeps its widest live view's threads (lib/exec_set.c,
 *       EXEC_SET-4), so a view never outgrows it. Threads of a set that
 *       no call is using sleep (EXEC_SET-3).
 *   EXECUTOR-3. A view has an executor context of its own, freed with it:
 *       its destroy (on the reclaim thread, once no call of it can run)
 *       marks it done, runs its tasks still queued on the set itself, and
 *       only then calls pthreadpool_destroy(), which so never waits for a
 *       thread of the set to come free (EXEC_SET-6). Other libraries'
 *       pools share the set's `foreign` context (EXEC_SET-7), which
 *       rcupool_executor() hands out; rcupool_trim() lets their kept
 *       threads go (rcupl_executor_let_go()), and fork's prepare takes
 *       sets_lock and every set's queue lock as leaves (EXEC_SET-8).
 *   EXECUTOR-4. sets_lock is a leaf: nothing is waited for while it is
 *       held, a thread's join included. A set thread that stops runs
 *       liburcu-bp's exit handler, which takes bp's registry lock; a fork
 *       on another thread holds that lock in its prepare and then waits
 *       for sets_lock. So a trim joins set threads only after releasing
 *       sets_lock (rcupl_executor_let_go()), and rcupl_executor_forget()
 *       stops a set after unlinking it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"
#include "exec_set.h"
#include "exec_size.h"
#include "exec_thread.h"
#include "exec_types.h"
#include "executor.h"
#include "lock.h"
#include "placement.h"
#include "rcupool/rcupool.h"
#include "tsan.h"

#if RCUPL_HAVE_EXECUTOR

static pthread_mutex_t sets_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rcupl_exec_set *sets; /* EXECUTOR-1 */

/* m's set for pl and cpus (NULL: not bound), made if missing; NULL when
 * it cannot be allocated. */
static struct rcupl_exec_set *rcupl_executor_set(
    rcupool_t *m, const rcupool_placement_t *pl,
    const struct rcupl_cpuset *cpus) {
  rcupl_mutex_lock(&sets_lock);
  struct rcupl_exec_set *e = sets;
  for (; e != NULL; e = e->next) {
    if (e->m != m || !rcupl_placement_equal(&e->placement, pl) ||
        e->bind != (cpus != NULL))
      continue;
    if (cpus == NULL || memcmp(&e->cpus, cpus, sizeof(*cpus)) == 0) break;
  }
  if (e == NULL && (e = calloc(1, sizeof(*e))) != NULL) {
    rcupl_exec_set_init(e, m, pl, cpus);
    e->next = sets;
    sets = e;
  }
  rcupl_mutex_unlock(&sets_lock);
  return e;
}

int rcupl_executor_view(rcupool_t *m, size_t threads,
                        const rcupool_placement_t *pl,
                        const struct rcupl_cpuset *cpus, pthreadpool_t *tp,
                        size_t *bind_failures, void **view) {
  struct rcupl_exec_set *e = rcupl_executor_set(m, pl, cpus);
  if (e == NULL) return -ENOMEM;
  struct rcupl_exec_ctx *c = calloc(1, sizeof(*c)); /* EXEC_SET-6 */
  if (c == NULL) return -ENOMEM;
  c->set = e;
  int err = rcupl_exec_set_view_made(e, threads); /* EXECUTOR-2 */
  if (err != 0) {
    free(c);
    return err;
  }
  *tp = pthreadpool_create_v2(&e->api, c, threads);
  if (*tp == NULL) {
    rcupl_exec_set_view_gone(e, threads);
    free(c);
    return -ENOMEM;
  }
  *view = c;
  *bind_failures =
      cpus != NULL ? rcupl_exec_set_bind_failures(e, threads - 1) : 0;
  return 0;
}

void rcupl_executor_view_destroy(void *view, pthreadpool_t tp, size_t threads) {
  struct rcupl_exec_ctx *c = view;
  struct rcupl_exec_set *e = c->set;
  /* EXECUTOR-3: its calls are over; its queued tasks run here, at once. */
  pthreadpool_release_executor_threads(tp);
  rcupl_exec_set_run_queued(e, c);
  pthreadpool_destroy(tp);
  RCUPL_TSAN_ACQUIRE(c); /* every call of its executor is over (tsan.h) */
  rcupl_exec_set_view_gone(e, threads);
  free(c);
}

int rcupl_executor_none(rcupool_t *m, size_t keep,
                        struct pthreadpool_executor **executor,
                        void **context) {
  rcupool_placement_t none;
  memset(&none, 0, sizeof none);
  none.policy = RCUPOOL_PLACE_NONE;
  rcupl_placement_normalise(&none);
  struct rcupl_exec_set *e = rcupl_executor_set(m, &none, NULL);
  if (e == NULL) return -ENOMEM;
  rcupl_exec_set_keep(e, keep); /* EXEC_SET-7 */
  int err = rcupl_exec_set_grow(e, keep);
  if (err != 0) return err;
  *executor = &e->api;
  *context = &e->foreign;
  return 0;
}

void rcupl_executor_let_go(rcupool_t *m) {
  /* EXECUTOR-4: m's sets are picked under sets_lock, a few at a time, and
   * trimmed after it is released. They stay: only m's destroy frees them,
   * which no caller may run during a call on m. */
  static uint64_t rounds; /* under sets_lock */
  rcupl_mutex_lock(&sets_lock);
  const uint64_t round = ++rounds;
  for (;;) {
    struct rcupl_exec_set *batch[8];
    size_t n = 0;
    for (struct rcupl_exec_set *e = sets; e != NULL && n < 8; e = e->next)
      if (e->m == m && e->let_go_round != round) {
        e->let_go_round = round;
        batch[n++] = e;
      }
    rcupl_mutex_unlock(&sets_lock);
    if (n == 0) return;
    for (size_t i = 0; i < n; i++) rcupl_exec_set_let_go(batch[i]);
    rcupl_mutex_lock(&sets_lock);
  }
}

void rcupl_executor_fork_prepare(void) {
  rcupl_mutex_lock(&sets_lock);
  for (struct rcupl_exec_set *e = sets; e != NULL; e = e->next)
    rcupl_exec_set_fork_prepare(e);
}

void rcupl_executor_fork_parent(void) {
  for (struct rcupl_exec_set *e = sets; e != NULL; e = e->next)
    rcupl_exec_set_fork_parent(e);
  rcupl_mutex_unlock(&sets_lock);
}

void rcupl_executor_fork_child(void) {
  /* Held by this thread since prepare: released, not re-initialised, so
   * its count of locks held (LOCK-1) comes back to what it was and the
   * child's log delivers again (LOG_DELIVER-1). */
  for (struct rcupl_exec_set *e = sets; e != NULL; e = e->next)
    rcupl_exec_set_fork_child(e);
  rcupl_mutex_unlock(&sets_lock);
}

void rcupl_executor_forget(rcupool_t *m) {
  for (;;) {
    rcupl_mutex_lock(&sets_lock);
    struct rcupl_exec_set **link = &sets;
    while (*link != NULL && (*link)->m != m) link = &(*link)->next;
    struct rcupl_exec_set *e = *link;
    if (e != NULL) *link = e->next;
    rcupl_mutex_unlock(&sets_lock);
    if (e == NULL) return;
    rcupl_exec_set_stop(e);
    free(e);
  }
}

#else /* a pthreadpool without the executor API: nothing to hand out */

int rcupl_executor_view(rcupool_t *m, size_t threads,
                        const rcupool_placement_t *pl,
                        const struct rcupl_cpuset *cpus, pthreadpool_t *tp,
                        size_t *bind_failures, void **view) {
  (void)m, (void)threads, (void)pl, (void)cpus, (void)tp, (void)bind_failures;
  (void)view;
  return -ENOTSUP;
}

void rcupl_executor_view_destroy(void *view, pthreadpool_t tp, size_t threads) {
  (void)view, (void)threads;
  pthreadpool_destroy(tp);
}

void rcupl_executor_let_go(rcupool_t *m) { (void)m; }
void rcupl_executor_fork_prepare(void) {}
void rcupl_executor_fork_parent(void) {}

int rcupl_executor_none(rcupool_t *m, size_t keep,
                        struct pthreadpool_executor **executor,
                        void **context) {
  (void)m, (void)keep, (void)executor, (void)context;
  return -ENOTSUP;
}
void rcupl_executor_fork_child(void) {}

void rcupl_executor_forget(rcupool_t *m) { (void)m; }

#endif
