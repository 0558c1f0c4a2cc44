/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * How many threads the default is: the count a pool gets when nobody named
 * one, and the RCUPOOL_NUM_THREADS override.
 *
 *   CPUs  = the affinity mask's CPUs that are online (lib/machine.c reads
 *           both under the machine root: sched_getaffinity, or a fake
 *           tree's Cpus_allowed_list, and /sys/devices/system/cpu/online,
 *           at every look, so hotplug counts both ways; each look also
 *           reads /sys/devices/system/cpu/present, and a change there
 *           makes lib/classes.c compute the classes again, CLASSES-1);
 *   count = rule RCUPOOL_DEFAULT_RULE_CORES (the default): the performance
 *           cores with a CPU among them (lib/cores.c: the kernel's
 *           topology, else cpuinfo's cores, else each CPU a core; classes
 *           of lib/classes.c); no performance core among them: every core;
 *           rule RCUPOOL_DEFAULT_RULE_PROCESSORS: the CPUs themselves;
 *         then capped by the CPU quota of the process's cgroup rounded up
 *         (lib/limits.c, LIMITS-1), at least 1. Neither the mask nor the
 *         online list readable: the CPUs the C library sees online.
 *
 * Invariants kept here:
 *   CPUS-1. Every count rcupl_cpus_thread_count() returns is in
 *           1..RCUPOOL_MAX_THREADS, whatever the files hold.
 *   CPUS-2. The line saying how the count was chosen is logged at info
 *           level when it differs from the last one logged (so once for a
 *           process whose limits never change), at debug level otherwise.
 *           last_line is under cpus_lock; a test that installs another
 *           machine or cgroup root (testing.h) forgets it.
 *   CPUS-3. RCUPOOL_NUM_THREADS is read only by rcupl_cpus_env_thread_count();
 *           an invalid value is logged and reads as "unset" (0).
 *   CPUS-4. The line names the source of the core count, and where cpuinfo
 *           and the kernel disagree both readings and which was used
 *           ("2 performance cores (kernel topology; cpuinfo reads 1 core)").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "classes.h"
#include "classes_detect.h"
#include "cores.h"
#include "cpus.h"
#include "cpuset.h"
#include "fault.h"
#include "limits_internal.h"
#include "lock.h"
#include "log_internal.h"
#include "machine.h"
#include "rcupool/rcupool.h"
#include "testing.h"

static pthread_mutex_t cpus_lock = PTHREAD_MUTEX_INITIALIZER;
static char last_line[sizeof((struct rcupl_default_size *)0)->line];

static void rcupl_cpus_forget_line(void) {
  rcupl_mutex_lock(&cpus_lock);
  last_line[0] = '\0';
  rcupl_mutex_unlock(&cpus_lock);
}

void rcupl_cpus_set_cgroup_root(const char *root) {
  rcupl_machine_set_cgroup_root(root);
  rcupl_cpus_forget_line();
}

void rcupl_machine_set_root(const char *root) {
  rcupl_classes_reload(root); /* installs the root, computes the classes */
  rcupl_cpus_forget_line();
}

/* "1 CPU", "2 CPUs". */
#define RCUPL_PLURAL(n, one, many) ((n) == 1 ? (one) : (many))

void rcupl_cpus_format_quota(double exact, char *buf, size_t len) {
  /* Two decimals at most, trailing zeros cut: "1.5", "2", "0.25". */
  snprintf(buf, len, "%.2f", exact);
  char *dot = strchr(buf, '.');
  if (dot == NULL) return;
  size_t n = strlen(buf);
  while (n > 0 && buf[n - 1] == '0') buf[--n] = '\0';
  if (n > 0 && buf[n - 1] == '.') buf[--n] = '\0';
}

static size_t rcupl_clamp(size_t n) {
  if (n < 1) return 1;
  return n > RCUPOOL_MAX_THREADS ? RCUPOOL_MAX_THREADS : n;
}

