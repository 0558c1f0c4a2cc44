/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcupool/read.h: the read side: read-side sections and the current pool.
 *
 * Part of <rcupool/rcupool.h>, which includes it: include that.
 */
#ifndef RCUPOOL_READ_H
#define RCUPOOL_READ_H

#include <pthreadpool.h>

#include <rcupool/common.h>
#include <rcupool/manager.h>

#ifdef __cplusplus
extern "C" {
#endif

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
 *
 * Returns: nothing.
 * Threads: any, no registration; a section is left on the thread that
 *   entered it.
 * Blocks: urcu-bp: no, except a thread's first section, which registers
 *   the thread with liburcu-bp (its registry lock, an allocation). memb:
 *   the outermost section of a thread the application did not register
 *   takes rcupool's fork lock (held by a fork while its handlers run) and
 *   liburcu-memb's registry lock, entering and leaving; otherwise no.
 * Lifetime: pools read inside the section (rcupool_current()) stay valid
 *   until the outermost rcupool_read_unlock().
 */
RCUPOOL_API void rcupool_read_lock(void);
RCUPOOL_API void rcupool_read_unlock(void);

/*
 * The current pool of m. Must be called inside a read-side section; the
 * returned pool stays valid until the matching rcupool_read_unlock(),
 * whatever resets happen meanwhile.
 * Returns: m's current pool; NULL if m is NULL, or, in a child of fork(),
 *   while m's current pool is one inherited from the parent (its workers
 *   stayed there; m's first pin or parallel call in the child replaces
 *   it, docs/flavours.md "fork"): pthreadpool runs work given NULL on the
 *   calling thread.
 * Threads: any, inside a read-side section; async-signal-safe as
 *   rcupool_read_lock() is (above).
 * Blocks: no (one atomic load).
 * Lifetime: the pool until the matching rcupool_read_unlock().
 */
RCUPOOL_API pthreadpool_t rcupool_current(rcupool_t *m);

/*
 * rcupool_read_lock() and rcupool_current(m) in one call: enters a
 * read-side section (always, also when m is NULL) and returns m's current
 * pool. Through the shared library, one call fewer per section than the
 * two it replaces.
 * Returns: m's current pool; NULL if m is NULL (the section is entered all
 *   the same).
 * Threads: any; async-signal-safe as rcupool_read_lock() is (above).
 * Blocks: as rcupool_read_lock().
 * Lifetime: the pool until the matching rcupool_read_unlock().
 */
RCUPOOL_API pthreadpool_t rcupool_read_lock_current(rcupool_t *m);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RCUPOOL_READ_H */
