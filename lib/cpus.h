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
  size_t quota;   /* the cgroup CPU quota in CPUs, rounded up (0: none) */
  double quota_exact;   /* the same unrounded ("1.5"; 0: none) */
  size_t cores;         /* cores among the mask's CPUs online (0: unread) */
  size_t performance;   /* of them, performance cores */
  char core_source[96]; /* "kernel topology; cpuinfo reads 1 core" */
  char line[384];       /* "default size N threads: why" */
};

/* Computes the default count now by `rule` (RCUPOOL_DEFAULT_RULE_*), for
 * the calling thread, logging nothing. Reads a few small files: call
 * without manager locks. */
void rcupl_cpus_compute(struct rcupl_default_size *ds, int rule);

/* The default thread count, computed now by `rule`: performance cores (or
 * processors) in the calling thread's affinity mask, capped by the cgroup
 * CPU quota, in 1..RCUPOOL_MAX_THREADS (cpus.c says how). Logs how it was
 * chosen (info when that changed). Reads a few small files: call without
 * manager locks. */
size_t rcupl_cpus_thread_count(int rule);

/* A quota in CPUs as the line prints it: "1.5", "2", "0.25". */
void rcupl_cpus_format_quota(double exact, char *buf, size_t len);

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
