/* SPDX-License-Identifier: LGPL-2.1-or-later */
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
 *   - Every public function's comment ends with the same four lines:
 *     "Returns:" (what it returns; "nothing" for void), "Threads:" (which
 *     threads may call it), "Blocks:" (whether it may sleep, and on what)
 *     and "Lifetime:" (how long what it returns or keeps stays valid; "no
 *     pointers kept" when nothing outlives the call). tests/api checks it.
 *   - "Blocks: no" means the call never sleeps: it takes no lock that a
 *     blocking call holds for long. It does not count the log hook: a call
 *     made on an application thread may hand queued log records to the hook
 *     before it returns (log.h), and the hook takes what time it takes.
 */
#ifndef RCUPOOL_RCUPOOL_H
#define RCUPOOL_RCUPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pthreadpool.h>

/* One header a concept; this one includes them all. */
#include <rcupool/barrier.h> /* rcupool_barrier() */
#include <rcupool/common.h>  /* RCUPOOL_API, RCUPOOL_PRINTF, rcupool_t */
#include <rcupool/executor.h> /* rcupool_executor(): the threads as an executor */
#include <rcupool/follow.h>   /* following the CPU limits */
#include <rcupool/idle.h>     /* the idle policy */
#include <rcupool/log.h>      /* the log hook, pull mode, rcupool_log() */
#include <rcupool/manager.h>   /* create, destroy, default, reset */
#include <rcupool/pin.h>       /* rcupool_pin_t: pin, pin_sized, unpin */
#include <rcupool/placement.h> /* core classes, placements, describe */
#include <rcupool/read.h>      /* read-side sections, the current pool */
#include <rcupool/scope.h>     /* scopes, rcupool_parallelize_1d() */
#include <rcupool/stats.h>     /* rcupool_stats_t, rcupool_get_stats() */
#include <rcupool/warm.h>      /* warm widths, rcupool_trim() */

#ifdef __cplusplus
extern "C" {
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
 * Returns: "MAJOR.MINOR.PATCH"; the number.
 * Threads: any.
 * Blocks: no (constants).
 * Lifetime: the string is static, valid for the life of the process.
 */
RCUPOOL_API const char *rcupool_version(void);
RCUPOOL_API int rcupool_version_number(void);

/* The largest thread count rcupool_reset() and rcupool_create() accept. */
#define RCUPOOL_MAX_THREADS 256

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RCUPOOL_RCUPOOL_H */
