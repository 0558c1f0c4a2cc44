/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcupool/pin.h: pins: a holder's claim on one pool.
 *
 * Part of <rcupool/rcupool.h>, which includes it: include that.
 */
#ifndef RCUPOOL_PIN_H
#define RCUPOOL_PIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pthreadpool.h>

#include <rcupool/common.h>
#include <rcupool/manager.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A holder's claim on one pool: while pinned, the pool is not freed, even
 * after resets. Storage is the caller's (no allocation on pin), so the struct
 * is declared here, but every field is private: callers must not read or
 * write them (their names and meaning may change in any release). Read a pin
 * through rcupool_pin_pthreadpool(), rcupool_pin_threads(),
 * rcupool_pin_generation() and rcupool_pin_is_current(). Zero-initialise it,
 * or leave it as rcupool_unpin() left it: both are "empty".
 *
 * The struct's tag is the typedef's name, not "rcupool_pin": in C++ a tag
 * named like the function rcupool_pin() is hidden by it (g++ -Wshadow:
 * "the function hides the constructor"). Name the type rcupool_pin_t.
 */
typedef struct rcupool_pin_t {
  /* Private to the library, like every field below. */
  void *pool_;               /* the pinned pool, NULL when empty */
  rcupool_t *manager_;       /* the manager it was pinned from */
  pthreadpool_t threadpool_; /* copied from the pool at pin time */
  size_t threads_;           /* copied from the pool at pin time */
  uint64_t generation_;      /* copied from the pool at pin time */
} rcupool_pin_t;

/*
 * Pins m's current pool into *pin and records its generation. A pin
 * belongs to its storage, not to a thread: any thread may unpin it. A pin
 * whose storage is lost without an unpin (say, a thread exits holding a
 * pin in its own stack) is leaked: its pool stays alive until the process
 * exits, and rcupool_destroy() of its manager returns -EBUSY (see the
 * docs/misuse.md).
 * Returns: 0, or -EINVAL when m or pin is NULL, or -EBUSY when *pin is
 *   already holding a pool (unpin it first; nothing is changed).
 * Threads: any.
 * Blocks: no, except the first pin (or parallel call) in a fork child,
 *   which settles the default manager: it takes the writer lock and starts
 *   the pool's threads (see docs/flavours.md, "fork"). It reads the current pool
 *   inside a read-side section, which registers a thread as
 *   rcupool_read_lock() says.
 * Lifetime: the pool stays alive until rcupool_unpin(pin); while a scope
 *   uses the pin, *pin must not move (scopes record its address).
 */
RCUPOOL_API int rcupool_pin(rcupool_t *m, rcupool_pin_t *pin);

/*
 * Pins a pool of exactly `threads` threads (0: the manager's default count,
 * as for rcupool_reset(m, 0): for a manager created with 0, computed now
 * from the calling thread's affinity mask and the cgroup CPU quota)
 * without changing the current pool: the current pool if it has that size,
 * else a live pool of that size (retired, or started by another sized pin),
 * else a new pool that is never made current. At most one pool per thread
 * count is alive (outside a grace period), current or not: a later sized
 * pin of that size shares the pool, and rcupool_reset() to that size makes
 * this very pool current (a reuse). Once its last pin is gone, a pool that
 * is not current is kept warm by its manager for warm_ms from that unpin
 * (rcupool_set_warm()), then freed on the reclaim thread.
 *
 * With rcupool_scope_enter() it is a per-call width guard: every
 * rcupool_parallelize_1d() on m and every backend call in the scope runs on
 * this pool. Unpin, scope and the getters are those of rcupool_pin().
 *
 * Generation and is_current: rcupool_pin_generation() of a sized pin is the
 * manager's generation when the pin was taken; rcupool_pin_is_current() is
 * true only while its pool is m's current pool (a sized pin of the current
 * size, or one whose pool a reset has since made current). A holder of a
 * sized pin chose its width: "not current" is its normal state and is no
 * reason to replan; it should not follow resets (a holder that wants the
 * current pool uses rcupool_pin()). Read the pool's size with
 * rcupool_pin_threads(), which never changes while pinned.
 *
 * Returns: 0, or
 *   -EINVAL  m or pin is NULL, or threads > RCUPOOL_MAX_THREADS;
 *   -EBUSY   *pin already holds a pool (nothing is changed);
 *   -ENOMEM  allocation failed;
 *   -EAGAIN  a new pool's threads could not be started.
 *   On error *pin stays empty and the manager is unchanged.
 * Threads: any, including a task running on a pool.
 * Blocks: only when no pool of that size is alive: then it starts one,
 *   serialised with resets (it may wait for a concurrent reset that is
 *   starting threads). When a pool of that size is alive it takes no lock:
 *   the current pool, or a short walk of the manager's live pools inside a
 *   read-side section; 0 on a manager created with 0 also reads the mask
 *   and a few small cgroup files.
 * Lifetime: as rcupool_pin().
 */
RCUPOOL_API int rcupool_pin_sized(rcupool_t *m, size_t threads,
                                  rcupool_pin_t *pin);

