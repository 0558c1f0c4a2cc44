/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcupool/log.h: the log: hook, level, pull mode and records of one's own.
 *
 * Part of <rcupool/rcupool.h>, which includes it: include that.
 */
#ifndef RCUPOOL_LOG_H
#define RCUPOOL_LOG_H

#include <rcupool/common.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rcupool_log_level {
  RCUPOOL_LOG_DEBUG = 0,
  RCUPOOL_LOG_INFO = 1,
  RCUPOOL_LOG_WARN = 2,
  RCUPOOL_LOG_ERROR = 3,
} rcupool_log_level_t;

/* Environment variable read by rcupool_default(): the level from which the
 * default sink writes records to stderr ("debug", "info", "warning" or
 * "error"; unset: "warning"). A hook, or Python's logging, decides for
 * itself (docs/environment.md). */
#define RCUPOOL_ENV_LOG_LEVEL "RCUPOOL_LOG_LEVEL"

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
 * writes warnings and errors (or from the level RCUPOOL_LOG_LEVEL names)
 * to stderr at once, from the thread that logs, and queues nothing. Every state change of every manager is logged at
 * debug level, "kept because pinned" at info level. When this returns, no
 * call of a previous hook is running on another thread and none will
 * start, so its ctx may be freed. Called from inside a hook it does not
 * wait (two hooks doing so at once would wait for each other): calls of
 * the previous hook on other threads may then still be running.
 * Returns: nothing.
 * Threads: any, a hook included.
 * Blocks: outside a hook, until calls of the previous hook on other threads
 *   return; do not call it while holding a lock your hook takes. Restoring
 *   the default writes what is queued to stderr.
 * Lifetime: fn and ctx are kept until a later rcupool_set_log() or
 *   rcupool_log_hold() returns (called outside a hook).
 */
RCUPOOL_API void rcupool_set_log(rcupool_log_fn fn, void *ctx);

/*
 * Records below `min` are not queued (nor written by the default sink).
 * Default: RCUPOOL_LOG_DEBUG, every record. A level above
 * RCUPOOL_LOG_ERROR is taken as RCUPOOL_LOG_ERROR.
 * Returns: nothing.
 * Threads: any.
 * Blocks: no (one atomic store).
 * Lifetime: no pointers kept.
 */
RCUPOOL_API void rcupool_set_log_level(rcupool_log_level_t min);

/*
 * Hands the queued records to the hook now, on the calling thread, if the
 * thread may run the hook (see the log's rule above; otherwise it does
 * nothing). For an application that wants the records of the reclaim
 * thread without waiting for its next rcupool call.
 * Returns: nothing.
 * Threads: any.
 * Blocks: while the hook runs.
 * Lifetime: no pointers kept.
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
 * Returns: nothing.
 * Threads: any.
 * Blocks: as rcupool_set_log().
 * Lifetime: the previous hook's fn and ctx are no longer used once this
 *   returns (called outside a hook).
 */
RCUPOOL_API void rcupool_log_hold(void);

/*
 * Moves the oldest queued record to *out. A pending count of dropped
 * records comes first, as a warning of its own.
 * Returns: 1 when a record was taken, 0 when none is queued, -EINVAL when
 *   out is NULL.
 * Threads: any.
 * Blocks: no longer than the log queue's short internal lock is held.
 * Lifetime: no pointers kept; *out is a copy.
 */
RCUPOOL_API int rcupool_log_take(rcupool_log_record_t *out);

/*
 * Formats a message (printf-style, truncated to RCUPOOL_LOG_MESSAGE_MAX - 1
 * bytes) and queues it like the library's own records, so that components
 * built on rcupool (its XNNPACK backend, a runtime's extensions) log where
 * rcupool logs; then delivers what is queued if the calling thread may run
 * the hook. A level outside the enum is treated as RCUPOOL_LOG_ERROR.
 * Returns: nothing.
 * Threads: any, a hook and a parallel task included.
 * Blocks: while the hook runs (never when called from a hook, a task or a
 *   section); with the default sink, while a warning or an error is
 *   written to stderr.
 * Lifetime: fmt and its arguments are formatted during the call; no
 *   pointers kept.
 */
RCUPOOL_API void rcupool_log(rcupool_log_level_t level, const char *fmt, ...)
    RCUPOOL_PRINTF(2, 3);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RCUPOOL_LOG_H */
