/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/cores.c's API, the cores of a set of CPUs as the kernel (or
 * else cpuinfo) groups them.
 */
#ifndef RCUPOOL_LIB_CORES_H
#define RCUPOOL_LIB_CORES_H

#include <stdbool.h>
#include <stddef.h>

#include "classes_detect.h"
#include "cpuset.h"

/* Where a core count came from. */
enum rcupl_cores_source {
  RCUPL_CORES_KERNEL = 0,  /* sysfs topology (core_cpus_list or siblings) */
  RCUPL_CORES_CPUINFO = 1, /* cpuinfo's cores (the kernel gave none) */
  RCUPL_CORES_CPUS = 2,    /* neither: each CPU counted as a core */
};

struct rcupl_cores {
  size_t any;         /* cores with a CPU in the set */
  size_t performance; /* of them, cores with a performance CPU in the set */
  enum rcupl_cores_source source;
  /* cpuinfo's count of the same (real machine only): -1 not asked (a
   * test's machine root), -2 cpuinfo unavailable, else its cores. */
  long cpuinfo_any;
};

/* Groups the CPUs of `cpus` (the affinity mask's CPUs online) into cores,
 * reading the topology under `root` (lib/machine.c) and, with the real
 * root, cpuinfo, whose count is kept for comparison. */
void rcupl_cores_count(const char *root, const struct rcupl_cpuset *cpus,
                       const struct rcupl_classes *classes,
                       struct rcupl_cores *out);

/* "kernel topology", "kernel topology; cpuinfo reads 1 core", "cpuinfo; no
 * kernel topology"...: the source of out's count, for the sizing line. */
void rcupl_cores_describe(const struct rcupl_cores *c, char *buf, size_t len);

#endif /* RCUPOOL_LIB_CORES_H */
