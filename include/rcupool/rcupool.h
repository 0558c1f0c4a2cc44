/*
 * rcupool: the one CPU thread pool of a process, resizable at any time.
 *
 * A manager (rcupool_t) owns a current pthreadpool_t and every retired pool
 * that somebody still holds. The current pool is published with RCU: short
 * users read it inside a read-side section, long users (a loaded model
 * method) pin it. rcupool_reset() publishes a new pool and never waits; a
 * retired pool is destroyed on the library's reclaim thread once its grace
 * period has elapsed and its last pin is gone.
 *
 * Conventions
 *   - Functions that can fail return 0 or a negative errno value, and log
 *     why through the log hook (rcupool_set_log()): -EBUSY at warning
 *     level, every other error at error level; -EINVAL for a NULL argument
 *     is not logged.
 *   - Handles are opaque. Destroy functions accept NULL.
 *   - No function needs a per-thread registration step; any thread may call
 *     any function unless its documentation says otherwise, and may exit at
 *     any time while it is outside a read-side section.
 *   - "Blocks" means the call may sleep; every other call is non-blocking
 *     (it takes no lock that a blocking call holds for long).
 */
#ifndef RCUPOOL_RCUPOOL_H
#define RCUPOOL_RCUPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pthreadpool.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define RCUPOOL_API __attribute__((visibility("default")))
#define RCUPOOL_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define RCUPOOL_API
#define RCUPOOL_PRINTF(fmt, args)
#endif

/* Library version. The shared library's soname carries the major. */
#define RCUPOOL_VERSION_MAJOR 0
#define RCUPOOL_VERSION_MINOR 1
#define RCUPOOL_VERSION_PATCH 0
/* MAJOR * 10000 + MINOR * 100 + PATCH: minor and patch stay below 100, so
 * numbers order as versions do. */
#define RCUPOOL_VERSION_NUMBER                                   \
  (RCUPOOL_VERSION_MAJOR * 10000 + RCUPOOL_VERSION_MINOR * 100 + \
   RCUPOOL_VERSION_PATCH)

/*
 * The version of the library the program runs with, which can be newer
 * than the header it was compiled with: rcupool_version() is
 * "MAJOR.MINOR.PATCH" (a static string, valid for the life of the
 * process), rcupool_version_number() is that version as
 * RCUPOOL_VERSION_NUMBER computes it. The soname already rules out another
 * major; a program that needs what its header declares checks
 * rcupool_version_number() >= RCUPOOL_VERSION_NUMBER.
 * Threads: any. Never blocks.
 */
RCUPOOL_API const char *rcupool_version(void);
RCUPOOL_API int rcupool_version_number(void);

/* The largest thread count rcupool_reset() and rcupool_create() accept. */
#define RCUPOOL_MAX_THREADS 256

/* Environment variable read by rcupool_default() for its default size. */
#define RCUPOOL_ENV_NUM_THREADS "RCUPOOL_NUM_THREADS"

/* ------------------------------------------------------------------------ */
/* Manager                                                                   */
/* ------------------------------------------------------------------------ */

/* A pool manager. Opaque. (The tag is not `struct rcupool`: C++ users have
 * `namespace rcupool`, <rcupool/rcupool.hpp>, and a tag of the same name
 * in the global scope would clash with it.) */
typedef struct rcupool_manager rcupool_t;

/*
 * What a pool's worker threads do after a job until the next one comes (the
 * manager's idle policy). pthreadpool's workers spin (busy-wait) for a while
 * before they sleep, so a job that follows soon finds them awake, and the
 * CPU they spin on is lost to every other thread; yielding workers go to
 * sleep at once. The README ("Idle workers") has both sides measured.
 */
typedef enum rcupool_idle {
  /* The library's choice: RCUPOOL_IDLE_YIELD. */
  RCUPOOL_IDLE_DEFAULT = 0,
  /* Spin after each job, then sleep: pthreadpool's own behaviour. */
  RCUPOOL_IDLE_SPIN = 1,
  /* Sleep right after each job: PTHREADPOOL_FLAG_YIELD_WORKERS on every
   * pthreadpool call rcupool makes, XNN_FLAG_YIELD_WORKERS on the runtimes
   * of its XNNPACK backend (which yield after their last operator only). */
  RCUPOOL_IDLE_YIELD = 2,
} rcupool_idle_t;

