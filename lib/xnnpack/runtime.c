/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An XNNPACK runtime on a pinned pool.
 *
 * Invariants kept here:
 *   RUNTIME-1. While rt->xnn exists, rt->pin holds the pool it was created
 *       with: the pin is taken before xnn_create_runtime_v2() and released
 *       only after xnn_delete_runtime() returned (destroy, and refresh for the
 *       old pair). A reset can therefore never free the pool under the
 *       runtime; that is the whole point of this file.
 *   RUNTIME-2. rcupool_pin_pthreadpool(&rt->pin) is the pthreadpool_t handed
 *       to XNNPACK, so every partition of rt->xnn and every
 *       rcupool_parallelize_1d() made inside rt's scope run on the same pool.
 *   RUNTIME-3. Setup and invoke run inside rt's scope (entered and left in the
 *       same call), so no scope outlives the call or the pin.
 *   RUNTIME-4. Refresh is all or nothing: the new pin and runtime are made
 *       first; only when both exist is the old pair released. On failure rt is
 *       as it was, still usable on its old pool.
 *   RUNTIME-5. A sized runtime (rcupool_xnn_runtime_create_sized) holds a
 *       sized pin for its whole life and never changes pool: it is never
 *       stale, and refresh leaves it as it is. Its width is the one asked for,
 *       whatever resets of the current pool happen.
 *   RUNTIME-6. rt->probe_tp is the pthreadpool_t of rt's pool, the one
 *       rcupool_xnn_runtime_is_stale() compares with the current pool's
 *       (rcupool_read_lock_current(), inside a read-side section), and the
 *       only field of rt it reads besides the immutable manager and sized:
 *       is_stale may run on any thread, refresh overwrites rt->pin. It is
 *       stored atomically, by refresh with the new pool's before the old
 *       pin is released, so it always names a pool rt holds pinned (never a
 *       freed pool's, whose address a new pool could take). A pool keeps
 *       its pthreadpool_t for its whole life, so equal pthreadpool_ts are
 *       the same pool.
 *   RUNTIME-7. Every xnn_create_runtime_v2() here (create and refresh) gets
 *       the caller's flags plus XNN_FLAG_YIELD_WORKERS when the manager's
 *       idle policy is RCUPOOL_IDLE_YIELD at that moment (lib/idle.c,
 *       IDLE-2); rt->flags keeps the caller's flags alone, so a refresh
 *       follows the policy of its own time. XNNPACK then yields after the
 *       runtime's last operator only; its workers still spin between
 *       operators of one invoke. (XNNPACK records the flag on the
 *       subgraph's last node, so a later runtime of the same subgraph
 *       yields whatever the policy then.)
 *   RUNTIME-8. The backend reads a pin only through the public getters of
 *       <rcupool/pin.h> (rcupool_pin_pthreadpool(), _threads(),
 *       _generation()): none of rcupool_pin_t's private fields, so it builds
 *       against the public headers alone, as librcupool_xnnpack.so.0 links
 *       librcupool.so.0.
 *
 * ThreadSanitizer: XNNPACK and pthreadpool are not instrumented. The
 * partitions of a fully-connected runtime touch the caller's buffers only
 * from uninstrumented code, so TSAN records no access on the workers and
 * needs no edge here; the core library annotates its own dispatch
 * (lib/parallel.c) for the kernels a method runs in the same scope.
 */
#include <errno.h>
#include <stdlib.h>

#include "lib/xnnpack/backend.h"

struct rcupool_xnn_runtime {
  rcupool_t *manager;
  rcupool_pin_t pin; /* the pool xnn was created on (RUNTIME-1, RUNTIME-2) */
  xnn_runtime_t xnn;
  uint32_t flags;         /* xnn_create_runtime_v2 flags, reused by refresh */
  bool sized;             /* created on a sized pin (RUNTIME-5) */
  pthreadpool_t probe_tp; /* atomic: rt->pin's pool, for is_stale (RUNTIME-6) */
};

static int rcupl_xnn_init(void) {
  enum xnn_status st = xnn_initialize(NULL);
  return st == xnn_status_success ? 0
                                  : rcupl_xnn_fail("xnn_initialize", st, NULL);
}

/* Pins m's current pool (sized: a pool of `threads`) into *pin and creates
 * a runtime on it. On failure nothing is left pinned. */
static int rcupl_xnn_plan(rcupool_t *m, bool sized, size_t threads,
                          xnn_subgraph_t sg, uint32_t flags, rcupool_pin_t *pin,
                          xnn_runtime_t *out) {
  int err = sized ? rcupool_pin_sized(m, threads, pin) : rcupool_pin(m, pin);
  if (err != 0) return err;
  if (rcupool_idle(m) == RCUPOOL_IDLE_YIELD) flags |= XNN_FLAG_YIELD_WORKERS;
  xnn_runtime_t xnn = NULL;
  enum xnn_status st =
      xnn_create_runtime_v2(sg, rcupool_pin_pthreadpool(pin), flags, &xnn);
  if (st != xnn_status_success) {
    rcupool_unpin(pin);
    return rcupl_xnn_fail("xnn_create_runtime_v2", st, NULL);
  }
  *out = xnn;
  return 0;
}

/* Deletes xnn, then releases pin (RUNTIME-1). */
static void rcupl_xnn_release(xnn_runtime_t xnn, rcupool_pin_t *pin) {
  if (xnn != NULL) {
    enum xnn_status st = xnn_delete_runtime(xnn);
    if (st != xnn_status_success)
      (void)rcupl_xnn_fail("xnn_delete_runtime", st, xnn);
  }
  rcupool_unpin(pin);
}

/* "thread" or "threads", for a count of n in a message. */
static const char *rcupl_xnn_threads(size_t n) {
  return n == 1 ? "thread" : "threads";
}

static int rcupl_xnn_create(rcupool_t *m, bool sized, size_t threads,
                            xnn_subgraph_t sg, uint32_t xnn_flags,
                            rcupool_xnn_runtime_t **out) {
  if (m == NULL || sg == NULL || out == NULL) return -EINVAL;
  if (sized && threads > RCUPOOL_MAX_THREADS) {
    rcupool_log(RCUPOOL_LOG_ERROR,
                "xnnpack: runtime_create_sized: %zu %s is above the "
                "maximum of %d %s",
                threads, rcupl_xnn_threads(threads), RCUPOOL_MAX_THREADS,
                rcupl_xnn_threads(RCUPOOL_MAX_THREADS));
    return -EINVAL;
  }
  int err = rcupl_xnn_init();
  if (err != 0) return err;
  struct rcupool_xnn_runtime *rt = calloc(1, sizeof *rt);
  if (rt == NULL) {
    rcupool_log(RCUPOOL_LOG_ERROR, "xnnpack: runtime_create: out of memory");
    return -ENOMEM;
  }
  err = rcupl_xnn_plan(m, sized, threads, sg, xnn_flags, &rt->pin, &rt->xnn);
  if (err != 0) {
    free(rt);
    return err;
  }
  rt->manager = m;
  __atomic_store_n(&rt->probe_tp, rcupool_pin_pthreadpool(&rt->pin),
                   __ATOMIC_RELEASE);
  rt->flags = xnn_flags;
  rt->sized = sized;
  rcupool_log(RCUPOOL_LOG_DEBUG,
              "xnnpack: runtime %p created on a %spool of %zu %s "
              "(generation %llu)",
              (void *)rt, sized ? "sized " : "", rcupool_pin_threads(&rt->pin),
              rcupl_xnn_threads(rcupool_pin_threads(&rt->pin)),
              (unsigned long long)rcupool_pin_generation(&rt->pin));
  *out = rt;
  return 0;
}

int rcupool_xnn_runtime_create(rcupool_t *m, xnn_subgraph_t sg,
                               uint32_t xnn_flags,
                               rcupool_xnn_runtime_t **out) {
  return rcupl_xnn_create(m, false, 0, sg, xnn_flags, out);
}

int rcupool_xnn_runtime_create_sized(rcupool_t *m, size_t threads,
                                     xnn_subgraph_t sg, uint32_t xnn_flags,
                                     rcupool_xnn_runtime_t **out) {
  return rcupl_xnn_create(m, true, threads, sg, xnn_flags, out);
}

int rcupool_xnn_runtime_setup(rcupool_xnn_runtime_t *rt, size_t n,
                              const struct xnn_external_value *values) {
  if (rt == NULL || (values == NULL && n > 0)) return -EINVAL;
  rcupool_scope_enter(&rt->pin);
  enum xnn_status st = xnn_setup_runtime(rt->xnn, n, values);
  rcupool_scope_exit();
  return st == xnn_status_success ? 0
                                  : rcupl_xnn_fail("xnn_setup_runtime", st, rt);
}

int rcupool_xnn_runtime_invoke(rcupool_xnn_runtime_t *rt) {
  if (rt == NULL) return -EINVAL;
  rcupool_scope_enter(&rt->pin);
  enum xnn_status st = xnn_invoke_runtime(rt->xnn);
  rcupool_scope_exit();
  return st == xnn_status_success
             ? 0
             : rcupl_xnn_fail("xnn_invoke_runtime", st, rt);
}

bool rcupool_xnn_runtime_is_stale(const rcupool_xnn_runtime_t *rt) {
  if (rt == NULL || rt->sized) return false;
  /* rt's pool, never rt->pin itself (RUNTIME-6). */
  pthreadpool_t mine = __atomic_load_n(&rt->probe_tp, __ATOMIC_ACQUIRE);
  bool current = rcupool_read_lock_current(rt->manager) == mine;
  rcupool_read_unlock();
  return !current;
}

int rcupool_xnn_runtime_refresh(rcupool_xnn_runtime_t *rt, xnn_subgraph_t sg) {
  if (rt == NULL || sg == NULL) return -EINVAL;
  if (!rcupool_xnn_runtime_is_stale(rt)) return 0;
  rcupool_pin_t pin = {0};
  xnn_runtime_t xnn = NULL;
  int err = rcupl_xnn_plan(rt->manager, false, 0, sg, rt->flags, &pin, &xnn);
  if (err != 0) {
    rcupool_log(RCUPOOL_LOG_ERROR,
                "xnnpack: runtime %p: refresh failed (%d); it stays on its "
                "pool of %zu %s",
                (void *)rt, err, rcupool_pin_threads(&rt->pin),
                rcupl_xnn_threads(rcupool_pin_threads(&rt->pin)));
    return err;
  }
  rcupool_log(RCUPOOL_LOG_DEBUG,
              "xnnpack: runtime %p refreshed from a pool of %zu %s "
              "(generation %llu) to one of %zu %s (generation %llu)",
              (void *)rt, rcupool_pin_threads(&rt->pin),
              rcupl_xnn_threads(rcupool_pin_threads(&rt->pin)),
              (unsigned long long)rcupool_pin_generation(&rt->pin),
              rcupool_pin_threads(&pin),
              rcupl_xnn_threads(rcupool_pin_threads(&pin)),
              (unsigned long long)rcupool_pin_generation(&pin));
  __atomic_store_n(&rt->probe_tp, rcupool_pin_pthreadpool(&pin),
                   __ATOMIC_RELEASE);
  rcupl_xnn_release(rt->xnn, &rt->pin);
  rt->xnn = xnn;
  rt->pin = pin;
  return 0;
}

const rcupool_pin_t *rcupool_xnn_runtime_get_pin(
    const rcupool_xnn_runtime_t *rt) {
  return rt != NULL ? &rt->pin : NULL;
}

void rcupool_xnn_runtime_destroy(rcupool_xnn_runtime_t *rt) {
  if (rt == NULL) return;
  rcupl_xnn_release(rt->xnn, &rt->pin);
  free(rt);
}
