/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The context of the calling thread: is it in a task, is it the reclaim
 * thread, is it inside a read-side section. Asked by every file that must
 * not wait for itself or run user code on a library thread (dispatch,
 * barrier and destroy, the log's gate, memb's fork lock, the fork
 * handlers); set by the worker census, the dispatch and the reclaim
 * thread. This file calls no other file of lib/: it sits below the log,
 * memb and the read side that ask it (docs/layout.md, the layers).
 *
 * Invariants kept here:
 *   CONTEXT-1. A thread is "in a task" (rcupl_in_task) when it runs a task
 *       dispatched by rcupool (task_depth > 0: every task of
 *       rcupool_parallelize_1d() runs through rcupl_task_run()) or is a
 *       worker thread of any rcupool pool (is_worker: set once on each
 *       worker when its pool is created, lib/worker.c's WORKER-1): every
 *       code a worker runs is some task, whoever dispatched it (rcupool,
 *       XNNPACK, the user's own pthreadpool call). A nested
 *       rcupool_parallelize_1d() there runs inline, and barrier and
 *       destroy return -EDEADLK. Not detected: the thread that itself
 *       called pthreadpool_parallelize_*() directly on an rcupool pool,
 *       while it runs its own share of the tasks (docs/misuse.md).
 *   CONTEXT-2. The reclaim thread marks itself as its first act after its
 *       name (lib/reclaim.c), before it takes any item; no other thread is
 *       ever marked.
 *   CONTEXT-3. "In a read-side section" is asked of liburcu's reader state
 *       of the calling thread without registering it: with urcu-bp a
 *       thread liburcu has not met is in no section (registering takes
 *       liburcu-bp's registry lock: not in a fork handler); with memb the
 *       reader's nesting count is read as it is. Every field here is the
 *       calling thread's own (__thread): no lock, no atomic.
 */
#include <stdbool.h>
#include <stddef.h>

#ifndef _LGPL_SOURCE
#define _LGPL_SOURCE
#endif
#if defined(RCUPOOL_URCU_MEMB)
#include <urcu/urcu-memb.h>
#elif defined(RCUPOOL_URCU_BP)
#include <urcu/urcu-bp.h>
#else
#error "select a liburcu flavour: depend on //lib/deps:urcu"
#endif

#include "context.h"

static __thread unsigned task_depth;
static __thread bool is_worker;
static __thread bool on_reclaim_thread;

bool rcupl_in_task(void) { return task_depth != 0 || is_worker; }

void rcupl_task_run(pthreadpool_task_1d_t task, void *ctx, size_t begin,
                    size_t end) {
  task_depth++;
  for (size_t i = begin; i < end; i++) task(ctx, i);
  task_depth--;
}

void rcupl_context_mark_worker(void) { is_worker = true; }

void rcupl_context_mark_reclaim_thread(void) { on_reclaim_thread = true; }

bool rcupl_on_reclaim_thread(void) { return on_reclaim_thread; }

bool rcupl_in_read_section_quiet(void) {
#if defined(RCUPOOL_URCU_MEMB)
  return urcu_memb_read_ongoing() != 0;
#else
  return URCU_TLS(urcu_bp_reader) != NULL && urcu_bp_read_ongoing() != 0;
#endif
}
