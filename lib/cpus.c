/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * How many threads the default is: the count a pool gets when nobody named
 * one, and the RCUPOOL_NUM_THREADS override.
 *
 *   count = performance cores (cpuinfo's cores, whose first processor in
 *           the mask is a performance CPU, lib/classes.c) with a
 *           processor in the calling thread's affinity mask
 *           (sched_getaffinity)
 *           - no performance core in the mask: every core in the mask;
 *           - cpuinfo unavailable, or it knows none of the mask's CPUs:
 *             the number of CPUs in the mask;
 *         then capped by the CPUs online and by the CPU quota of the
 *         process's cgroup (read by lib/limits.c, LIMITS-1), at least 1.
 *
 * Invariants kept here:
 *   CPUS-1. Every count rcupl_cpus_thread_count() returns is in
 *           1..RCUPOOL_MAX_THREADS, whatever the files hold.
 *   CPUS-2. The line saying how the count was chosen is logged at info
 *           level when it differs from the last one logged (so once for a
 *           process whose limits never change), at debug level otherwise.
 *           last_line is under cpus_lock; a test that installs another
 *           cgroup root (rcupl_cpus_set_cgroup_root) forgets it.
 *   CPUS-3. RCUPOOL_NUM_THREADS is read only by rcupl_cpus_env_thread_count();
 *           an invalid value is logged and reads as "unset" (0).
 */
#define _GNU_SOURCE
#include <cpuinfo.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "classes.h"
#include "cpus.h"
#include "fault.h"
#include "limits_internal.h"
#include "lock.h"
#include "log_internal.h"
#include "rcupool/rcupool.h"
#include "testing.h"

static pthread_mutex_t cpus_lock = PTHREAD_MUTEX_INITIALIZER;
static char last_line[256];

void rcupl_cpus_set_cgroup_root(const char *root) {
  rcupl_limits_set_cgroup_root(root);
  rcupl_mutex_lock(&cpus_lock);
  last_line[0] = '\0';
  rcupl_mutex_unlock(&cpus_lock);
}

/* --- cores in the affinity mask ------------------------------------------- */

/* The calling thread's affinity mask, allocated; NULL if it cannot be read.
 * *bytes is its size. */
static cpu_set_t *rcupl_affinity_mask(size_t *bytes) {
  for (int cpus = 1024; cpus <= (1 << 16); cpus *= 2) {
    cpu_set_t *set = CPU_ALLOC(cpus);
    if (set == NULL) return NULL;
    size_t size = CPU_ALLOC_SIZE(cpus);
    if (sched_getaffinity(0, size, set) == 0) {
      *bytes = size;
      return set;
    }
    CPU_FREE(set);
    if (errno != EINVAL) return NULL;
  }
  return NULL;
}

struct rcupl_cores {
  size_t performance; /* performance cores with a processor in the mask */
  size_t any;         /* cores with a processor in the mask */
};

/* Counts cpuinfo's cores in the mask (mask NULL: every core). False when
 * cpuinfo cannot initialise. */
static bool rcupl_cores_in_mask(const cpu_set_t *mask, size_t bytes,
                                struct rcupl_cores *out) {
  out->performance = out->any = 0;
  if (rcupl_fault(RCUPL_FAULT_CPUINFO) || !cpuinfo_initialize()) return false;
  uint32_t ncores = cpuinfo_get_cores_count();
  uint32_t nprocs = cpuinfo_get_processors_count();
  const struct cpuinfo_core *cores = cpuinfo_get_cores();
  const struct cpuinfo_processor *procs = cpuinfo_get_processors();
  if (ncores == 0 || cores == NULL || procs == NULL) return false;
  /* Performance cores: those whose first processor in the mask is of the
   * performance class (lib/classes.c: sysfs, cpuinfo, RCUPOOL_CPU_CLASSES;
   * one class where all are alike, so every core counts). */
  const struct rcupl_classes *classes = rcupl_classes_get();
  for (uint32_t i = 0; i < ncores; i++) {
    int first = -1;
    for (uint32_t j = 0; first < 0 && j < cores[i].processor_count; j++) {
      uint32_t k = cores[i].processor_start + j;
      if (k >= nprocs) break;
      int id = procs[k].linux_id;
      if (id >= 0 && (mask == NULL || CPU_ISSET_S((size_t)id, bytes, mask)))
        first = id;
    }
    if (first < 0) continue;
    out->any++;
    if (rcupl_cpuset_has(&classes->performance, (unsigned)first))
      out->performance++;
  }
  return true;
}

static size_t rcupl_clamp(size_t n) {
  if (n < 1) return 1;
  return n > RCUPOOL_MAX_THREADS ? RCUPOOL_MAX_THREADS : n;
}

/* "1 CPU", "2 CPUs". */
#define RCUPL_PLURAL(n, one, many) ((n) == 1 ? (one) : (many))

