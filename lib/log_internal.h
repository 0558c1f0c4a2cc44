/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/log.c's API inside the library: delivery (whose gate is
 * lib/log_deliver.c's), the drop count, the fork handlers' part and the
 * library's own logging.
 */
#ifndef RCUPOOL_LIB_LOG_INTERNAL_H
#define RCUPOOL_LIB_LOG_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log_deliver.h"
#include "rcupool/rcupool.h"

/* Hands the queued log records to the hook, on the calling thread, when it
 * may run user code there (LOG-1: no rcupool lock held, not a library
 * thread, not in a task or a read-side section); otherwise they wait for
 * the next such call. Called at the end of every public call that can log.
 * One relaxed load when nothing is queued. */
extern size_t rcupl_log_pending;
static inline void rcupl_log_deliver(void) {
  if (__builtin_expect(
          __atomic_load_n(&rcupl_log_pending, __ATOMIC_RELAXED) != 0, 0))
    rcupl_log_deliver_slow();
}

/* The default sink writes records from `min` up to stderr (RCUPOOL_LOG_WARN
 * unless RCUPOOL_LOG_LEVEL says otherwise: env.c). */
void rcupl_log_set_stderr_level(rcupool_log_level_t min);

/* The delivery itself (log.c), once lib/log_deliver.c's gate has found
 * this thread may run the hook: returns at once on a thread already
 * delivering (LOG-3). */
void rcupl_log_deliver_now(void);

/* rcupl_log() with a va_list; rcupool_set_log() and rcupool_log_hold()
 * without their delivery (held: queue for rcupool_log_take()). */
void rcupl_vlog(rcupool_log_level_t level, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
void rcupl_log_set_sink(rcupool_log_fn fn, void *ctx, bool held);

/* Records lost to a full queue since the process started (LOG-2). */
uint64_t rcupl_log_dropped(void);

/* Fork handlers' part of log.c (LOG-7): prepare takes the queue's lock
 * (last of all), parent and child release it (first). */
void rcupl_log_fork_prepare(void);
void rcupl_log_fork_parent(void);
void rcupl_log_fork_child(void);

/* The library's own logging; rcupool_log() is the public twin that other
 * components (lib/xnnpack, users' extensions) call. Which errors are
 * logged, and at which level: LOG-5 in log.c. */
void rcupl_log(rcupool_log_level_t level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif /* RCUPOOL_LIB_LOG_INTERNAL_H */