/* Options for rcupool_create(). A zero-initialised struct means defaults. */
typedef struct rcupool_options {
  /* Thread count of the first pool and of rcupool_reset(m, 0). 0: the
   * default count, computed at create and again at every
   * rcupool_reset(m, 0): cpuinfo's performance cores in the calling
   * thread's affinity mask, capped by the cgroup CPU quota (README,
   * "Default size"). At most RCUPOOL_MAX_THREADS. */
  size_t threads;
  /* Appended fields (those above keep their offsets). */
  /* The idle policy (RCUPOOL_IDLE_DEFAULT: the library's); change it later
   * with rcupool_set_idle(). */
  rcupool_idle_t idle;
  /* Warm widths. A pool that is not current and holds no pin is kept by
   * the manager ("warm") so that the next sized pin, scope or reset of its
   * width is a lookup, not a thread start. warm_ms: how long a warm pool
   * lives unused (0: RCUPOOL_WARM_MS_DEFAULT). warm_pools: how many warm
   * pools at most; beyond it the longest unused go first (0:
   * RCUPOOL_WARM_POOLS_DEFAULT; RCUPOOL_WARM_NONE: keep none, a pool goes
   * at the first expiry pass after its last pin). Change both later with
   * rcupool_set_warm(). */
  uint32_t warm_ms;
  uint32_t warm_pools;
} rcupool_options_t;

#define RCUPOOL_WARM_MS_DEFAULT 1000u
#define RCUPOOL_WARM_POOLS_DEFAULT 8u
#define RCUPOOL_WARM_NONE UINT32_MAX
/* The longest warm_ms accepted: one hour. */
#define RCUPOOL_WARM_MS_MAX 3600000u

/*
 * Creates a manager with a first pool of opts->threads threads.
 * opts may be NULL (all defaults). Environment variables are not read here;
 * only rcupool_default() reads them.
 *
 * Returns 0 and stores the manager in *out, or
 *   -EINVAL  out is NULL, opts->threads > RCUPOOL_MAX_THREADS, opts->idle
 *            is not a value of rcupool_idle_t or opts->warm_ms >
 *            RCUPOOL_WARM_MS_MAX;
 *   -ENOMEM  allocation failed;
 *   -EAGAIN  the pool's threads could not be started.
 * On error *out is left unchanged and nothing stays allocated.
 * Threads: any. Blocks: yes, while threads start.
 */
RCUPOOL_API int rcupool_create(const rcupool_options_t *opts, rcupool_t **out);

/*
 * Destroys a manager: retires its current pool and frees every pool, waiting
 * for pending grace-period callbacks. The manager must not be used by any
 * other call during or after destroy.
 *
 * Returns 0 (also for NULL), or
 *   -EBUSY    a pin on any of its pools is still held; nothing was freed and
 *             the manager is fully usable;
 *   -EPERM    m is the process-wide manager of rcupool_default();
 *   -EDEADLK  called where it would wait for itself: inside a read-side
 *             section, inside a task of rcupool_parallelize_1d() (of any
 *             manager), or on any worker thread of an rcupool pool
 *             (whatever it runs). Not detected: a task that pthreadpool
 *             runs on the very thread that called
 *             pthreadpool_parallelize_*() directly on a pool;
 *   -EAGAIN   the library's reclaim thread is not running and cannot be
 *             started (a thread limit): nothing was changed; retry later.
 * Threads: any thread but those above. Blocks: yes (grace periods and the
 * joins of worker threads).
 */
RCUPOOL_API int rcupool_destroy(rcupool_t *m);

