/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcupool's XNNPACK backend: an XNNPACK runtime created on a pinned pool.
 *
 * An XNNPACK runtime keeps the pthreadpool_t it was created with and uses it
 * on every invoke. Created through this header, that pool is pinned for the
 * runtime's whole life: a reset of the manager cannot free it under the
 * runtime, and every rcupool_parallelize_1d() made inside the runtime's
 * scope (see rcupool_xnn_runtime_get_pin()) runs on that same pool, so one
 * method never runs on two pools. A holder learns of a reset through
 * rcupool_xnn_runtime_is_stale() and moves to the current pool, when it
 * chooses, with rcupool_xnn_runtime_refresh().
 *
 * A runtime created with rcupool_xnn_runtime_create_sized() runs on a pool
 * of the width its creator chose (rcupool_pin_sized()) instead of following
 * the current pool: it is never stale, refresh does nothing to it, and a
 * reset never moves it. To change its width, create a runtime of the new
 * width from the kept subgraph, then destroy the old one.
 *
 * Conventions are those of <rcupool/rcupool.h>: 0 or a negative errno,
 * opaque handles, destroy accepts NULL. XNNPACK status codes are mapped:
 *   xnn_status_invalid_parameter      -EINVAL
 *   xnn_status_invalid_state          -EBADFD
 *   xnn_status_unsupported_parameter  -ENOTSUP
 *   xnn_status_unsupported_hardware   -ENODEV
 *   xnn_status_out_of_memory          -ENOMEM
 *   xnn_status_uninitialized          -EPERM
 *   any other                         -EIO
 * and each failure is logged at error level through the log hook, naming the
 * XNNPACK call and its status.
 *
 * A runtime handle is not thread-safe: one thread at a time may call the
 * functions below on it (hand it over with the usual synchronisation).
 * Different runtimes may be used concurrently, on the same pool or not.
 */
#ifndef RCUPOOL_XNNPACK_H
#define RCUPOOL_XNNPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <xnnpack.h>

#include <rcupool/rcupool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An XNNPACK runtime and the pin of the pool it runs on. Opaque. */
typedef struct rcupool_xnn_runtime rcupool_xnn_runtime_t;

/*
 * Initialises XNNPACK (xnn_initialize(NULL); repeated calls are cheap), pins
 * m's current pool and creates an XNNPACK runtime from sg on it, with
 * xnn_flags passed to xnn_create_runtime_v2(), plus XNN_FLAG_YIELD_WORKERS
 * when m's idle policy is RCUPOOL_IDLE_YIELD (rcupool_set_idle()): the
 * workers then sleep after the runtime's last operator. The runtime keeps
 * the policy of its creation; a refresh takes the policy of its own time
 * (but XNNPACK records the flag on sg's last node, so every later runtime
 * of sg yields too).
 *
 * The caller keeps sg (and the static data its tensors point to): XNNPACK
 * needs it only during this call, but rcupool_xnn_runtime_refresh() needs
 * it again. Before the first invoke, call rcupool_xnn_runtime_setup().
 *
 * Returns: 0 and stores the runtime in *out, or
 *   -EINVAL  m, sg or out is NULL;
 *   -ENOMEM  allocation failed;
 *   a mapped XNNPACK error (see above).
 *   On error nothing is pinned and *out is unchanged.
 * Threads: any.
 * Blocks: no (XNNPACK plans and packs weights on the caller); the pin
 *   blocks as rcupool_pin() says.
 * Lifetime: the runtime until rcupool_xnn_runtime_destroy(); sg is used
 *   during the call only (refresh needs it again).
 */
RCUPOOL_API int rcupool_xnn_runtime_create(rcupool_t *m, xnn_subgraph_t sg,
                                           uint32_t xnn_flags,
                                           rcupool_xnn_runtime_t **out);

/*
 * As rcupool_xnn_runtime_create(), on a pool of exactly `threads` threads
 * (0: the manager's default count) taken with rcupool_pin_sized(): the
 * current pool if it has that size, else a live pool of that size, else a
 * new pool that is never made current. After the last runtime (or other
 * pin) on it is destroyed the pool stays warm for its width, as
 * rcupool_pin_sized() says, then goes on the reclaim thread. The current
 * pool is not changed.
 *
 * The runtime keeps that pool and width for its whole life: it is never
 * reported stale, whatever resets happen (rcupool_xnn_runtime_is_stale() is
 * false), and rcupool_xnn_runtime_refresh() returns 0 without doing
 * anything (its setup stays valid).
 *
 * Returns: as rcupool_xnn_runtime_create(), and -EINVAL above
 *   RCUPOOL_MAX_THREADS, -EAGAIN when a new pool's threads could not start.
 * Threads: any.
 * Blocks: while a new pool's threads start (see rcupool_pin_sized());
 *   XNNPACK plans on the caller.
 * Lifetime: as rcupool_xnn_runtime_create().
 */
