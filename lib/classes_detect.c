/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Detection of core classes: which CPUs present are performance CPUs and
 * which efficiency CPUs, as the machine's files say (lib/classes.c keeps
 * the snapshot of them, RCUPOOL_CPU_CLASSES and the queries). Every file is
 * read under the root the caller gives (lib/machine.c's seam).
 *
 * The rule (docs/placement.md states it with the machines it was checked
 * on). Over the CPUs present (/sys/devices/system/cpu/present), the first
 * of these sources that tells two kinds of CPU apart decides:
 *   1. Intel hybrid: /sys/devices/cpu_atom/cpus and /sys/devices/cpu_core/cpus
 *      both list CPUs: the cpu_atom CPUs (E-cores) are efficiency, every
 *      other CPU performance.
 *   2. arm64 MIDR (cpuN/regs/identification/midr_el1, on every CPU online):
 *      the little cores are efficiency: implementer 0x41 (Arm) with part
 *      0xd03 (Cortex-A53), 0xd05 (A55), 0xd46 (A510) or 0xd80 (A520), and
 *      implementer 0x61 (Apple) with an efficiency part (0x022, 0x024,
 *      0x028, 0x032, 0x034, 0x038: Icestorm and Blizzard). Every other core,
 *      of whatever tier, is performance. Where the MIDR is readable it
 *      decides even when it finds no little core (an all-big phone is one
 *      class) or only little ones (one class: no faster core exists).
 *   3. A value per CPU, from the first of cpu_capacity,
 *      acpi_cppc/highest_perf, cpufreq/cpuinfo_max_freq, and (real machine
 *      only) cpuinfo's core frequency that has one for every CPU online and
 *      splits them into two tiers or more. Tiers: the distinct values in
 *      ascending order, a new tier starting where a value is more than 10%
 *      above the one before it (v * 10 > prev * 11); so values in a chain
 *      of steps of 10% or less are one tier (favoured cores 4.6/4.8 GHz,
 *      CPPC rankings 166..236 in steps of about 3%), while 446/1024 and
 *      160/498/1024 are two and three tiers. The lowest tier is
 *      efficiency, every higher tier performance. A source whose values
 *      are one tier (all equal, say) says nothing: the next is read.
 *   Nothing decides: every CPU present is performance (one class). A CPU
 *   present but offline with no value of the deciding source is
 *   performance. A CPU not present has no class.
 *
 * Nothing is kept here: each call reads the files again.
 */
#define _GNU_SOURCE
#include <cpuinfo.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "classes_detect.h"
#include "cpuset.h"
#include "machine.h"
#include "rcupool/rcupool.h"

/* --- per-CPU values ------------------------------------------------------- */

/* One number per CPU of `cpus` from cpuN/<file> (base 10, or 16 with
 * hex); CPUs without the file are left out of *have. False unless every
 * CPU of `need` has one. */
static bool rcupl_read_per_cpu(const char *root,
                               const struct rcupl_cpuset *cpus,
                               const struct rcupl_cpuset *need,
                               const char *file, int base, uint64_t *values,
                               struct rcupl_cpuset *have) {
  memset(have, 0, sizeof *have);
  for (unsigned c = 0; c < RCUPOOL_PLACEMENT_MAX_CPUS; c++) {
    if (!rcupl_cpuset_has(cpus, c)) continue;
    char path[160], text[64];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%u/%s", c, file);
    char *end = NULL;
    errno = 0;
    unsigned long long v = 0;
    if (rcupl_machine_read(root, path, text, sizeof text))
      v = strtoull(text, &end, base);
    if (end == NULL || errno != 0 || end == text || *end != '\0' ||
        (v == 0 && base == 10)) {
      if (rcupl_cpuset_has(need, c)) return false;
      continue;
    }
    values[c] = v;
    rcupl_cpuset_add(have, c);
  }
  return true;
}

/* cpuinfo's core frequency per CPU (Linux id); false unless known for
 * every CPU of `need`. Only with the real files (cpuinfo reads the real
 * machine, not a test's tree). */
static bool rcupl_read_cpuinfo_freq(const struct rcupl_cpuset *need,
                                    uint64_t *values,
                                    struct rcupl_cpuset *have) {
  memset(have, 0, sizeof *have);
  if (!cpuinfo_initialize()) return false;
  uint32_t n = cpuinfo_get_processors_count();
  const struct cpuinfo_processor *procs = cpuinfo_get_processors();
  if (procs == NULL || n == 0) return false;
  for (uint32_t i = 0; i < n; i++) {
    int id = procs[i].linux_id;
    if (id < 0 || id >= RCUPOOL_PLACEMENT_MAX_CPUS || procs[i].core == NULL ||
        procs[i].core->frequency == 0)
      continue;
    values[id] = procs[i].core->frequency;
    rcupl_cpuset_add(have, (unsigned)id);
  }
  for (size_t i = 0; i < RCUPL_CPUSET_WORDS; i++)
    if ((need->w[i] & ~have->w[i]) != 0) return false;
  return true;
}

/* --- the sources ---------------------------------------------------------- */

/* 1. Intel hybrid: the kernel's lists of E-cores and P-cores. */
static bool rcupl_classes_hybrid(const char *root,
                                 const struct rcupl_cpuset *present,
                                 struct rcupl_classes *c) {
  struct rcupl_cpuset atom, core;
  if (!rcupl_machine_cpus(root, "/sys/devices/cpu_atom/cpus", &atom) ||
      !rcupl_machine_cpus(root, "/sys/devices/cpu_core/cpus", &core))
    return false;
  rcupl_cpuset_and(&atom, present);
  rcupl_cpuset_and(&core, present);
  if (rcupl_cpuset_count(&atom) == 0 || rcupl_cpuset_count(&core) == 0)
    return false;
  for (size_t i = 0; i < RCUPL_CPUSET_WORDS; i++) {
    c->efficiency.w[i] = atom.w[i];
    c->performance.w[i] = present->w[i] & ~atom.w[i];
  }
  snprintf(c->source, sizeof c->source, "cpu_atom/cpu_core lists");
  return true;
}

/* Whether a MIDR is of a little core (ExecuTorch's and the kernel's sense:
 * in-order Arm cores and Apple's efficiency cores). */
static bool rcupl_midr_is_little(uint64_t midr) {
  unsigned implementer = (unsigned)(midr >> 24) & 0xff;
  unsigned part = (unsigned)(midr >> 4) & 0xfff;
  if (implementer == 0x41)
    return part == 0xd03 || part == 0xd05 || part == 0xd46 || part == 0xd80;
  if (implementer == 0x61)
    return part == 0x022 || part == 0x024 || part == 0x028 || part == 0x032 ||
           part == 0x034 || part == 0x038;
  return false;
}

/* 2. arm64: the MIDR of every CPU online. */
static bool rcupl_classes_midr(const char *root,
                               const struct rcupl_cpuset *present,
                               const struct rcupl_cpuset *need,
                               uint64_t *values, struct rcupl_classes *c) {
  struct rcupl_cpuset have;
  if (!rcupl_read_per_cpu(root, present, need, "regs/identification/midr_el1",
                          16, values, &have) ||
      rcupl_cpuset_count(&have) == 0)
    return false;
  size_t little = 0;
  for (unsigned i = 0; i < RCUPOOL_PLACEMENT_MAX_CPUS; i++)
    if (rcupl_cpuset_has(&have, i) && rcupl_midr_is_little(values[i])) little++;
  const bool split = little > 0 && little < rcupl_cpuset_count(&have);
  for (unsigned i = 0; split && i < RCUPOOL_PLACEMENT_MAX_CPUS; i++) {
    if (!rcupl_cpuset_has(&have, i) || !rcupl_midr_is_little(values[i]))
      continue;
    c->performance.w[i / 64] &= ~(UINT64_C(1) << (i % 64));
    rcupl_cpuset_add(&c->efficiency, i);
  }
  snprintf(c->source, sizeof c->source, "MIDR, %s",
           split         ? "little cores efficiency"
           : little == 0 ? "no little core: one class"
                         : "all little cores: one class");
  return true;
}

static int rcupl_cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* 3. Tiers of a value (the 10% rule above). False when the values are one
 * tier (the source says nothing); else the lowest tier is efficiency. */
static bool rcupl_classes_tiers(const struct rcupl_cpuset *have,
                                const uint64_t *values, const char *name,
                                struct rcupl_classes *c) {
  size_t n = 0;
  uint64_t sorted[RCUPOOL_PLACEMENT_MAX_CPUS];
  for (unsigned i = 0; i < RCUPOOL_PLACEMENT_MAX_CPUS; i++)
    if (rcupl_cpuset_has(have, i)) sorted[n++] = values[i];
  if (n == 0) return false;
  qsort(sorted, n, sizeof *sorted, rcupl_cmp_u64);
  size_t tiers = 1;
  uint64_t lowest_top = 0; /* the largest value of the lowest tier */
  for (size_t i = 1; i < n; i++) {
    /* More than 10% above the one before: 10 * (v - prev) > prev,
     * exactly, in integers and without overflow. */
    if (sorted[i] - sorted[i - 1] > sorted[i - 1] / 10) {
      if (tiers == 1) lowest_top = sorted[i - 1];
      tiers++;
    }
  }
  if (tiers == 1) return false;
  for (unsigned i = 0; i < RCUPOOL_PLACEMENT_MAX_CPUS; i++) {
    if (!rcupl_cpuset_has(have, i) || values[i] > lowest_top) continue;
    c->performance.w[i / 64] &= ~(UINT64_C(1) << (i % 64));
    rcupl_cpuset_add(&c->efficiency, i);
  }
  snprintf(c->source, sizeof c->source, "%s, %zu tiers", name, tiers);
  return true;
}

/* --- detection ------------------------------------------------------------ */

void rcupl_classes_detect(const char *root, struct rcupl_classes *c) {
  struct rcupl_cpuset present, online;
  if (!rcupl_machine_cpus(root, "/sys/devices/system/cpu/present", &present) ||
      rcupl_cpuset_count(&present) == 0) {
    /* No sysfs: the CPUs the C library counts, one class. */
    long n = root[0] == '\0' ? sysconf(_SC_NPROCESSORS_CONF) : 1;
    if (n < 1) n = 1;
    if (n > RCUPOOL_PLACEMENT_MAX_CPUS) n = RCUPOOL_PLACEMENT_MAX_CPUS;
    memset(&present, 0, sizeof present);
    for (unsigned i = 0; i < (unsigned)n; i++) rcupl_cpuset_add(&present, i);
  }
  /* The CPUs a source must give a value for: those online (all present
   * when the online list is unreadable). */
  struct rcupl_cpuset need = present;
  if (rcupl_machine_cpus(root, "/sys/devices/system/cpu/online", &online))
    rcupl_cpuset_and(&need, &online);
  c->present = present;
  c->performance = present;
  memset(&c->efficiency, 0, sizeof c->efficiency);
  if (rcupl_classes_hybrid(root, &present, c)) return;
  uint64_t *values = calloc(RCUPOOL_PLACEMENT_MAX_CPUS, sizeof(*values));
  if (values == NULL) {
    snprintf(c->source, sizeof c->source, "out of memory; one class");
    return;
  }
  static const char *const files[] = {"cpu_capacity", "acpi_cppc/highest_perf",
                                      "cpufreq/cpuinfo_max_freq"};
  char silent[96] = ""; /* the sources that said nothing */
  bool done = rcupl_classes_midr(root, &present, &need, values, c);
  for (size_t i = 0; !done && i <= sizeof files / sizeof *files; i++) {
    struct rcupl_cpuset have;
    bool got;
    const char *name;
    if (i < sizeof files / sizeof *files) {
      name = files[i];
      got = rcupl_read_per_cpu(root, &present, &need, name, 10, values, &have);
    } else {
      name = "cpuinfo frequency";
      got = root[0] == '\0' && rcupl_read_cpuinfo_freq(&need, values, &have);
    }
    if (!got) continue;
    done = rcupl_classes_tiers(&have, values, name, c);
    if (!done) {
      size_t len = strlen(silent);
      snprintf(silent + len, sizeof silent - len, "%s%s", len ? ", " : "",
               name);
    }
  }
  free(values);
  if (!done)
    snprintf(c->source, sizeof c->source, "%s%s; one class",
             silent[0] ? silent : "no source", silent[0] ? ": one tier" : "");
}