/*
 * The process-wide manager, created on first use and never destroyed. Its
 * default size is RCUPOOL_NUM_THREADS when that holds a decimal count in
 * 1..RCUPOOL_MAX_THREADS (read once, by the first call); any other value is
 * logged at warning level and ignored. Without it, the default count is
 * cpuinfo's performance cores in the calling thread's affinity mask
 * (sched_getaffinity), capped by the CPU quota of the process's cgroup
 * (v2 cpu.max, v1 cpu.cfs_quota_us / cpu.cfs_period_us), at least 1; it is
 * computed again by every rcupool_reset(m, 0). How it was chosen is logged
 * at info level ("default size 1 threads: 2 performance cores in the
 * affinity mask of 2 CPUs; cgroup quota 1 CPUs").
 *
 * Returns NULL only if the first creation failed (logged at error level);
 * a later call tries again. The pointer stays valid until the process exits.
 * Threads: any; concurrent first calls create one manager. Blocks: the first
 * call, while threads start.
 *
 * In a child created by fork(), the manager's pools have lost their worker
 * threads; until the child's first rcupool_parallelize_1d() outside a
 * scope, rcupool_pin() or rcupool_reset() creates a pool of the manager's
 * size, the current pool is a 1-thread pool (see README, "fork").
 */
RCUPOOL_API rcupool_t *rcupool_default(void);

/*
 * Makes a pool of `threads` threads current. 0 means the manager's default
 * count: the count it was created with, RCUPOOL_NUM_THREADS for the default
 * manager when set, else the count computed now from the calling thread's
 * affinity mask and the cgroup CPU quota. rcupool_reset(m, 0) is the way to
 * follow a change of those limits (a container resized, the process moved
 * to other CPUs) without a restart: call it after the change, from a thread
 * whose mask is the new one. A reset to the current size does nothing. A reset to the size of a
 * retired pool that is still alive (pinned, or within its grace period)
 * makes that pool current again instead of creating one (a reuse). Otherwise
 * a new pool is created and published; the previous one is retired and will
 * be freed once its grace period has elapsed and no pin holds it.
 *
 * Never waits for readers or pins. Holders of pins keep their pool.
 *
 * Returns 0, or
 *   -EINVAL  m is NULL or threads > RCUPOOL_MAX_THREADS;
 *   -ENOMEM  allocation failed;
 *   -EAGAIN  the new pool's threads could not be started.
 * On error the current pool is unchanged and keeps working.
 * Threads: any, including a task running on a pool. Concurrent resets are
 * serialised. Blocks: yes, while a new pool's threads start (and, for 0,
 * while it reads the affinity mask and a few small cgroup files).
 */
RCUPOOL_API int rcupool_reset(rcupool_t *m, size_t threads);

/* Thread count of the current pool; 0 if m is NULL. Threads: any. Never
 * blocks. The value may be stale as soon as it is returned. */
RCUPOOL_API size_t rcupool_threads(rcupool_t *m);

/* The manager's generation: the number of pools it has published (the first
 * pool is generation 1; every reset that changes the pool adds one, reuses
 * included). 0 if m is NULL. Threads: any. Never blocks. */
RCUPOOL_API uint64_t rcupool_generation(rcupool_t *m);

/*
 * Sets m's idle policy (rcupool_idle_t); RCUPOOL_IDLE_DEFAULT restores the
 * library's. The default manager is created implicitly: this is how its
 * policy is chosen. The policy applies to every pthreadpool call that
 * starts after this returns: rcupool_parallelize_1d() on m (in a scope or
 * not, so also the ExecuTorch stand-in's run()) and the worker census of
 * m's new pools; and to the XNNPACK backend's runtimes created or refreshed
 * after it (XNNPACK fixes a runtime's flags at creation, so a runtime keeps
 * the policy it was made with). A pthreadpool_parallelize_*() the caller
 * makes directly on a pinned pool passes its own flags.
 * Returns 0, or -EINVAL when m is NULL or idle is not a value of
 * rcupool_idle_t (the policy is unchanged).
 * Threads: any. Never blocks.
 */
RCUPOOL_API int rcupool_set_idle(rcupool_t *m, rcupool_idle_t idle);

/* m's idle policy: RCUPOOL_IDLE_SPIN or RCUPOOL_IDLE_YIELD (never DEFAULT,
 * which stands for one of them); RCUPOOL_IDLE_DEFAULT if m is NULL.
 * Threads: any. Never blocks. */
