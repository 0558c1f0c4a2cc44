/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcupool/manager.h: the manager: its options, create, destroy, the
 * default manager, finalize, reset, its count, generation, default rule
 * and placement. Its idle policy is rcupool/idle.h's, following the CPU
 * limits rcupool/follow.h's, warm widths and trim rcupool/warm.h's, the
 * barrier rcupool/barrier.h's.
 *
 * Part of <rcupool/rcupool.h>, which includes it: include that.
 */
#ifndef RCUPOOL_MANAGER_H
#define RCUPOOL_MANAGER_H

#include <stddef.h>
#include <stdint.h>

#include <rcupool/common.h>
#include <rcupool/follow.h>
#include <rcupool/idle.h>
#include <rcupool/placement.h>
#include <rcupool/warm.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Environment variable read by rcupool_default() for its default size. */
#define RCUPOOL_ENV_NUM_THREADS "RCUPOOL_NUM_THREADS"

/* Options for rcupool_create(). A zero-initialised struct means defaults. */
typedef struct rcupool_options {
  /* Thread count of the first pool and of rcupool_reset(m, 0). 0: the
   * default count, computed at create and again at every
   * rcupool_reset(m, 0) by default_rule: by default the performance cores
   * (the kernel's topology) in the calling thread's affinity mask, capped
   * by the cgroup CPU quota (docs/default-size.md). At most
   * RCUPOOL_MAX_THREADS. */
  size_t threads;
  /* Appended fields (those above keep their offsets). */
  /* The idle policy (RCUPOOL_IDLE_DEFAULT: the library's); change it later
   * with rcupool_set_idle(). */
  rcupool_idle_t idle;
  /* Warm widths. A pool that is not current and holds no pin is kept by
   * the manager ("warm") so that the next sized pin, scope or reset of its
   * width is a lookup, not a thread start.
   * warm_ms (0: RCUPOOL_WARM_MS_DEFAULT): a warm pool goes warm_ms after
   * its last use: its last unpin, the end of the last parallel call on it,
   * or the grace period after the reset that retired it, however long it
   * was pinned before. Timed on CLOCK_MONOTONIC, never shorter; the
   * last use is stamped from its coarse twin, so a pool may stay up to two
   * scheduler ticks longer (8 ms at 250 Hz), plus the wake-up of the
   * library's reclaim thread (measured: under 2 ms; rcupool's tests allow
   * 100 ms in all).
   * warm_pools (0: RCUPOOL_WARM_POOLS_DEFAULT): how many warm pools at
   * most, at every moment: the pools the manager holds off current count
   * as they are pinned or retiring too (each turns warm by itself), and
   * when one joins them the longest unused warm ones go at once. Only
   * while pins alone hold more than warm_pools pools off current can more
   * turn warm; those beyond it go at the first expiry pass after their
   * unpin, within warm_ms.
   * RCUPOOL_WARM_NONE: keep none. A retired pool goes right after its grace
   * period; a pinned one at the first expiry pass after its last unpin,
   * which comes within warm_ms (an unpin wakes nothing; the reclaim thread
   * looks at pools in use every warm_ms): a small warm_ms makes that
   * prompt, at the price of one wake-up every warm_ms while a pool off
   * current is pinned. rcupool_barrier() and rcupool_trim() free it at
   * once.
   * Change both later with rcupool_set_warm(). */
  uint32_t warm_ms;
  uint32_t warm_pools;
  /* Whether a default count (threads 0) follows the CPU limits while the
   * process runs (rcupool_follow_t). */
  rcupool_follow_t follow;
  /* Where the workers of this manager's pools run (zero: the OS decides,
   * RCUPOOL_PLACE_NONE); the pools of rcupool_reset() and
   * rcupool_pin_sized() have it. rcupool_pin_placed() takes another. */
  rcupool_placement_t placement;
  /* What a default count (threads 0) counts: RCUPOOL_DEFAULT_RULE_CORES
   * (0, the default) or RCUPOOL_DEFAULT_RULE_PROCESSORS. Change it later
   * with rcupool_set_default_rule(). */
  int default_rule;
} rcupool_options_t;

/* The rules of the default count (rcupool_options_t.default_rule,
 * rcupool_set_default_rule(); docs/default-size.md). CORES: the
 * performance cores with a CPU in the affinity mask and online (every core
 * there if none is a performance core), ExecuTorch's "performance cores"
 * count. PROCESSORS: every CPU of the affinity mask that is online
 * (logical processors: SMT siblings each count), ExecuTorch's own default.
 * Both are capped by the cgroup CPU quota, rounded up. */
#define RCUPOOL_DEFAULT_RULE_CORES 0
#define RCUPOOL_DEFAULT_RULE_PROCESSORS 1

