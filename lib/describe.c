/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcupool_describe(): what a pool would get in this process, as text, for
 * the rcupool_info tool (tools/rcupool_info.c) and for users who ask "why this size, where".
 *
 * Invariants kept here:
 *   DESCRIBE-1. It creates no manager and no thread, takes no manager
 *       lock, and changes nothing but the log (and the classes' snapshot
 *       where the CPUs present changed, CLASSES-1): the default size's line is
 *       computed without logging (rcupl_cpus_compute), the environment is
 *       read and checked as rcupool_default() would read it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classes.h"
#include "classes_detect.h"
#include "cpus.h"
#include "cpuset.h"
#include "env.h"
#include "log_deliver.h"
#include "machine.h"

int rcupool_describe(char *buf, size_t size) {
  if (buf == NULL && size > 0) return -EINVAL;
  char perf[256], eff[256], mask[256], online[256];
  char root[PATH_MAX];
  rcupl_machine_root(root, sizeof root);
  struct rcupl_cpuset set;
  if (rcupl_machine_mask(root, &set))
    rcupl_cpuset_format(&set, mask, sizeof mask);
  else
    snprintf(mask, sizeof mask, "unreadable");
  size_t mask_n = rcupl_cpuset_count(&set);
  if (rcupl_cpuset_online(&set))
    rcupl_cpuset_format(&set, online, sizeof online);
  else
    snprintf(online, sizeof online, "unreadable");
  struct rcupl_default_size ds;
  rcupl_cpus_compute(&ds, RCUPOOL_DEFAULT_RULE_CORES);
  struct rcupl_classes c; /* after the look at the CPUs present (compute) */
  rcupl_classes_get(&c);
  rcupl_cpuset_format(&c.performance, perf, sizeof perf);
  rcupl_cpuset_format(&c.efficiency, eff, sizeof eff);
  char quota[64], cores[160];
  if (ds.quota == 0) {
    snprintf(quota, sizeof quota, "none");
  } else {
    char q[32];
    rcupl_cpus_format_quota(ds.quota_exact, q, sizeof q);
    snprintf(quota, sizeof quota, "%s %s -> %zu %s", q,
             strcmp(q, "1") == 0 ? "CPU" : "CPUs", ds.quota,
             ds.quota == 1 ? "thread" : "threads");
  }
  snprintf(cores, sizeof cores, "%zu (%zu performance), from %s", ds.cores,
           ds.performance, ds.core_source[0] ? ds.core_source : "-");

  /* The environment through the parsers rcupool_default() uses (ENV-1,
   * CPUS-3): the same warnings, the same values. */
  const size_t env_n = rcupl_cpus_env_thread_count();
  rcupool_placement_t pl;
  char placement[96], text[64], count[96];
  const int env_p = rcupl_env_placement(&pl);
  if (env_p == 1) rcupool_placement_format(&pl, text, sizeof text);
  snprintf(placement, sizeof placement, "%s (%s%s)", env_p == 1 ? text : "none",
           RCUPOOL_ENV_PLACEMENT,
           env_p == 1   ? ""
           : env_p == 0 ? " unset"
                        : " ignored");
  rcupool_follow_t follow = RCUPOOL_FOLLOW_DEFAULT;
  rcupl_env_follow(&follow);
  if (env_n != 0) { /* the line rcupool_default() logs */
    snprintf(ds.line, sizeof ds.line, "default size %zu %s: %s=%zu", env_n,
             env_n == 1 ? "thread" : "threads", RCUPOOL_ENV_NUM_THREADS, env_n);
    snprintf(count, sizeof count, "%s=%zu (a chosen count never follows)",
             RCUPOOL_ENV_NUM_THREADS, env_n);
  } else {
    snprintf(count, sizeof count, "default size");
  }

  int n =
      snprintf(buf, size,
               "cpu classes: performance %s; efficiency %s (%s)\n"
               "affinity mask: %s (%zu %s)\n"
               "cpus online: %s\n"
               "cgroup quota: %s\n"
               "cores: %s\n"
               "%s\n"
               "default manager: %s; placement %s; follows the limits: %s\n",
               perf, eff, c.source, mask, mask_n, mask_n == 1 ? "CPU" : "CPUs",
               online, quota, cores, ds.line, count, placement,
               env_n != 0 ? "no (" RCUPOOL_ENV_NUM_THREADS " set)"
               : follow == RCUPOOL_FOLLOW_OFF ? "no (" RCUPOOL_ENV_FOLLOW "=0)"
                                              : "yes");
  rcupl_log_deliver();
  return n;
}