RCUPOOL_API rcupool_idle_t rcupool_idle(rcupool_t *m);

/*
 * Sets how long m keeps a warm pool (a pool that is not current and holds
 * no pin, kept for the next pin, scope or reset of its width) and how many
 * it keeps: warm_ms and warm_pools as in rcupool_options_t (0: the
 * default; warm_pools RCUPOOL_WARM_NONE: none). The default manager is
 * created implicitly: this is how its warm widths are chosen. Pools warm
 * now are judged by the new values at the next expiry pass (the reclaim
 * thread's, about warm_ms after a pool was last used, or a barrier's).
 * Returns 0, or -EINVAL when m is NULL or warm_ms > RCUPOOL_WARM_MS_MAX
 * (nothing is changed).
 * Threads: any. Blocks: no (wakes the reclaim thread).
 * Lifetime: no pointer is kept.
 */
RCUPOOL_API int rcupool_set_warm(rcupool_t *m, uint32_t warm_ms,
                                 uint32_t warm_pools);

/*
 * Frees m's warm pools now, for a process that knows it goes quiet: waits
 * for the retires already queued, releases every pool that is not current
 * and holds no pin, and waits until their threads are joined. A pool held
 * by a pin, the current pool, and a pool a parallel call is running on are
 * never freed by it.
 * Returns the number of pools it freed (0 or more), or -EINVAL (m NULL),
 * -EDEADLK and -EAGAIN as rcupool_barrier().
 * Threads: as rcupool_barrier(). Blocks: yes, as rcupool_barrier(), twice.
 * Lifetime: no pointer is kept.
 */
RCUPOOL_API int rcupool_trim(rcupool_t *m);

/*
 * Waits until every pool of m that can be freed has been freed: every pool
 * that is not current, whose grace period has elapsed, that holds no pin
 * and that m does not keep warm (rcupool_set_warm(): a warm pool goes once
 * unused for warm_ms, beyond warm_pools, or at rcupool_trim()). Pools still
 * pinned stay alive. Meant for tests, shutdown and dlclose.
 *
 * Returns 0, or -EINVAL (m NULL), or -EDEADLK where it would wait for
 * itself: inside a read-side section, inside a task of
 * rcupool_parallelize_1d() (of any manager), or on any worker thread of an
 * rcupool pool (whatever it runs). Not detected, as for rcupool_destroy():
 * a task pthreadpool runs on the thread that called
 * pthreadpool_parallelize_*() directly. -EAGAIN when the library's reclaim
 * thread is not running and cannot be started (a thread limit): it returns
 * at once (logged) instead of waiting; the frees wait for a later call.
 * Threads: any thread but those above. Blocks: yes (until the reclaim
 * thread has run every item queued before the call: a grace period, and
 * for a batch that frees a pool a second one and the joins of its
 * workers; while the thread runs, never a busy wait).
 */
RCUPOOL_API int rcupool_barrier(rcupool_t *m);

/* ------------------------------------------------------------------------ */
/* Read side                                                                 */
/* ------------------------------------------------------------------------ */