/*
 * Creates a manager with a first pool of opts->threads threads.
 * opts may be NULL (all defaults). Environment variables are not read here;
 * only rcupool_default() reads them.
 *
 * Returns: 0 and stores the manager in *out, or
 *   -EINVAL  out is NULL, opts->threads > RCUPOOL_MAX_THREADS, opts->idle
 *            is not a value of rcupool_idle_t or opts->warm_ms >
 *            RCUPOOL_WARM_MS_MAX, opts->follow is not a value of
 *            rcupool_follow_t, opts->placement is not a placement or
 *            cannot be placed (an explicit set with no CPU in the
 *            affinity mask and online);
 *   -ENOMEM  allocation failed;
 *   -EAGAIN  the pool's threads could not be started.
 *   On error *out is left unchanged and nothing stays allocated.
 * Threads: any.
 * Blocks: yes, while the first pool's threads start.
 * Lifetime: the manager until rcupool_destroy(); opts is read during the
 *   call only.
 */
RCUPOOL_API int rcupool_create(const rcupool_options_t *opts, rcupool_t **out);

/*
 * Destroys a manager: retires its current pool and frees every pool, waiting
 * for pending grace-period callbacks. The manager must not be used by any
 * other call during or after destroy.
 *
 * Returns: 0 (also for NULL), or
 *   -EBUSY    a pin on any of its pools is still held; nothing was freed and
 *             the manager is fully usable;
 *   -EPERM    m is the process-wide manager of rcupool_default() (at
 *             exit, rcupool_finalize() joins its threads);
 *   -EDEADLK  called where it would wait for itself: inside a read-side
 *             section, inside a task of rcupool_parallelize_1d() (of any
 *             manager), or on any worker thread of an rcupool pool
 *             (whatever it runs). Not detected: a task that pthreadpool
 *             runs on the very thread that called
 *             pthreadpool_parallelize_*() directly on a pool;
 *   -EAGAIN   the library's reclaim thread is not running and cannot be
 *             started (a thread limit): nothing was changed; retry later.
 * Threads: any thread but those above.
 * Blocks: yes (grace periods and the joins of worker threads).
 * Lifetime: m is gone once this returns 0; on an error it stays usable.
 */
RCUPOOL_API int rcupool_destroy(rcupool_t *m);

/*
 * The process-wide manager, created on first use and never destroyed. Its
 * default size is RCUPOOL_NUM_THREADS when that holds a decimal count in
 * 1..RCUPOOL_MAX_THREADS (read once, by the first call); any other value is
 * logged at warning level and ignored. Without it, the default count is
 * the performance cores (grouped by the kernel's topology, else cpuinfo's)
 * with a CPU in the calling thread's affinity mask (sched_getaffinity)
 * that is online, capped by the CPU quota of the process's cgroup (v2
 * cpu.max, v1 cpu.cfs_quota_us / cpu.cfs_period_us) rounded up, at least
 * 1 (rcupool_set_default_rule() can make it count processors instead); it
 * is computed again by every rcupool_reset(m, 0). How it was chosen is
 * logged at info level ("default size 1 thread: 2 performance cores
 * (kernel topology) in the affinity mask of 2 CPUs; cgroup quota 1 CPU ->
 * 1 thread"). Its placement is
 * RCUPOOL_PLACEMENT's (rcupool_placement_parse() syntax; none when unset,
 * malformed or with no CPU in the affinity mask and online, the last two
 * logged at warning level); RCUPOOL_FOLLOW=0 stops it following the CPU
 * limits (rcupool_follow_t; any value but 0 and 1 is logged and ignored).
 * Every variable is read as docs/environment.md says: blanks around the
 * value allowed, names without case.
 *
 * Where no thread can start (RLIMIT_NPROC as `ulimit -u` sets it, a pids
 * cgroup), the manager still comes up: its first pool has 1 thread, which
 * starts no thread (the caller runs every task), a warning says so, and
 * rcupool_stats_t.start_failures counts the refused start. Its default
 * count is unchanged: rcupool_reset(m, 0) tries it again later.
 *
 * Returns: the manager; NULL only if the first creation failed for want of
 *   memory (logged at error level): a later call tries again.
 * Threads: any; concurrent first calls create one manager.
 * Blocks: the first call, while threads start (later calls: no).
 * Lifetime: the manager stays valid until the process exits.
 *
 * In a child created by fork(), the manager's pools have lost their worker
 * threads; until the child's first rcupool_parallelize_1d() outside a
 * scope, rcupool_pin() or rcupool_reset() creates a pool of the manager's
 * size, the current pool is a 1-thread pool (see docs/flavours.md, "fork").
 */
RCUPOOL_API rcupool_t *rcupool_default(void);

/*
 * Shuts down, typically at exit, every thread rcupool started for the
 * process-wide manager (as tbb::finalize does for oneTBB's): its current
 * pool becomes a pool of 1 thread, which has no worker; every other pool
 * of it is freed and its workers joined; then the library's reclaim thread
 * is stopped and joined. Afterwards a leak checker (valgrind) or a count of
 * /proc/self/task sees no thread of rcupool's (a manager made with
 * rcupool_create() keeps its own pools' workers until rcupool_destroy()).
 * The manager stays valid and usable (rcupool_destroy() on it is still
 * -EPERM): a later reset, sized pin or scope starts threads again, and the
 * reclaim thread starts again on its next need.
 * Returns: 0 (also when rcupool_default() was never called: then only the
 *   reclaim thread, if any, is stopped), or
 *   -EBUSY    a pin on a pool of the default manager is held: nothing was
 *             changed (a pin taken while it runs also gives -EBUSY, with
 *             the current pool already of 1 thread);
 *   -EDEADLK  called inside a read-side section, a task or on a worker of
 *             an rcupool pool (it would wait for itself): nothing changed;
 *   an error of rcupool_reset() or rcupool_trim() (-EAGAIN, -ENOMEM).
 * Threads: any thread but those above, with no other thread using the
 *   default manager meanwhile (at exit, after the application's threads
 *   are joined).
 * Blocks: yes (grace periods, the joins of workers and of the reclaim
 *   thread).
 * Lifetime: pthreadpool_t pointers of the freed pools are gone.
 */
