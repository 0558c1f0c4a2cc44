/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Scopes and parallel dispatch.
 *
 * Invariants kept here:
 *   PARALLEL-1. A thread's scope stack holds pins its caller keeps pinned
 *       until the matching exit; a call on manager m uses the innermost entry
 *       whose pin belonged to m when the scope was entered (the entry keeps
 *       that manager), so a scope never leaks into another manager, and a
 *       pin unpinned, moved from or zeroed inside its scope is still found
 *       by its scope's calls, which abort (PARALLEL-3).
 *   PARALLEL-2. A dispatch holds its own dispatch reference on the pool it
 *       runs on (lib/pool.h) from before the first task starts until the
 *       last one returned, and no read-side section while tasks run: outside a
 *       scope the reference is taken inside a short section on the current
 *       pool (refs >= 1 there: its current or retire reference) and the
 *       section ends before dispatch; inside a scope it is taken on the scope
 *       pin's pool, which the pin holds. So a task may fork (no section of the
 *       dispatching thread holds up a grace period), and a task may unpin the
 *       pin of the scope it was dispatched from: the pool then lives until the
 *       dispatch drops its reference, and that put, if last, hands the pool to
 *       the reclaim thread (single freer). Dispatch references never count as
 *       pins (stats, destroy).
 *   PARALLEL-3. Inside a scope, the pin is read once, before dispatch, into
 *       a local (its pool): no field of the pin is read after a task may have
 *       unpinned it. A later call in the same scope finds the
 *       pin empty and aborts with a message (PARALLEL-1 broken by the
 *       caller) that says which: unpinned (the manager field left) or
 *       moved from / zeroed (every field cleared).
 *   PARALLEL-4. A thread holds at most one dispatch reference (nested calls
 *       run inline, CONTEXT-1), recorded in `dispatching`. The fork child
 *       handler (lib/fork.c, FORK-4) drops the dispatch references of every
 *       other thread of the parent, which do not exist in the child.
 *   PARALLEL-5. Every dispatch ORs the manager's idle flags into the
 *       caller's (lib/idle.c, IDLE-2).
 *   PARALLEL-6. A dispatch whose put leaves its pool one reference and
 *       that pool not current (a reset retired it during the call, and its
 *       grace period is over) may have turned it warm: it applies the
 *       warm_pools limit at once (rcupl_warm_limit_now, WARM-5), as a
 *       reset's retire does. The test reads the put's result and then
 *       m->current, comparing addresses only (p may be gone): a reset that
 *       retired p before the put either left its retire reference for the
 *       put to see (left >= 2: the retire callback's pass applies the
 *       limit, WARM-4) or its callback dropped it before the put, which
 *       then acquires that callback's release and sees the new current.
 *       The usual end of a call (its pool current) costs one load more;
 *       only a call that outlived its pool's currency takes m->lock.
 */
#include <errno.h>

#include "context.h"
#include "die.h"
#include "follow.h"
#include "idle.h"
#include "log_deliver.h"
#include "log_internal.h"
#include "manager_state.h"
#include "parallel.h"
#include "pool.h"
#include "rcupool/rcupool.h"
#include "read_internal.h"
#include "reclaim.h"
#include "reset.h"
#include "tsan.h"
#include "warm.h"

/* PARALLEL-1: an entry's manager is the pin's at scope_enter, so the
 * scope is found by it even after its pin was emptied. */
struct rcupl_scope_stack {
  struct rcupl_scope_entry {
    const rcupool_pin_t *pin;
    const rcupool_t *manager;
  } at[RCUPOOL_SCOPE_MAX_DEPTH];
  unsigned depth;
};

/* A width guard enters and leaves a scope per call: initial-exec, one
 * %fs-relative access through a GOT slot instead of a TLS descriptor call.
 * Its 264 bytes join liburcu-bp's 80 in the static TLS a dlopen'ed
 * librcupool.so.0 needs from glibc's surplus (lib/urcu_flavor.h; the
 * dlopen tests of tests/shared and tests/python load it so). */
static __thread struct rcupl_scope_stack scope
    __attribute__((tls_model("initial-exec")));
static __thread const struct rcupl_pool *dispatching;

const struct rcupl_pool *rcupl_parallel_dispatching(void) {
  return dispatching;
}

void rcupool_scope_enter(const rcupool_pin_t *pin) {
  if (pin == NULL || pin->pool_ == NULL)
    rcupl_die("scope_enter: pin is NULL or empty");
  if (scope.depth == RCUPOOL_SCOPE_MAX_DEPTH)
    rcupl_die("scope_enter: nested deeper than %d", RCUPOOL_SCOPE_MAX_DEPTH);
  scope.at[scope.depth].pin = pin;
  scope.at[scope.depth++].manager = pin->manager_;
}

