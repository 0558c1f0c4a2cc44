/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/executor.c's API, the manager's executor (a set of threads
 * that pthreadpool_create_v2() pools borrow).
 */
#ifndef RCUPOOL_LIB_EXECUTOR_H
#define RCUPOOL_LIB_EXECUTOR_H

#include "rcupool/rcupool.h"

/* Joins and frees m's executor, if it has one: rcupool_destroy() calls it
 * once no pool of m is left. */
void rcupl_executor_forget(rcupool_t *m);

#endif /* RCUPOOL_LIB_EXECUTOR_H */