/*
 * Pins a pool of exactly `threads` threads (0: the manager's default
 * count) placed by *pl (rcupool/placement.h): a per-call width guard on
 * chosen cores, say the performance cores:
 *
 *   rcupool_placement_t big = {.policy = RCUPOOL_PLACE_PERFORMANCE};
 *   rcupool_pin_t pin = {0};
 *   if (rcupool_pin_placed(m, 2, &big, &pin) == 0) {
 *     rcupool_scope_enter(&pin);
 *     ... parallel work runs on the 2-thread pool on the big cores ...
 *     rcupool_scope_exit();
 *     rcupool_unpin(&pin);
 *   }
 *
 * A pool's identity is (width, placement): the pin takes the live pool of
 * that width and placement if there is one (current, warm, kept or
 * another pin's; when warm this is a lookup, no thread starts), else
 * starts one, which is never made current (a reset makes current only
 * pools of the manager's own placement). pl NULL, or equal to the
 * manager's placement, is rcupool_pin_sized(). Everything else is as
 * rcupool_pin_sized(): generation, is_current (normally false), unpin,
 * warm widths. The placement is resolved when a pool starts (the calling
 * thread's affinity mask, the CPUs online): see rcupool_place_t for the
 * fallbacks and the clipping.
 * Returns: as rcupool_pin_sized(), and -EINVAL also when *pl is not a
 *   placement, or is an explicit CPU set with no CPU in the calling
 *   thread's mask and online (logged; nothing changed).
 * Threads: any, including a task running on a pool.
 * Blocks: as rcupool_pin_sized(); starting a placed pool also binds each
 *   worker (one system call each, on the worker).
 * Lifetime: as rcupool_pin(); *pl is not kept.
 */
RCUPOOL_API int rcupool_pin_placed(rcupool_t *m, size_t threads,
                                   const rcupool_placement_t *pl,
                                   rcupool_pin_t *pin);

/*
 * Releases a pin and empties *pin. Unpinning an empty pin (zeroed, or
 * already released) is a no-op logged at warning level. The unpin records
 * the pool's last use: if this was its last pin and the pool is not
 * current, it turns warm, and its linger of warm_ms starts here
 * (rcupool_set_warm()). A pool its manager no longer holds (a fork child's
 * inherited pool) is handed to the reclaim thread by its last unpin. A
 * pool is never destroyed on the calling thread, so a task may unpin the
 * pool it runs on. The pool may then be destroyed as soon as the caller of that
 * parallel call holds nothing on it: rcupool_parallelize_1d() (in a scope or
 * not) holds a reference of its own on the pool it dispatches to for the
 * whole call, so a task may unpin even the pin of the scope it was
 * dispatched from (a later parallel call in that scope then aborts, see
 * rcupool_scope_enter()); but a pthreadpool_parallelize_*() made directly on
 * the pinned pthreadpool_t holds nothing, so its caller must keep a pin of
 * its own.
 * Returns: nothing.
 * Threads: any; one pin must not be unpinned by two threads at once.
 * Blocks: no (a read of CLOCK_MONOTONIC_COARSE and one atomic decrement). An
 *   unpin that drops a pool's very last reference (a pool its manager has
 *   already let go, such as a fork child's orphan) takes the reclaim
 *   queue's short lock, and starts the reclaim thread if it is not
 *   running (thread creation, never a wait for the pool's end).
 * Lifetime: what rcupool_pin_pthreadpool() returned for this pin may be
 *   freed once this returns (unless another pin or the current pool holds
 *   it); *pin itself may be reused or dropped.
 */
RCUPOOL_API void rcupool_unpin(rcupool_pin_t *pin);

/*
 * The pinned pool.
 * Returns: the pool; NULL for an empty pin or NULL, and for a pin of a
 *   pool inherited from the parent of a fork child that its manager could
 *   not replace in the child (see rcupool_current()).
 * Threads: any.
 * Blocks: no (reads the pin).
 * Lifetime: the pool until rcupool_unpin(pin).
 */
RCUPOOL_API pthreadpool_t rcupool_pin_pthreadpool(const rcupool_pin_t *pin);

/*
 * The pinned pool's thread count, which never changes while pinned.
 * Returns: the count; 0 for an empty pin or NULL.
 * Threads: any.
 * Blocks: no (reads the pin).
 * Lifetime: no pointers kept.
 */
RCUPOOL_API size_t rcupool_pin_threads(const rcupool_pin_t *pin);

/*
 * The manager generation at which the pool was pinned (also for a sized
 * pin, see rcupool_pin_sized()).
 * Returns: the generation; 0 for an empty pin or NULL.
 * Threads: any.
 * Blocks: no (reads the pin).
 * Lifetime: no pointers kept.
 */
RCUPOOL_API uint64_t rcupool_pin_generation(const rcupool_pin_t *pin);

/*
 * Whether the pinned pool is its manager's current pool. A reset that
 * reused this very pool makes it current again. For a sized pin, false is
 * the normal state (see rcupool_pin_sized()).
 * Returns: true when it is current; false when a reset has replaced it (the
 *   holder may choose to replan), or the pin is empty or NULL. The answer
 *   may change as soon as it is returned.
 * Threads: any.
 * Blocks: no (one atomic load).
 * Lifetime: no pointers kept.
 */
RCUPOOL_API bool rcupool_pin_is_current(const rcupool_pin_t *pin);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RCUPOOL_PIN_H */
