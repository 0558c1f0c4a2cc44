/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: the threads of an executor's set (lib/exec_thread.c).
 */
#ifndef RCUPOOL_LIB_EXEC_THREAD_H
#define RCUPOOL_LIB_EXEC_THREAD_H

#include <stddef.h>
#include <stdint.h>

#include "exec_types.h"

#if RCUPL_HAVE_EXECUTOR

void rcupl_exec_wake(uint32_t *word); /* one waiter of a state word */
void *rcupl_exec_thread(void *slot);  /* a set thread's body */

/* Runs, on the calling thread, every task of ctx's view still queued on
 * e (EXEC_SET-6): the reclaim thread, before it destroys that view, whose
 * calls are over (each such task returns at once). */
void rcupl_exec_set_run_queued(struct rcupl_exec_set *e,
                               const struct rcupl_exec_ctx *ctx);

#endif /* RCUPL_HAVE_EXECUTOR */

#endif /* RCUPOOL_LIB_EXEC_THREAD_H */
