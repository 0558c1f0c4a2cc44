/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: the size of an executor's set (lib/exec_size.c): growth, trim,
 * what it keeps, its stop and fork handlers.
 */
#ifndef RCUPOOL_LIB_EXEC_SIZE_H
#define RCUPOOL_LIB_EXEC_SIZE_H

#include <stddef.h>
#include <stdint.h>

#include "exec_types.h"

#if RCUPL_HAVE_EXECUTOR

/* Starts threads until e has `want` (at most RCUPOOL_MAX_THREADS), each
 * bound and started before it counts; a thread a trim left running in a
 * slot is taken back instead (EXEC_SET-4). 0, or -EAGAIN when a thread
 * could not start (e keeps those that did). Blocks: starts threads, under
 * e->grow_lock; never waits for a task. Any thread, e's own included. */
int rcupl_exec_set_grow(struct rcupl_exec_set *e, size_t want);

/* How many of e's first n threads could not be bound (PLACE-3). */
size_t rcupl_exec_set_bind_failures(struct rcupl_exec_set *e, size_t n);

/* A view of `width` threads is about to be made on e (counted, then the
 * set grown to width - 1: 0, or -EAGAIN uncounted) / has been destroyed:
 * the set keeps the threads of its widest view alive (EXEC_SET-4),
 * joining idle others. Blocks: starts or joins threads, never waits for a
 * task. */
int rcupl_exec_set_view_made(struct rcupl_exec_set *e, size_t width);
void rcupl_exec_set_view_gone(struct rcupl_exec_set *e, size_t width);

/* e keeps at least `threads` threads for other libraries' pools until
 * rcupl_exec_set_let_go() (rcupool_executor(); EXEC_SET-7). */
void rcupl_exec_set_keep(struct rcupl_exec_set *e, size_t threads);

/* Lets go of what e keeps for other libraries' pools and trims it to its
 * widest view (rcupool_trim(), rcupool_finalize(); EXEC_SET-7). Blocks:
 * joins idle threads, never waits for a task. */
void rcupl_exec_set_let_go(struct rcupl_exec_set *e);

/* Stops and joins e's threads and frees its queue's nodes: only once no
 * pool made on e is left (no task can come). */
void rcupl_exec_set_stop(struct rcupl_exec_set *e);

/* fork(): prepare takes e's queue lock (a leaf), parent releases it; in
 * the child (its only thread) e's threads do not exist, the queue is whole
 * (EXEC_SET-8). */
void rcupl_exec_set_fork_prepare(struct rcupl_exec_set *e);
void rcupl_exec_set_fork_parent(struct rcupl_exec_set *e);
void rcupl_exec_set_fork_child(struct rcupl_exec_set *e);

#endif /* RCUPL_HAVE_EXECUTOR */

#endif /* RCUPOOL_LIB_EXEC_SIZE_H */
