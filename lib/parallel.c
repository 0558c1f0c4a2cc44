/*
 * Scopes and parallel dispatch.
 *
 * Invariants kept here:
 *   S1. A thread's scope stack holds pins its caller keeps pinned until the
 *       matching exit; a call on manager m uses the innermost entry whose
 *       pin belongs to m, so a scope never leaks into another manager.
 *   S2. Work dispatched here either runs on a pinned pool (scope) or inside
 *       a read-side section held for the whole call, so the pool cannot be
 *       freed while its tasks run.
 *   S3. A task dispatched here runs with task_depth > 0 on its thread; a
 *       nested rcupool_parallelize_1d() then runs inline instead of waiting
 *       on a pool whose threads may all be busy with the outer call.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

struct rp_scope_stack {
  const rcupool_pin_t *pins[RCUPOOL_SCOPE_MAX_DEPTH];
  unsigned depth;
};

static __thread struct rp_scope_stack scope;
static __thread unsigned task_depth;

bool rp_in_task(void) { return task_depth != 0; }

void rcupool_scope_enter(const rcupool_pin_t *pin) {
  if (pin == NULL || pin->pool_ == NULL) {
    rp_log(RCUPOOL_LOG_ERROR, "scope_enter: pin is NULL or empty");
    abort();
  }
  if (scope.depth == RCUPOOL_SCOPE_MAX_DEPTH) {
    rp_log(RCUPOOL_LOG_ERROR, "scope_enter: nested deeper than %d",
           RCUPOOL_SCOPE_MAX_DEPTH);
    abort();
  }
  scope.pins[scope.depth++] = pin;
}

void rcupool_scope_exit(void) {
  if (scope.depth == 0) {
    rp_log(RCUPOOL_LOG_WARN, "scope_exit: no scope entered; ignored");
    return;
  }
  scope.pins[--scope.depth] = NULL;
}

static const rcupool_pin_t *rp_scope_find(const rcupool_t *m) {
  for (unsigned i = scope.depth; i-- > 0;)
    if (scope.pins[i]->manager_ == m) return scope.pins[i];
  return NULL;
}

struct rp_dispatch {
  pthreadpool_task_1d_t task;
  void *ctx;
#if defined(RP_TSAN)
  char start; /* released by the caller, acquired by each tile */
  char end;   /* released by each tile, acquired by the caller */
#endif
};

static void rp_run_tile(void *arg, size_t start, size_t tile) {
  struct rp_dispatch *d = arg;
  RP_TSAN_ACQUIRE(&d->start);
  task_depth++;
  for (size_t i = start, end = start + tile; i < end; i++) d->task(d->ctx, i);
  task_depth--;
  RP_TSAN_RELEASE(&d->end);
}

static void rp_dispatch(pthreadpool_t tp, size_t threads,
                        pthreadpool_task_1d_t task, void *ctx, size_t range,
                        uint32_t flags) {
  struct rp_dispatch d = {.task = task, .ctx = ctx};
  /* Tiles of several items amortise the per-tile bookkeeping (ours and
   * pthreadpool's); four tiles a thread leave room for work stealing. */
  size_t tile = range / (threads * 4);
  if (tile == 0) tile = 1;
  RP_TSAN_RELEASE(&d.start);
  pthreadpool_parallelize_1d_tile_1d(tp, rp_run_tile, &d, range, tile, flags);
  RP_TSAN_ACQUIRE(&d.end);
}

int rcupool_parallelize_1d(rcupool_t *m, pthreadpool_task_1d_t task, void *ctx,
                           size_t range, uint32_t flags) {
  if (m == NULL || task == NULL) return -EINVAL;
  if (range == 0) return 0;
  if (task_depth != 0) {
    for (size_t i = 0; i < range; i++) task(ctx, i);
    return 0;
  }
  const rcupool_pin_t *pin = rp_scope_find(m);
  if (pin != NULL) {
    if (pin->pool_ == NULL) {
      /* S1 broken by the caller: the pin was released inside its scope. */
      rp_log(RCUPOOL_LOG_ERROR,
             "parallelize: the pin of this thread's scope was unpinned "
             "before the scope was left");
      abort();
    }
    if (((const struct rp_pool *)pin->pool_)->fork_orphan) {
      /* Pinned before fork(): its workers are gone in this process. */
      for (size_t i = 0; i < range; i++) task(ctx, i);
      return 0;
    }
    rp_dispatch(pin->threadpool_, pin->threads_, task, ctx, range, flags);
    return 0;
  }
  rp_read_lock();
  struct rp_pool *p = __atomic_load_n(&m->current, __ATOMIC_ACQUIRE);
  rp_dispatch(p->tp, p->threads, task, ctx, range, flags);
  rp_read_unlock();
  return 0;
}