void rcupool_scope_exit(void) {
  if (scope.depth == 0) {
    rcupl_log(RCUPOOL_LOG_WARN, "scope_exit: no scope entered; ignored");
    rcupl_log_deliver();
    return;
  }
  scope.at[--scope.depth].pin = NULL;
}

static const rcupool_pin_t *rcupl_scope_find(const rcupool_t *m) {
  for (unsigned i = scope.depth; i-- > 0;)
    if (scope.at[i].manager == m) return scope.at[i].pin;
  return NULL;
}

struct rcupl_dispatch {
  pthreadpool_task_1d_t task;
  void *ctx;
#if defined(RCUPL_TSAN)
  char start; /* released by the caller, acquired by each tile */
  char end;   /* released by each tile, acquired by the caller */
#endif
};

static void rcupl_run_tile(void *arg, size_t start, size_t tile) {
  struct rcupl_dispatch *d = arg;
  RCUPL_TSAN_ACQUIRE(&d->start);
  rcupl_task_run(d->task, d->ctx, start, start + tile);
  RCUPL_TSAN_RELEASE(&d->end);
}

static void rcupl_dispatch(pthreadpool_t tp, size_t threads,
                           pthreadpool_task_1d_t task, void *ctx, size_t range,
                           uint32_t flags) {
  struct rcupl_dispatch d = {.task = task, .ctx = ctx};
  /* Tiles of several items amortise the per-tile bookkeeping (ours and
   * pthreadpool's); four tiles a thread leave room for work stealing. */
  size_t tile = range / (threads * 4);
  if (tile == 0) tile = 1;
  RCUPL_TSAN_RELEASE(&d.start);
  pthreadpool_parallelize_1d_tile_1d(tp, rcupl_run_tile, &d, range, tile,
                                     flags);
  RCUPL_TSAN_ACQUIRE(&d.end);
}

int rcupool_parallelize_1d(rcupool_t *m, pthreadpool_task_1d_t task, void *ctx,
                           size_t range, uint32_t flags) {
  if (m == NULL || task == NULL) return -EINVAL;
  if (range == 0) return 0;
  if (rcupl_in_task()) {
    rcupl_task_run(task, ctx, 0, range);
    return 0;
  }
  const rcupool_pin_t *pin = rcupl_scope_find(m);
  struct rcupl_pool *p;
  if (pin != NULL) {
    p = rcupl_pin_pool(pin); /* PARALLEL-3: the only read of the pin */
    if (p == NULL && pin->manager_ == NULL) /* PARALLEL-1 broken */
      rcupl_die("parallelize: the pin of this thread's scope was moved from "
                "before the scope was left (a C++ rcupool::Pin moved, or the "
                "pin zeroed)");
    if (p == NULL) /* PARALLEL-1 broken by the caller */
      rcupl_die("parallelize: the pin of this thread's scope was unpinned "
                "before the scope was left");
    rcupl_pool_get_dispatch(p); /* the pin holds p (PARALLEL-2) */
  } else {
    rcupl_fork_settle(m);
    rcupl_read_lock();
    p = __atomic_load_n(&m->current, __ATOMIC_ACQUIRE);
    rcupl_pool_get_dispatch(p); /* current: refs >= 1 here (PARALLEL-2) */
    rcupl_read_unlock();
  }
  dispatching = p;
  /* Pinned before fork(), or a fork child that could not settle: the
   * pool's workers are gone in this process. */
  if (p->fork_orphan)
    rcupl_task_run(task, ctx, 0, range);
  else
    rcupl_dispatch(p->tp, p->threads, task, ctx, range,
                   flags | rcupl_idle_flags_of(m));
  dispatching = NULL;
  const size_t left = rcupl_pool_put_dispatch(p);
  if (left == 0)
    rcupl_reclaim_free_later(p, "last dispatch ended");
  else if (left == 1 && __atomic_load_n(&m->current, __ATOMIC_ACQUIRE) != p)
    rcupl_warm_limit_now(m); /* PARALLEL-6: p may have turned warm */
  if (pin == NULL) rcupl_follow_maybe(m); /* FOLLOW-3, after the work */
  rcupl_log_deliver(); /* what the tasks or a fork child's settle logged */
  return 0;
}

/* testing.h's benchmark hook: the check this file's dispatch makes after
 * its work (FOLLOW-3), through one call. */
void rcupl_follow_maybe_for_bench(rcupool_t *m) { rcupl_follow_maybe(m); }
