/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/log_deliver.c's API, the delivery of the log's records:
 * rcupl_log_deliver(), the one-load check every public call ends with, and
 * its slow path, the gate.
 */
#ifndef RCUPOOL_LIB_LOG_DELIVER_H
#define RCUPOOL_LIB_LOG_DELIVER_H

#include <stddef.h>

#include "log_internal.h"

/* Delivers the queued records when this thread may run the hook (LOG-1),
 * else leaves them for the next such call. */
void rcupl_log_deliver_slow(void);

/* Hands the queued log records to the hook, on the calling thread, when it
 * may run user code there (LOG-1: no rcupool lock held, not a library
 * thread, not in a task or a read-side section); otherwise they wait for
 * the next such call. Called at the end of every public call that can log.
 * One relaxed load when nothing is queued. */
static inline void rcupl_log_deliver(void) {
  if (__builtin_expect(
          __atomic_load_n(&rcupl_log_pending, __ATOMIC_RELAXED) != 0, 0))
    rcupl_log_deliver_slow();
}

#endif /* RCUPOOL_LIB_LOG_DELIVER_H */
