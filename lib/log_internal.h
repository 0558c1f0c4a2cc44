/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/log.c's API inside the library: the queue (delivered by
 * lib/log_deliver.h's rcupl_log_deliver()), the drop count, the fork handlers' part and the
 * library's own logging.
 */
#ifndef RCUPOOL_LIB_LOG_INTERNAL_H
#define RCUPOOL_LIB_LOG_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rcupool/rcupool.h"

/* Records waiting for the hook (log.c's, under its lock); read without it
 * by rcupl_log_deliver()'s one-load check (lib/log_deliver.h). */
extern size_t rcupl_log_pending;

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
