/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/context.c's API, the context of the calling thread: in a
 * task, on the reclaim thread, in a read-side section. The worker census
 * (lib/worker.c), the dispatch (lib/parallel.c) and the reclaim thread
 * (lib/reclaim.c) set it; the log's gate, memb's fork lock, barrier,
 * destroy and the fork handlers ask it.
 */
#ifndef RCUPOOL_LIB_CONTEXT_H
#define RCUPOOL_LIB_CONTEXT_H

#include <stdbool.h>
#include <stddef.h>

#include <pthreadpool.h>

/* True on a thread that is running a task dispatched by rcupool, or that is
 * a worker thread of any rcupool pool (whoever dispatched its task):
 * CONTEXT-1. */
bool rcupl_in_task(void);

/* task(ctx, i) for every i in [begin, end), on the calling thread, which
 * is in a task meanwhile (CONTEXT-1). */
void rcupl_task_run(pthreadpool_task_1d_t task, void *ctx, size_t begin,
                    size_t end);

/* Marks the calling thread, a worker of an rcupool pool, as in a task for
 * the rest of its life (lib/worker.c's census, CONTEXT-1). */
void rcupl_context_mark_worker(void);

/* The reclaim thread marks itself once, as it starts (lib/reclaim.c); true
 * on that thread only (CONTEXT-2). */
void rcupl_context_mark_reclaim_thread(void);
bool rcupl_on_reclaim_thread(void);

/* True inside a read-side section of the calling thread, asked without
 * registering the thread with liburcu (the log's gate, fork handlers, the
 * exit destructor): CONTEXT-3. */
bool rcupl_in_read_section_quiet(void);

#endif /* RCUPOOL_LIB_CONTEXT_H */
