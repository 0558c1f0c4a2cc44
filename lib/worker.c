/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The workers of rcupool's pools: the worker census that records a new
 * pool's workers (as in a task: lib/context.c, CONTEXT-1), names them and
 * binds them. Called by lib/pool.c as it creates a pool.
 *
 * Invariants kept here:
 *   WORKER-1. rcupl_worker_census() runs one task per thread of the new pool
 *       (pthreadpool hands each thread of a 1d call of `threads` items its
 *       own item first; each item waits until all have started), and every
 *       thread but the creating one records itself and takes its worker
 *       name, "rcupool-w<item>/<threads>" (lib/names.c,
 *       NAMES-2): the creating thread keeps its own. A placed pool's
 *       workers bind themselves there, each worker k (in the order they
 *       arrive) as lib/placement.c's PLACE-3 says, and read their binding
 *       back; the workers not seen bound are the pool's bind_failures.
 *       The census ORs the
 *       manager's idle flags into its own, like every pthreadpool call of
 *       the library (lib/idle.c, IDLE-2).
 *       The wait has no deadline, so every worker runs its own item, and
 *       only its own: pthreadpool_create() returns only once every worker
 *       has started and waits for commands (it waits for their check-in),
 *       so each takes its item however late the scheduler runs it, and a
 *       thread steals another's item only after its own has returned,
 *       which no item does before all have started. (With a deadline, as
 *       before issue 38, a worker taking its item more than the deadline
 *       late lost it to a thread that had finished waiting: that thread
 *       renamed and bound itself again, and the late worker was never
 *       marked, named or bound; a nested parallel call on it would then
 *       not run inline, CONTEXT-1.) The wait is a pool start's, like
 *       pthreadpool_create()'s own for its workers.
 * */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>

#include "context.h"
#include "names.h"
#include "rcupool/rcupool.h"
#include "tsan.h"
#include "worker.h"

struct rcupl_census {
  pthread_t creator;
  size_t threads;
  size_t arrived;                  /* atomic */
  const struct rcupl_cpuset *cpus; /* NULL: not placed */
  bool strict;
  rcupl_worker_bind_fn bind;
  size_t workers; /* atomic: workers seen so far (their number k) */
  size_t bound;   /* atomic: workers whose binding held */
#if defined(RCUPL_TSAN)
  char start; /* released by the creator, acquired by each task */
  char end;   /* released by each task, acquired by the creator */
#endif
};

static void rcupl_census_task(void *arg, size_t i) {
  struct rcupl_census *c = arg;
  RCUPL_TSAN_ACQUIRE(&c->start);
  if (!pthread_equal(pthread_self(), c->creator)) {
    rcupl_context_mark_worker();
    rcupl_thread_name_worker(i, c->threads);
    size_t k = __atomic_fetch_add(&c->workers, 1, __ATOMIC_RELAXED);
    if (c->cpus != NULL && c->bind(c->cpus, c->strict, k))
      __atomic_fetch_add(&c->bound, 1, __ATOMIC_RELAXED);
  }
  __atomic_fetch_add(&c->arrived, 1, __ATOMIC_ACQ_REL);
  /* Hold this thread until every thread has taken its own item, so no
   * thread takes two (WORKER-1: no deadline). */
  while (__atomic_load_n(&c->arrived, __ATOMIC_ACQUIRE) < c->threads)
    sched_yield();
  RCUPL_TSAN_RELEASE(&c->end);
}

size_t rcupl_worker_census(pthreadpool_t tp, size_t threads, uint32_t flags,
                           const struct rcupl_cpuset *cpus, bool strict,
                           rcupl_worker_bind_fn bind) {
  if (threads <= 1) return 0;
  struct rcupl_census c = {.creator = pthread_self(),
                           .threads = threads,
                           .arrived = 0,
                           .cpus = cpus,
                           .strict = strict,
                           .bind = bind};
  RCUPL_TSAN_RELEASE(&c.start);
  pthreadpool_parallelize_1d(tp, rcupl_census_task, &c, threads, flags);
  RCUPL_TSAN_ACQUIRE(&c.end);
  if (cpus == NULL) return 0;
  /* every task has returned: the counts are final */
  return threads - 1 - __atomic_load_n(&c.bound, __ATOMIC_ACQUIRE);
}
