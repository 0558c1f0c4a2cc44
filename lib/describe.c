/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcupool_describe(): what a pool would get in this process, as text, for
 * the rcupool_info tool (tools/rcupool_info.c) and for users who ask "why this size, where".
 *
 * Invariants kept here:
 *   DESCRIBE-1. It creates no manager and no thread, takes no manager
 *       lock, and changes nothing but the log: the default size's line is
 *       computed without logging (rcupl_cpus_compute), the environment is
 *       read and checked as rcupool_default() would read it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classes.h"
#include "cpus.h"
#include "cpuset.h"
#include "log_internal.h"
#include "machine.h"
#include "placement.h"

int rcupool_describe(char *buf, size_t size) {
  if (buf == NULL && size > 0) return -EINVAL;
  const struct rcupl_classes *c = rcupl_classes_get();
  char perf[256], eff[256], mask[256], online[256];
  rcupl_cpuset_format(&c->performance, perf, sizeof perf);
  rcupl_cpuset_format(&c->efficiency, eff, sizeof eff);
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

  const char *env_n = getenv(RCUPOOL_ENV_NUM_THREADS);
  const char *env_p = getenv(RCUPOOL_ENV_PLACEMENT);
  const char *env_f = getenv(RCUPOOL_ENV_FOLLOW);
  char placement[160];
  rcupool_placement_t pl;
  if (env_p == NULL || env_p[0] == '\0')
    snprintf(placement, sizeof placement, "none (%s unset)",
             RCUPOOL_ENV_PLACEMENT);
  else if (rcupool_placement_parse(env_p, &pl) != 0 ||
           rcupl_placement_check(&pl) != 0)
    snprintf(placement, sizeof placement,
             "none (%s=\"%.64s\" is malformed: ignored)", RCUPOOL_ENV_PLACEMENT,
             env_p);
  else
    snprintf(placement, sizeof placement, "%.64s (%s)", env_p,
             RCUPOOL_ENV_PLACEMENT);
  const bool follow_off = env_f != NULL && strcmp(env_f, "0") == 0;

  int n = snprintf(
      buf, size,
      "cpu classes: performance %s; efficiency %s (%s)\n"
      "affinity mask: %s (%zu %s)\n"
      "cpus online: %s\n"
      "cgroup quota: %s\n"
      "cores: %s\n"
      "%s\n"
      "default manager: %s%s%s; placement %s; follows the limits: %s\n",
      perf, eff, c->source, mask, mask_n, mask_n == 1 ? "CPU" : "CPUs", online,
      quota, cores, ds.line,
      env_n != NULL && env_n[0] != '\0' ? RCUPOOL_ENV_NUM_THREADS "=" : "",
      env_n != NULL && env_n[0] != '\0' ? env_n : "default size",
      env_n != NULL && env_n[0] != '\0'
          ? " (if a count in 1..256; the chosen count never follows)"
          : "",
      placement,
      env_n != NULL && env_n[0] != '\0' ? "no (count chosen)"
      : follow_off                      ? "no (" RCUPOOL_ENV_FOLLOW "=0)"
                                        : "yes");
  rcupl_log_deliver();
  return n;
}