/*
 * Enters / leaves an RCU read-side section. Nestable. Any thread, no
 * registration. With urcu-bp (the default) it never blocks and never
 * allocates after the thread's first call. With memb, the outermost
 * section of a thread the application did not register registers it for
 * the section: it takes a lock (rcupool's fork lock, which a fork holds
 * while its handlers run, and liburcu-memb's registry lock) and may wait.
 * A section must be left on the thread that entered it. Keep it short:
 * while any thread is inside a section, no retired pool can be freed (the
 * grace period waits for it). rcupool itself never keeps a section open
 * while user code runs: rcupool_parallelize_1d() leaves its short section
 * before the first task starts and holds a reference instead, so a long
 * parallel call delays nothing but the pool it runs on. Inside a section
 * rcupool_barrier() and rcupool_destroy() return -EDEADLK.
 *
 * Signal handlers. Exactly these are async-signal-safe, and nothing else of
 * rcupool is:
 *   urcu-bp (the default flavour): rcupool_read_lock(), rcupool_current(),
 *     rcupool_read_lock_current() and rcupool_read_unlock(), in a handler running on a thread that has
 *     already completed one read-side section outside any handler and is
 *     not exiting. The first section of a thread registers it with
 *     liburcu-bp, and thread exit unregisters it; both take liburcu-bp's
 *     registry lock, so a section in a handler that interrupts either (or
 *     that is the thread's first) may deadlock.
 *   memb (RCUPOOL_URCU_MEMB): the same four, only on a thread the
 *     application itself registered with urcu_memb_register_thread() before
 *     signals may arrive, and unregisters after. On any other thread rcupool
 *     registers the thread for each outermost section (lib/memb.c), which
 *     takes locks: never call them from a handler there.
 * A section in a handler nests inside the interrupted thread's section,
 * if any, and must be left before the handler returns. rcupool's own
 * threads (pool workers, which exit when their pool is freed, and the
 * reclaim thread) are none of the threads above: a process-directed signal
 * whose handler runs a section must be blocked in them (they inherit the
 * signal mask of the thread that creates the pool or first needs the
 * reclaim thread), or be sent to chosen threads with pthread_kill().
 */
RCUPOOL_API void rcupool_read_lock(void);
RCUPOOL_API void rcupool_read_unlock(void);

/*
 * The current pool of m. Must be called inside a read-side section; the
 * returned pool stays valid until the matching rcupool_read_unlock(),
 * whatever resets happen meanwhile. NULL if m is NULL.
 * Threads: any. Never blocks.
 */
RCUPOOL_API pthreadpool_t rcupool_current(rcupool_t *m);

/*
 * rcupool_read_lock() and rcupool_current(m) in one call: enters a
 * read-side section (always, also when m is NULL) and returns m's current
 * pool, valid until the matching rcupool_read_unlock(). Through the shared
 * library, one call fewer per section than the two it replaces.
 * Threads: any; async-signal-safe as rcupool_read_lock() is (above).
 * Never blocks.
 */
RCUPOOL_API pthreadpool_t rcupool_read_lock_current(rcupool_t *m);

/* ------------------------------------------------------------------------ */
/* Pins                                                                      */
/* ------------------------------------------------------------------------ */

/*
 * A holder's claim on one pool: while pinned, the pool is not freed, even
 * after resets. Storage is the caller's (no allocation on pin), so the struct
 * is declared here, but every field is private: callers must not read or
 * write them (their names and meaning may change in any release). Read a pin
 * through rcupool_pin_pthreadpool(), rcupool_pin_threads(),
 * rcupool_pin_generation() and rcupool_pin_is_current(). Zero-initialise it,
 * or leave it as rcupool_unpin() left it: both are "empty".
 */
typedef struct rcupool_pin {
  /* Private to the library, like every field below. */
  void *pool_;               /* the pinned pool, NULL when empty */
  rcupool_t *manager_;       /* the manager it was pinned from */
  pthreadpool_t threadpool_; /* copied from the pool at pin time */
  size_t threads_;           /* copied from the pool at pin time */
  uint64_t generation_;      /* copied from the pool at pin time */
} rcupool_pin_t;

/*
 * Pins m's current pool into *pin and records its generation.
 * Returns 0, or -EINVAL when m or pin is NULL, or -EBUSY when *pin is
 * already holding a pool (unpin it first; nothing is changed).
 * Threads: any. Blocks: no, except the first pin (or parallel call) in a
 * fork child, which settles the default manager: it takes the writer lock
 * and starts the pool's threads (see README, "fork"). Lifetime: the pool
 * stays alive until
 * rcupool_unpin(pin). A pin belongs to its storage, not to a thread: any
 * thread may unpin it. A pin whose storage is lost without an unpin (say, a
 * thread exits holding a pin in its own stack) is leaked: its pool stays
 * alive until the process exits, and rcupool_destroy() of its manager
 * returns -EBUSY (see the README's misuse list).
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
 * this very pool current (a reuse). A pool that was never current is freed
 * on the reclaim thread once its last pin is gone.
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
 * Returns 0, or
 *   -EINVAL  m or pin is NULL, or threads > RCUPOOL_MAX_THREADS;
 *   -EBUSY   *pin already holds a pool (nothing is changed);
 *   -ENOMEM  allocation failed;
 *   -EAGAIN  a new pool's threads could not be started.
 * On error *pin stays empty and the manager is unchanged.
 * Threads: any, including a task running on a pool. Blocks: only when no
 * pool of that size is alive: then it starts one, serialised with resets
 * (it may wait for a concurrent reset that is starting threads). When a pool
 * of that size is alive it takes no lock: the current pool, or a short walk
 * of the manager's live pools inside a read-side section; 0 on a manager
 * created with 0 also reads the mask and a few small cgroup files.
 * Lifetime: as rcupool_pin().
 */
