/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: a set of threads that pthreadpool_create_v2() pools (views)
 * borrow for their parallel calls (lib/exec_set.c), one set per manager
 * and placement (lib/executor.c). Only with a pthreadpool that has the
 * executor API (RCUPL_HAVE_EXECUTOR).
 */
#ifndef RCUPOOL_LIB_EXEC_SET_H
#define RCUPOOL_LIB_EXEC_SET_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exec_types.h"

#if RCUPL_HAVE_EXECUTOR

/* Initialises e (zeroed by its caller) for m's pools placed by pl. */
void rcupl_exec_set_init(struct rcupl_exec_set *e, rcupool_t *m,
                         const rcupool_placement_t *pl,
                         const struct rcupl_cpuset *cpus);

#endif /* RCUPL_HAVE_EXECUTOR */

#endif /* RCUPOOL_LIB_EXEC_SET_H */