void rcupl_cpus_compute(struct rcupl_default_size *ds) {
  size_t bytes = 0;
  cpu_set_t *mask = rcupl_affinity_mask(&bytes);
  bool have_mask = mask != NULL;
  size_t in_mask = have_mask ? (size_t)CPU_COUNT_S(bytes, mask) : 0;
  struct rcupl_cores cores;
  bool have_cpuinfo = rcupl_cores_in_mask(mask, bytes, &cores);
  if (have_mask) CPU_FREE(mask);

  char why[160];
  size_t n;
  char of_mask[48];
  if (have_mask)
    snprintf(of_mask, sizeof of_mask, "in the affinity mask of %zu %s", in_mask,
             RCUPL_PLURAL(in_mask, "CPU", "CPUs"));
  else
    snprintf(of_mask, sizeof of_mask, "(affinity mask unreadable)");
  if (have_cpuinfo && cores.performance > 0) {
    n = cores.performance;
    snprintf(why, sizeof why, "%zu performance %s %s", n,
             RCUPL_PLURAL(n, "core", "cores"), of_mask);
  } else if (have_cpuinfo && cores.any > 0) {
    n = cores.any;
    snprintf(why, sizeof why, "%zu %s %s (none of them a performance core)", n,
             RCUPL_PLURAL(n, "core", "cores"), of_mask);
  } else if (have_mask) {
    n = in_mask;
    snprintf(why, sizeof why, "%s the affinity mask's %zu %s",
             have_cpuinfo ? "cpuinfo knows none of" : "no cpuinfo; counted",
             in_mask, RCUPL_PLURAL(in_mask, "CPU", "CPUs"));
  } else {
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    n = online > 0 ? (size_t)online : 1;
    snprintf(why, sizeof why, "no cpuinfo, no affinity mask: %zu online %s", n,
             RCUPL_PLURAL(n, "CPU", "CPUs"));
  }
  n = rcupl_clamp(n);
  struct rcupl_cpuset online_set;
  ds->online =
      rcupl_cpuset_online(&online_set) ? rcupl_cpuset_count(&online_set) : 0;
  if (ds->online != 0 && ds->online < n) {
    n = ds->online;
    size_t len = strlen(why);
    snprintf(why + len, sizeof why - len, "; %zu %s online", ds->online,
             RCUPL_PLURAL(ds->online, "CPU", "CPUs"));
  }
  ds->mask = in_mask;

  size_t quota = rcupl_limits_cpu_quota();
  ds->quota = quota;
  if (quota != 0) {
    if (quota < n) n = quota;
    snprintf(ds->line, sizeof ds->line,
             "default size %zu %s: %s; cgroup quota %zu %s", n,
             RCUPL_PLURAL(n, "thread", "threads"), why, quota,
             RCUPL_PLURAL(quota, "CPU", "CPUs"));
  } else {
    snprintf(ds->line, sizeof ds->line,
             "default size %zu %s: %s; no cgroup quota", n,
             RCUPL_PLURAL(n, "thread", "threads"), why);
  }
  ds->threads = n;
}

size_t rcupl_cpus_thread_count(void) {
  struct rcupl_default_size ds;
  rcupl_cpus_compute(&ds);
  rcupl_mutex_lock(&cpus_lock);
  rcupl_hold_point(RCUPL_HOLD_CPUS_LOCK);
  bool fresh = strcmp(ds.line, last_line) != 0;
  if (fresh) memcpy(last_line, ds.line, sizeof last_line);
  rcupl_mutex_unlock(&cpus_lock);
  rcupl_log(fresh ? RCUPOOL_LOG_INFO : RCUPOOL_LOG_DEBUG, "%s", ds.line);
  return ds.threads;
}

void rcupl_cpus_fork_prepare(void) { rcupl_mutex_lock(&cpus_lock); }
void rcupl_cpus_fork_parent(void) { rcupl_mutex_unlock(&cpus_lock); }
void rcupl_cpus_fork_child(void) { rcupl_mutex_unlock(&cpus_lock); }

/* --- RCUPOOL_NUM_THREADS --------------------------------------------------- */

size_t rcupl_cpus_env_thread_count(void) {
  const char *text = getenv(RCUPOOL_ENV_NUM_THREADS);
  if (text == NULL || text[0] == '\0') return 0; /* unset, or set empty */
  const char *s = text;
  while (*s == ' ' || *s == '\t') s++;
  char *end = NULL;
  errno = 0;
  long v = (*s >= '0' && *s <= '9') ? strtol(s, &end, 10) : -1;
  if (end != NULL)
    while (*end == ' ' || *end == '\t' || *end == '\n') end++;
  if (v < 1 || v > RCUPOOL_MAX_THREADS || errno != 0 || end == NULL ||
      *end != '\0') {
    rcupl_log(RCUPOOL_LOG_WARN,
              "%s=\"%.32s\" is not a thread count in 1..%d; ignored",
              RCUPOOL_ENV_NUM_THREADS, text, RCUPOOL_MAX_THREADS);
    return 0;
  }
  rcupl_log(RCUPOOL_LOG_INFO, "default size %ld %s: %s=%ld", v,
            v == 1 ? "thread" : "threads", RCUPOOL_ENV_NUM_THREADS, v);
  return (size_t)v;
}