RCUPOOL_API int rcupool_pin_sized(rcupool_t *m, size_t threads,
                                  rcupool_pin_t *pin);

/*
 * Releases a pin and empties *pin. Unpinning an empty pin (zeroed, or
 * already released) is a no-op logged at warning level. If this was the
 * last holder of a retired pool, the pool is handed to the reclaim thread;
 * it is never destroyed on the calling thread, so a task may unpin the pool
 * it runs on. The pool may then be destroyed as soon as the caller of that
 * parallel call holds nothing on it: rcupool_parallelize_1d() (in a scope or
 * not) holds a reference of its own on the pool it dispatches to for the
 * whole call, so a task may unpin even the pin of the scope it was
 * dispatched from (a later parallel call in that scope then aborts, see
 * rcupool_scope_enter()); but a pthreadpool_parallelize_*() made directly on
 * the pinned pthreadpool_t holds nothing, so its caller must keep a pin of
 * its own.
 * Threads: any; one pin must not be unpinned by two threads at once. Never
 * blocks.
 */
RCUPOOL_API void rcupool_unpin(rcupool_pin_t *pin);

/* The pinned pool, valid until rcupool_unpin(pin); NULL for an empty pin
 * or NULL. Threads: any. Never blocks. Lifetime: until rcupool_unpin(pin). */
RCUPOOL_API pthreadpool_t rcupool_pin_pthreadpool(const rcupool_pin_t *pin);

/* The pinned pool's thread count; 0 for an empty pin or NULL.
 * Threads: any. Never blocks. */
RCUPOOL_API size_t rcupool_pin_threads(const rcupool_pin_t *pin);

/* The manager generation at which the pool was pinned (also for a sized
 * pin, see rcupool_pin_sized()); 0 for an empty pin or NULL.
 * Threads: any. Never blocks. */
RCUPOOL_API uint64_t rcupool_pin_generation(const rcupool_pin_t *pin);

/*
 * True when the pinned pool is m's current pool, false when a reset has
 * replaced it (the holder may choose to replan) or the pin is empty. A reset
 * that reused this very pool makes it current again. For a sized pin, false
 * is the normal state (see rcupool_pin_sized()).
 * Threads: any. Never blocks.
 */
RCUPOOL_API bool rcupool_pin_is_current(const rcupool_pin_t *pin);

/* ------------------------------------------------------------------------ */
/* Scope and parallel work                                                   */
/* ------------------------------------------------------------------------ */

/*
 * Makes this thread run the parallel work of pin's manager on pin's pool
 * until the matching rcupool_scope_exit(). Nestable (innermost wins) up to
 * RCUPOOL_SCOPE_MAX_DEPTH; per thread; a scope of one manager does not
 * affect calls on another manager. The pin must stay pinned until the scope
 * is left. A NULL or empty pin, or exceeding the depth, is a programming
 * error: "rcupool: FILE:LINE: reason" is written to stderr (no log hook
 * runs) and the process aborts.
 * Threads: any. Never blocks.
 */
#define RCUPOOL_SCOPE_MAX_DEPTH 16
RCUPOOL_API void rcupool_scope_enter(const rcupool_pin_t *pin);

