/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcupool_executor() (include/rcupool/executor.h): the manager's set of
 * threads for placement none (lib/executor.c), kept at the manager's
 * width for another library's pthreadpool_create_v2() pools.
 *
 * Invariants kept here:
 *   EXECUTOR_API-1. What it hands out stays valid until the manager is
 *       destroyed. The set keeps the threads the manager's width needed
 *       when it was handed out, and those another library's pool was
 *       sized from, until rcupool_trim() lets them go; such a pool that is
 *       still alive gets them back at its next call (EXEC_SET-7).
 */
#include <errno.h>

#include "executor.h"
#include "rcupool/rcupool.h"

int rcupool_executor(rcupool_t *m, struct pthreadpool_executor **executor,
                     void **context) {
  if (m == NULL || executor == NULL || context == NULL) return -EINVAL;
  size_t width = rcupool_threads(m); /* EXEC_SET-7 */
  return rcupl_executor_none(m, width > 1 ? width - 1 : 0, executor, context);
}
