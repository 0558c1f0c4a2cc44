/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/cpus.c's API, how many threads the default is.
 */
#ifndef RCUPOOL_LIB_CPUS_H
#define RCUPOOL_LIB_CPUS_H

#include <stddef.h>

/* The default count and what it was computed from. */
struct rcupl_default_size {
  size_t threads; /* the count, in 1..RCUPOOL_MAX_THREADS */
  size_t mask;    /* CPUs in the calling thread's affinity mask (0: unread) */
  size_t online;  /* CPUs online (0: unread) */
  size_t quota;   /* the cgroup CPU quota in CPUs (0: none) */
  char line[256]; /* "default size N threads: why" */
};

/* Computes the default count now, for the calling thread, logging
 * nothing. Reads a few small files: call without manager locks. */
void rcupl_cpus_compute(struct rcupl_default_size *ds);

/* The default thread count, computed now: performance cores in the calling
 * thread's affinity mask, capped by the cgroup CPU quota, in
 * 1..RCUPOOL_MAX_THREADS (cpus.c says how). Logs how it was chosen (info
 * when that changed). Reads a few small files: call without manager locks. */
size_t rcupl_cpus_thread_count(void);

/* RCUPOOL_NUM_THREADS when it holds a count in 1..RCUPOOL_MAX_THREADS,
 * else 0 (an invalid value is logged). Read by rcupool_default() only. */
size_t rcupl_cpus_env_thread_count(void);

/* fork (lib/fork.c, FORK-2): prepare takes cpus_lock (a leaf lock, held
 * for a compare and a copy of the sizing line), parent and child release
 * it. */
void rcupl_cpus_fork_prepare(void);
void rcupl_cpus_fork_parent(void);
void rcupl_cpus_fork_child(void);

#endif /* RCUPOOL_LIB_CPUS_H */