/*
 * Leaves the innermost scope of this thread. Leaving with no scope entered
 * is logged at warning level and ignored.
 * Returns nothing. Threads: the thread that entered the scope. Never
 * blocks. Lifetime: the scope's pin may be unpinned once this returns.
 */
RCUPOOL_API void rcupool_scope_exit(void);

/*
 * Runs task(ctx, i) for every i in [0, range), in parallel, and returns when
 * all are done. Equivalent to:  for (i = 0; i < range; i++) task(ctx, i);
 *
 * The pool is the innermost scope's pool if this thread is in a scope of m,
 * else m's current pool. Either way the call takes its own reference on that
 * pool before the first task starts and drops it after the last one ended
 * (it never counts as a pin in rcupool_get_stats()), and holds no read-side
 * section while tasks run: a task may unpin the pin of the scope it was
 * dispatched from, and may fork() (the child should exec or _exit: the
 * pool's other threads do not exist there). Called from inside a task
 * (nested parallelism), the loop runs inline on the calling thread, where
 * "inside a task" is: inside a task of rcupool_parallelize_1d() (of any
 * manager, on any thread), or on a worker thread of an rcupool pool
 * (whatever it runs). Not detected: a task running on the very thread that
 * called pthreadpool_parallelize_*() directly on a pool; calling this on
 * the same pool from there deadlocks in pthreadpool (README, misuse table).
 * flags are pthreadpool's PTHREADPOOL_FLAG_*; under m's idle policy
 * RCUPOOL_IDLE_YIELD, PTHREADPOOL_FLAG_YIELD_WORKERS is added to them.
 *
 * Returns 0, or -EINVAL when m or task is NULL.
 * Threads: any. Blocks: until the tasks are done.
 */
RCUPOOL_API int rcupool_parallelize_1d(rcupool_t *m, pthreadpool_task_1d_t task,
                                       void *ctx, size_t range, uint32_t flags);

/* ------------------------------------------------------------------------ */
/* Observability                                                             */
/* ------------------------------------------------------------------------ */

typedef struct rcupool_stats {
  uint64_t generation;   /* as rcupool_generation() */
  size_t threads;        /* current pool's thread count */
  size_t pools_alive;    /* current pool + every other pool not yet freed
                            (retired, or started by rcupool_pin_sized()) */
  size_t pools_kept;     /* retired pools past their grace period, pinned */
  size_t pins;           /* pins held on all pools of the manager */
  uint64_t resets;       /* resets that changed the current pool */
  uint64_t reuses;       /* of which made a kept or retiring pool current */
  uint64_t pools_created;
  uint64_t pools_freed;
  size_t frees_pending;  /* grace-period callbacks and frees not yet run */
  size_t threads_alive;  /* sum of the thread counts of pools_alive */
  /* Appended fields (those above keep their offsets). */
  size_t pools_never_current; /* alive, pinned, never current: started by
                                 rcupool_pin_sized() (widths in use besides
                                 the current one and the kept ones) */
  uint64_t log_dropped;  /* process-wide: log records lost to a full queue
                            (the hook is told how many at its next call) */
  size_t pools_idle;     /* warm: alive, not current, no pin, no retire
                            pending; held by the manager for their width */
  size_t threads_idle;   /* sum of the thread counts of pools_idle */
} rcupool_stats_t;

/*
 * A snapshot of m's state, consistent at one instant for the manager's own
 * bookkeeping (pins may move while it is taken).
 * Returns 0, or -EINVAL when m or out is NULL.
 * Threads: any. Never blocks for long (takes the manager's internal lock).
 */
RCUPOOL_API int rcupool_get_stats(rcupool_t *m, rcupool_stats_t *out);

typedef enum rcupool_log_level {
  RCUPOOL_LOG_DEBUG = 0,
  RCUPOOL_LOG_INFO = 1,
  RCUPOOL_LOG_WARN = 2,
  RCUPOOL_LOG_ERROR = 3,
} rcupool_log_level_t;

