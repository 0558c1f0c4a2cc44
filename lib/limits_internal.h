/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/limits.c's API: the library's maximum, the cgroup quota, room for
 * threads.
 */
#ifndef RCUPOOL_LIB_LIMITS_INTERNAL_H
#define RCUPOOL_LIB_LIMITS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

/* 0 when threads is at most RCUPOOL_MAX_THREADS; else -EINVAL, logged at
 * error level as "<call>: N threads is above the maximum" (LIMITS-3). */
int rcupl_limits_check_threads(const char *call, size_t threads);

/* The CPU quota of the process's cgroup in CPUs, 0 for none (LIMITS-1),
 * read now under the machine's cgroup root (lib/machine.c). Reads a few
 * small files: call without manager locks. */
size_t rcupl_limits_cpu_quota(void);

/* The same quota whole: cpus = ceil(exact), both 0 for none. */
struct rcupl_quota {
  size_t cpus;  /* in 1..RCUPOOL_MAX_THREADS, or 0: no quota */
  double exact; /* quota / period of the binding level ("1.5") */
};
void rcupl_limits_quota(struct rcupl_quota *q);
/* The same under an explicit root ("" : the real files). */
void rcupl_limits_cgroup_quota(const char *root, struct rcupl_quota *q);

/* True when `threads` more threads were just seen to start (LIMITS-2):
 * before a pool of threads + 1 threads starts. */
bool rcupl_limits_threads_can_start(size_t threads);

#endif /* RCUPOOL_LIB_LIMITS_INTERNAL_H */