RCUPOOL_API int rcupool_finalize(void);

/*
 * Makes a pool of `threads` threads current. 0 means the manager's default
 * count: the count it was created with, RCUPOOL_NUM_THREADS for the default
 * manager when set, else the count computed now from the calling thread's
 * affinity mask and the cgroup CPU quota. rcupool_reset(m, 0) is the way to
 * follow a change of those limits (a container resized, the process moved
 * to other CPUs) without a restart: call it after the change, from a thread
 * whose mask is the new one. A reset to the current size does nothing. A reset to the size of a
 * pool that is still alive (warm, pinned, within its grace period, or
 * started by a sized pin) makes that pool current instead of creating one
 * (a reuse). Otherwise
 * a new pool is created and published; the previous one is retired: once
 * its grace period has elapsed and no pin holds it, it stays warm for its
 * width (rcupool_set_warm()) and then goes on the reclaim thread.
 *
 * Never waits for readers or pins. Holders of pins keep their pool.
 *
 * Returns: 0, or
 *   -EINVAL  m is NULL or threads > RCUPOOL_MAX_THREADS;
 *   -ENOMEM  allocation failed;
 *   -EAGAIN  the new pool's threads could not be started.
 *   On error the current pool is unchanged and keeps working.
 * Threads: any, including a task running on a pool. Concurrent resets are
 *   serialised.
 * Blocks: yes, while a new pool's threads start (and, for 0, while it
 *   reads the affinity mask and a few small cgroup files).
 * Lifetime: no pointers kept; the pool it replaces lives on as long as a
 *   read-side section or a pin holds it.
 */
RCUPOOL_API int rcupool_reset(rcupool_t *m, size_t threads);

/*
 * Thread count of the current pool.
 * Returns: the count; 0 if m is NULL. It may be stale as soon as it is
 *   returned.
 * Threads: any.
 * Blocks: no (one atomic load).
 * Lifetime: no pointers kept.
 */
RCUPOOL_API size_t rcupool_threads(rcupool_t *m);

/*
 * The manager's generation: the number of pools it has published (the first
 * pool is generation 1; every reset that changes the pool adds one, reuses
 * included).
 * Returns: the generation; 0 if m is NULL.
 * Threads: any.
 * Blocks: no (one atomic load).
 * Lifetime: no pointers kept.
 */
RCUPOOL_API uint64_t rcupool_generation(rcupool_t *m);

/*
 * Sets the rule of m's default count (RCUPOOL_DEFAULT_RULE_CORES or
 * RCUPOOL_DEFAULT_RULE_PROCESSORS), for every later computation of it:
 * rcupool_reset(m, 0), the following of the CPU limits, a sized pin of 0.
 * When m's count was not chosen (created with threads 0, and not since
 * reset to a count; for the default manager: RCUPOOL_NUM_THREADS unset),
 * m also resets to the default count by the new rule now, as following
 * would. A chosen count stays as it is.
 * Returns: 0, or -EINVAL (m NULL, or rule not a RCUPOOL_DEFAULT_RULE_*;
 *   nothing changed), or an error of that reset (-ENOMEM, -EAGAIN: the
 *   rule is set, the current pool unchanged).
 * Threads: any thread but a task of m's (the reset may start threads).
 * Blocks: yes, as rcupool_reset(m, 0) (a few small files, and a new
 *   pool's threads starting).
 * Lifetime: no pointers kept.
 */
RCUPOOL_API int rcupool_set_default_rule(rcupool_t *m, int rule);

/*
 * m's default rule.
 * Returns: RCUPOOL_DEFAULT_RULE_CORES or RCUPOOL_DEFAULT_RULE_PROCESSORS;
 *   RCUPOOL_DEFAULT_RULE_CORES if m is NULL.
 * Threads: any.
 * Blocks: no (one atomic load).
 * Lifetime: no pointers kept.
 */
RCUPOOL_API int rcupool_default_rule(rcupool_t *m);

/*
 * The placement m was created with (rcupool_options_t), normalised: the
 * placement of its current pool and of its sized pins.
 * Returns: 0 and fills *out, or -EINVAL when m or out is NULL.
 * Threads: any.
 * Blocks: no (m's placement never changes).
 * Lifetime: no pointers kept.
 */
RCUPOOL_API int rcupool_get_placement(rcupool_t *m, rcupool_placement_t *out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RCUPOOL_MANAGER_H */
