/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Cores: the CPUs of a set grouped into cores, as the kernel sees them.
 *
 * Each CPU's core is the lowest CPU of its
 * /sys/devices/system/cpu/cpuN/topology/core_cpus_list, else of its
 * thread_siblings_list (kernels before 5.7), read under the machine root
 * at every look, so CPUs that come online or go offline count at once.
 * Where a CPU of the set has neither file, the kernel says nothing and
 * cpuinfo's cores are counted instead (real machine only: cpuinfo never
 * reads a test's tree, and its processor list is fixed at its first
 * initialisation); where cpuinfo cannot help either, every CPU is counted
 * as a core. A core is a performance core when one of its CPUs in the set
 * is a performance CPU (lib/classes.c).
 *
 * Invariants kept here:
 *   CORES-1. The kernel's topology wins over cpuinfo's whenever it covers
 *       every CPU of the set; cpuinfo's count is read beside it (real
 *       machine) so the sizing line can name both where they differ
 *       (cpuinfo groups x86 cores from CPUID alone and may see 1 core
 *       where the kernel sees 2).
 *   CORES-2. Counts are bounded by the CPUs of the set: a core is keyed by
 *       a CPU number, and a key outside the set's range is never made.
 */
#include <cpuinfo.h>
#include <stdio.h>
#include <string.h>

#include "classes_detect.h"
#include "cores.h"
#include "cpuset.h"
#include "fault.h"
#include "machine.h"

/* Test hook (rcupl_cores_fake_cpuinfo): under a fake machine root, what
 * cpuinfo "reads", -1 for not asked. Set while the library is idle; read
 * on the threads that size a pool or describe the machine, which the
 * library starts after it or which the setter itself runs. */
static long rcupl_cores_test_cpuinfo = -1;

void rcupl_cores_fake_cpuinfo(long cores) { rcupl_cores_test_cpuinfo = cores; }

/* The key of cpu's core: the lowest CPU of its sibling list; false when
 * the kernel gives neither list. */
static bool rcupl_core_key(const char *root, unsigned cpu, unsigned *key) {
  static const char *const files[] = {"core_cpus_list", "thread_siblings_list"};
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    char path[160];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%u/topology/%s",
             cpu, files[i]);
    struct rcupl_cpuset sib;
    if (!rcupl_machine_cpus(root, path, &sib)) continue;
    for (unsigned c = 0; c < RCUPOOL_PLACEMENT_MAX_CPUS; c++)
      if (rcupl_cpuset_has(&sib, c)) {
        *key = c;
        return true;
      }
  }
  return false;
}

static bool rcupl_cores_kernel(const char *root,
                               const struct rcupl_cpuset *cpus,
                               const struct rcupl_classes *classes,
                               struct rcupl_cores *out) {
  struct rcupl_cpuset keys, perf_keys;
  memset(&keys, 0, sizeof keys);
  memset(&perf_keys, 0, sizeof perf_keys);
  for (unsigned c = 0; c < RCUPOOL_PLACEMENT_MAX_CPUS; c++) {
    if (!rcupl_cpuset_has(cpus, c)) continue;
    unsigned key;
    if (!rcupl_core_key(root, c, &key)) return false;
    rcupl_cpuset_add(&keys, key);
    if (rcupl_cpuset_has(&classes->performance, c))
      rcupl_cpuset_add(&perf_keys, key);
  }
  out->any = rcupl_cpuset_count(&keys);
  out->performance = rcupl_cpuset_count(&perf_keys);
  return out->any > 0;
}

/* cpuinfo's cores with a processor in cpus; false when cpuinfo cannot
 * initialise or knows none of them. */
static bool rcupl_cores_cpuinfo(const struct rcupl_cpuset *cpus,
                                const struct rcupl_classes *classes,
                                size_t *any, size_t *performance) {
  *any = *performance = 0;
  if (rcupl_fault(RCUPL_FAULT_CPUINFO) || !cpuinfo_initialize()) return false;
  uint32_t ncores = cpuinfo_get_cores_count();
  uint32_t nprocs = cpuinfo_get_processors_count();
  const struct cpuinfo_core *cores = cpuinfo_get_cores();
  const struct cpuinfo_processor *procs = cpuinfo_get_processors();
  if (ncores == 0 || cores == NULL || procs == NULL) return false;
  for (uint32_t i = 0; i < ncores; i++) {
    bool in = false, perf = false;
    for (uint32_t j = 0; j < cores[i].processor_count; j++) {
      uint32_t k = cores[i].processor_start + j;
      if (k >= nprocs) break;
      int id = procs[k].linux_id;
      if (id < 0 || !rcupl_cpuset_has(cpus, (unsigned)id)) continue;
      in = true;
      perf = perf || rcupl_cpuset_has(&classes->performance, (unsigned)id);
    }
    *any += in;
    *performance += perf;
  }
  return *any > 0;
}

void rcupl_cores_count(const char *root, const struct rcupl_cpuset *cpus,
                       const struct rcupl_classes *classes,
                       struct rcupl_cores *out) {
  size_t ci_any = 0, ci_perf = 0;
  out->cpuinfo_any = -1;
  if (root[0] == '\0')
    out->cpuinfo_any = rcupl_cores_cpuinfo(cpus, classes, &ci_any, &ci_perf)
                           ? (long)ci_any
                           : -2;
  else
    out->cpuinfo_any = rcupl_cores_test_cpuinfo; /* a test's, for the text */
  if (rcupl_cores_kernel(root, cpus, classes, out)) {
    out->source = RCUPL_CORES_KERNEL;
    return;
  }
  if (root[0] == '\0' && out->cpuinfo_any > 0) {
    out->source = RCUPL_CORES_CPUINFO;
    out->any = ci_any;
    out->performance = ci_perf;
    return;
  }
  out->source = RCUPL_CORES_CPUS;
  out->any = rcupl_cpuset_count(cpus);
  out->performance = 0;
  for (unsigned c = 0; c < RCUPOOL_PLACEMENT_MAX_CPUS; c++)
    if (rcupl_cpuset_has(cpus, c) && rcupl_cpuset_has(&classes->performance, c))
      out->performance++;
}

void rcupl_cores_describe(const struct rcupl_cores *c, char *buf, size_t len) {
  const long ci = c->cpuinfo_any;
  switch (c->source) {
    case RCUPL_CORES_KERNEL:
      if (ci == -2)
        snprintf(buf, len, "kernel topology; no cpuinfo");
      else if (ci >= 0 && (size_t)ci != c->any)
        snprintf(buf, len, "kernel topology; cpuinfo reads %ld %s", ci,
                 ci == 1 ? "core" : "cores");
      else
        snprintf(buf, len, "kernel topology");
      break;
    case RCUPL_CORES_CPUINFO:
      snprintf(buf, len, "cpuinfo; no kernel topology");
      break;
    default:
      snprintf(buf, len, "no kernel topology, %s: each CPU counted",
               ci == -1 ? "cpuinfo not read" : "no cpuinfo");
      break;
  }
}
