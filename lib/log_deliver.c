/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * When the log's hook may run: the gate of every delivery, and the public
 * calls that end with one. The queue and the hook are lib/log.c's; this
 * file asks the rest of the library where the calling thread is, so that
 * log.c depends on none of it (lib/ has no circle: tools/include_graph.py).
 *
 * Invariants kept here:
 *   LOG_DELIVER-1. The hook runs (rcupl_log_deliver_now) only on a thread
 *       that holds no rcupool lock (rcupl_locks_held, lock.h), is not the
 *       reclaim thread, not inside a pool's task and not inside a
 *       read-side section (LOG-1); elsewhere the records wait for the
 *       next delivery on such a thread.
 */
#include <stdarg.h>
#include <stdbool.h>

#include "context.h"
#include "lock.h"
#include "log_internal.h"
#include "rcupool/rcupool.h"

static bool rcupl_log_may_deliver(void) {
  return rcupl_locks_held == 0 && !rcupl_on_reclaim_thread() &&
         !rcupl_in_task() && !rcupl_in_read_section_quiet();
}

void rcupl_log_deliver_slow(void) {
  if (rcupl_log_may_deliver()) rcupl_log_deliver_now();
}

/* rcupl_log_deliver() (log_deliver.h), whose slow path this file is,
 * spelled out here: its one load, then the gate. */
static void rcupl_log_deliver_pending(void) {
  if (__builtin_expect(
          __atomic_load_n(&rcupl_log_pending, __ATOMIC_RELAXED) != 0, 0))
    rcupl_log_deliver_slow();
}

void rcupool_log_deliver(void) { rcupl_log_deliver_pending(); }

void rcupool_log(rcupool_log_level_t level, const char *fmt, ...) {
  if ((unsigned)level > RCUPOOL_LOG_ERROR) level = RCUPOOL_LOG_ERROR;
  va_list ap;
  va_start(ap, fmt);
  rcupl_vlog(level, fmt, ap);
  va_end(ap);
  rcupl_log_deliver_pending();
}

void rcupool_set_log(rcupool_log_fn fn, void *ctx) {
  rcupl_log_set_sink(fn, ctx, false);
  rcupl_log_deliver_pending();
}
