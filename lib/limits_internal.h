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
 * read now under the installed cgroup root. Reads a few small files: call
 * without manager locks. */
size_t rcupl_limits_cpu_quota(void);

/* The root the cgroup files are read under (NULL or "": the real ones);
 * the test hook rcupl_cpus_set_cgroup_root() sets it. */
void rcupl_limits_set_cgroup_root(const char *root);

/* True when `threads` more threads were just seen to start (LIMITS-2):
 * before a pool of threads + 1 threads starts. */
bool rcupl_limits_threads_can_start(size_t threads);

/* fork (lib/fork.c, FORK-2): prepare takes limits_lock (a leaf lock, held
 * for a copy of the cgroup root), parent and child release it. */
void rcupl_limits_fork_prepare(void);
void rcupl_limits_fork_parent(void);
void rcupl_limits_fork_child(void);

#endif /* RCUPOOL_LIB_LIMITS_INTERNAL_H */