/*
 * The log. The library never runs a hook on a thread of its own, under a
 * lock of its own or while a fork handler waits: it formats each record
 * into a bounded queue (never blocking the thread that logs) and hands the
 * queued records to the hook at the end of a public call made by an
 * application thread that holds no rcupool lock and is not inside a
 * read-side section or a parallel task. Records made elsewhere (the
 * reclaim thread, pool workers) reach the hook at the next such call, or
 * at rcupool_log_deliver(). A record that finds the queue full is dropped
 * and counted (rcupool_stats_t.log_dropped); the hook's next call is a
 * warning that says how many.
 */
#define RCUPOOL_LOG_MESSAGE_MAX 256

/*
 * A log hook. message is valid only during the call. It runs on an
 * application thread that called into rcupool (never on the reclaim thread
 * or a pool worker), possibly on several threads at once, with no rcupool
 * lock held and no fork handler waiting for it. So it may call any rcupool
 * function (rcupool_set_log() included: see there), take the application's
 * own locks, and fork. What it logs itself is delivered by a later call.
 */
typedef void (*rcupool_log_fn)(void *ctx, rcupool_log_level_t level,
                               const char *message);

/*
 * Installs the process-wide log hook; NULL restores the default, which
 * writes warnings and errors to stderr at once, from the thread that logs,
 * and queues nothing. Every state change of every manager is logged at
 * debug level, "kept because pinned" at info level. When this returns, no
 * call of a previous hook is running on another thread and none will
 * start, so its ctx may be freed. Called from inside a hook it does not
 * wait (two hooks doing so at once would wait for each other): calls of
 * the previous hook on other threads may then still be running.
 * Threads: any, a hook included. Blocks: outside a hook, until calls of
 * the previous hook on other threads return; do not call it while holding
 * a lock your hook takes.
 */
RCUPOOL_API void rcupool_set_log(rcupool_log_fn fn, void *ctx);

/*
 * Records below `min` are not queued (nor written by the default sink).
 * Default: RCUPOOL_LOG_DEBUG, every record.
 * Threads: any. Never blocks.
 */
RCUPOOL_API void rcupool_set_log_level(rcupool_log_level_t min);

/*
 * Hands the queued records to the hook now, on the calling thread, if the
 * thread may run the hook (see the log's rule above; otherwise it does
 * nothing). For an application that wants the records of the reclaim
 * thread without waiting for its next rcupool call.
 * Threads: any. Blocks: while the hook runs.
 */
RCUPOOL_API void rcupool_log_deliver(void);

/* One log record, as rcupool_log_take() returns it. */
typedef struct rcupool_log_record {
  rcupool_log_level_t level;
  char message[RCUPOOL_LOG_MESSAGE_MAX]; /* NUL-terminated */
} rcupool_log_record_t;

/*
 * Pull mode: stops delivery to any hook; records stay queued until
 * rcupool_log_take() takes them (an embedding that forwards records to its
 * own logging, such as the Python package, pulls them on its own threads).
 * rcupool_set_log() ends pull mode. Waits for running hook calls as
 * rcupool_set_log() does.
 * Threads: any. Blocks: as rcupool_set_log().
 */
RCUPOOL_API void rcupool_log_hold(void);

/*
 * Moves the oldest queued record to *out. A pending count of dropped
 * records comes first, as a warning of its own.
 * Returns 1 when a record was taken, 0 when none is queued, -EINVAL when
 * out is NULL. Threads: any. Never blocks for long (a short internal lock).
 */
RCUPOOL_API int rcupool_log_take(rcupool_log_record_t *out);

/*
 * Formats a message (printf-style, truncated to RCUPOOL_LOG_MESSAGE_MAX - 1
 * bytes) and queues it like the library's own records, so that components
 * built on rcupool (its XNNPACK backend, a runtime's extensions) log where
 * rcupool logs; then delivers what is queued if the calling thread may run
 * the hook. A level outside the enum is treated as RCUPOOL_LOG_ERROR.
 * Threads: any, a hook and a parallel task included. Blocks: while the
 * hook runs (never when called from a hook, a task or a section).
 */
RCUPOOL_API void rcupool_log(rcupool_log_level_t level, const char *fmt, ...)
    RCUPOOL_PRINTF(2, 3);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RCUPOOL_RCUPOOL_H */