void rcupl_cpus_compute(struct rcupl_default_size *ds, int rule) {
  char root[PATH_MAX];
  rcupl_machine_root(root, sizeof root);
  struct rcupl_cpuset mask, online, cpus;
  const bool have_mask = rcupl_machine_mask(root, &mask);
  const bool have_online =
      rcupl_machine_cpus(root, "/sys/devices/system/cpu/online", &online);
  rcupl_classes_follow_present(root); /* a CPU added or removed (CLASSES-1) */
  const size_t in_mask = have_mask ? rcupl_cpuset_count(&mask) : 0;
  ds->mask = in_mask;
  ds->online = have_online ? rcupl_cpuset_count(&online) : 0;
  cpus = have_mask ? mask : online;
  if (have_mask && have_online) rcupl_cpuset_and(&cpus, &online);
  const size_t usable = rcupl_cpuset_count(&cpus);

  char why[256], of_mask[96];
  if (have_mask)
    snprintf(of_mask, sizeof of_mask, "in the affinity mask of %zu %s%s",
             in_mask, RCUPL_PLURAL(in_mask, "CPU", "CPUs"),
             have_online && usable < in_mask ? " (online: " : "");
  else
    snprintf(of_mask, sizeof of_mask,
             "of the CPUs online (affinity mask unreadable)");
  if (have_mask && have_online && usable < in_mask) {
    size_t len = strlen(of_mask);
    snprintf(of_mask + len, sizeof of_mask - len, "%zu)", usable);
  }
  size_t n;
  ds->cores = ds->performance = 0;
  ds->core_source[0] = '\0';
  if (!have_mask && !have_online) {
    long on = sysconf(_SC_NPROCESSORS_ONLN);
    n = on > 0 ? (size_t)on : 1;
    snprintf(why, sizeof why,
             "affinity mask and online list unreadable: %zu online %s", n,
             RCUPL_PLURAL(n, "CPU", "CPUs"));
  } else if (rule == RCUPOOL_DEFAULT_RULE_PROCESSORS) {
    n = usable;
    snprintf(why, sizeof why, "%zu %s %s (rule: processors)", n,
             RCUPL_PLURAL(n, "processor", "processors"), of_mask);
  } else {
    struct rcupl_cores cores;
    struct rcupl_classes classes;
    rcupl_classes_get(&classes);
    rcupl_cores_count(root, &cpus, &classes, &cores);
    rcupl_cores_describe(&cores, ds->core_source, sizeof ds->core_source);
    ds->cores = cores.any;
    ds->performance = cores.performance;
    if (cores.performance > 0) {
      n = cores.performance;
      snprintf(why, sizeof why, "%zu performance %s (%s) %s", n,
               RCUPL_PLURAL(n, "core", "cores"), ds->core_source, of_mask);
    } else {
      n = cores.any;
      snprintf(why, sizeof why,
               "%zu %s (%s) %s, none of them a performance core", n,
               RCUPL_PLURAL(n, "core", "cores"), ds->core_source, of_mask);
    }
  }
  n = rcupl_clamp(n);

  struct rcupl_quota quota;
  rcupl_limits_quota(&quota);
  ds->quota = quota.cpus;
  ds->quota_exact = quota.exact;
  if (quota.cpus != 0) {
    char q[32];
    rcupl_cpus_format_quota(quota.exact, q, sizeof q);
    if (quota.cpus < n) n = quota.cpus;
    snprintf(ds->line, sizeof ds->line,
             "default size %zu %s: %s; cgroup quota %s %s -> %zu %s", n,
             RCUPL_PLURAL(n, "thread", "threads"), why, q,
             strcmp(q, "1") == 0 ? "CPU" : "CPUs", quota.cpus,
             RCUPL_PLURAL(quota.cpus, "thread", "threads"));
  } else {
    snprintf(ds->line, sizeof ds->line,
             "default size %zu %s: %s; no cgroup quota", n,
             RCUPL_PLURAL(n, "thread", "threads"), why);
  }
  ds->threads = n;
}

size_t rcupl_cpus_thread_count(int rule) {
  struct rcupl_default_size ds;
  rcupl_cpus_compute(&ds, rule);
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