RCUPOOL_API int rcupool_xnn_runtime_create_sized(rcupool_t *m, size_t threads,
                                                 xnn_subgraph_t sg,
                                                 uint32_t xnn_flags,
                                                 rcupool_xnn_runtime_t **out);

/*
 * Binds the external inputs and outputs (xnn_setup_runtime()); all of them
 * in one call. Runs inside the runtime's scope. The buffers must stay valid
 * until the next setup, refresh or destroy.
 * Returns: 0, -EINVAL (rt NULL, or values NULL with n > 0) or a mapped
 *   XNNPACK error.
 * Threads: the runtime's user.
 * Blocks: no.
 * Lifetime: values is read during the call; the buffers it names are kept
 *   until the next setup, refresh or destroy.
 */
RCUPOOL_API int rcupool_xnn_runtime_setup(
    rcupool_xnn_runtime_t *rt, size_t n,
    const struct xnn_external_value *values);

/*
 * Runs the runtime once (xnn_invoke_runtime()) inside the scope of its pin:
 * XNNPACK's partitions run on the pinned pool, whatever resets happened
 * since create or the last refresh.
 * Returns: 0, -EINVAL (rt NULL) or a mapped XNNPACK error (-EBADFD when it
 *   was not set up).
 * Threads: the runtime's user; not from inside a task of the pinned pool.
 * Blocks: until the partitions are done.
 * Lifetime: no pointers kept.
 */
RCUPOOL_API int rcupool_xnn_runtime_invoke(rcupool_xnn_runtime_t *rt);

/*
 * True when a reset has replaced the pool this runtime runs on since it was
 * pinned (the pool is no longer the manager's current pool); false when it
 * is current, including after a reset that reused this very pool, for a
 * sized runtime (always), and for NULL. A stale runtime keeps working on
 * its own pool; refresh moves it.
 * Returns: true when stale. The answer may change as soon as it returns.
 * Threads: any.
 * Blocks: no (atomic loads).
 * Lifetime: no pointers kept.
 */
RCUPOOL_API bool rcupool_xnn_runtime_is_stale(const rcupool_xnn_runtime_t *rt);

/*
 * When rt is stale: pins the current pool, creates a new XNNPACK runtime on
 * it from sg (the subgraph rt was created from, kept by the caller), then
 * deletes the old runtime and releases the old pin. The caller must call
 * rcupool_xnn_runtime_setup() again before the next invoke.
 * When rt is not stale, and always for a sized runtime: does nothing and
 * returns 0 (the setup stays valid).
 *
 * Returns: 0, -EINVAL (rt or sg NULL), -ENOMEM or a mapped XNNPACK error;
 *   on error rt is unchanged: it keeps its old pool, runtime and setup.
 * Threads: the runtime's user.
 * Blocks: no (the pin and XNNPACK's planning as for create).
 * Lifetime: the pin returned by rcupool_xnn_runtime_get_pin() before a
 *   refresh that moved rt is gone; sg is used during the call only.
 */
RCUPOOL_API int rcupool_xnn_runtime_refresh(rcupool_xnn_runtime_t *rt,
                                            xnn_subgraph_t sg);

/*
 * The pin of the pool rt runs on, for the runtime's own kernels:
 *   rcupool_scope_enter(rcupool_xnn_runtime_get_pin(rt));
 *   rcupool_xnn_runtime_invoke(rt);
 *   rcupool_parallelize_1d(m, kernel, ctx, n, 0);   // same pool
 *   rcupool_scope_exit();
 * Do not unpin it.
 * Returns: the pin; NULL for NULL.
 * Threads: any.
 * Blocks: no.
 * Lifetime: until the next refresh that moved rt, or destroy.
 */
RCUPOOL_API const rcupool_pin_t *rcupool_xnn_runtime_get_pin(
    const rcupool_xnn_runtime_t *rt);

/*
 * Deletes the XNNPACK runtime, then releases the pin as rcupool_unpin()
 * does (a pool that is not current stays warm for its width, then is freed
 * on the library's reclaim thread, never on this thread). Accepts NULL.
 * Returns: nothing.
 * Threads: the runtime's user.
 * Blocks: no (the unpin as rcupool_unpin() says).
 * Lifetime: rt and its pin are gone once this returns.
 */
RCUPOOL_API void rcupool_xnn_runtime_destroy(rcupool_xnn_runtime_t *rt);

/*
 * The negative errno for an XNNPACK status, as listed above.
 * Returns: the errno value; 0 for xnn_status_success.
 * Threads: any.
 * Blocks: no.
 * Lifetime: no pointers kept.
 */
RCUPOOL_API int rcupool_xnn_errno(enum xnn_status status);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RCUPOOL_XNNPACK_H */
