/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcupool_executor() (include/rcupool/executor.h): the manager's set of
 * threads for placement none (lib/executor.c), kept at the manager's
 * width for another library's pthreadpool_create_v2() pools.
 *
 * Invariants kept here:
 *   EXECUTOR_API-1. What it hands out stays valid until the manager is
 *       destroyed, and the set never drops below the threads the
 *       manager's width needed when it was handed out (EXEC_SET-4): a
 *       pool another library made on it, which rcupool does not count,
 *       keeps the threads it was sized from.
 */
#include <errno.h>

#include "executor.h"
#include "rcupool/rcupool.h"

int rcupool_executor(rcupool_t *m, struct pthreadpool_executor **executor,
                     void **context) {
  if (m == NULL || executor == NULL || context == NULL) return -EINVAL;
  size_t width = rcupool_threads(m);
  return rcupl_executor_none(m, width > 1 ? width - 1 : 0, executor, context);
}
