/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/cpuset.c's API, the CPU sets the library passes around (the
 * classes, the affinity mask, the CPUs present and online).
 */
#ifndef RCUPOOL_LIB_CPUSET_H
#define RCUPOOL_LIB_CPUSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rcupool/rcupool.h"

/* A set of CPUs 0..RCUPOOL_PLACEMENT_MAX_CPUS-1, one bit each. */
#define RCUPL_CPUSET_WORDS (RCUPOOL_PLACEMENT_MAX_CPUS / 64)
struct rcupl_cpuset {
  uint64_t w[RCUPL_CPUSET_WORDS];
};

static inline void rcupl_cpuset_add(struct rcupl_cpuset *s, unsigned cpu) {
  if (cpu < RCUPOOL_PLACEMENT_MAX_CPUS)
    s->w[cpu / 64] |= UINT64_C(1) << (cpu % 64);
}
static inline bool rcupl_cpuset_has(const struct rcupl_cpuset *s,
                                    unsigned cpu) {
  return cpu < RCUPOOL_PLACEMENT_MAX_CPUS &&
         (s->w[cpu / 64] >> (cpu % 64) & 1) != 0;
}
size_t rcupl_cpuset_count(const struct rcupl_cpuset *s);
/* a &= b. */
void rcupl_cpuset_and(struct rcupl_cpuset *a, const struct rcupl_cpuset *b);
/* Writes the set as a CPU list ("0-3,6"; "none" when empty), always
 * NUL-terminated; cut short with "..." when it does not fit. */
void rcupl_cpuset_format(const struct rcupl_cpuset *s, char *buf, size_t len);
/* Parses a CPU list ("0-3,6") into *out; false when malformed or a CPU is
 * at or above RCUPOOL_PLACEMENT_MAX_CPUS. */
bool rcupl_cpuset_parse(const char *text, size_t len, struct rcupl_cpuset *out);

/* The calling thread's real affinity mask (sched_getaffinity, whatever
 * machine root a test installed: the mask a worker is bound with); false
 * if it cannot be read. */
bool rcupl_cpuset_affinity(struct rcupl_cpuset *out);

#endif /* RCUPOOL_LIB_CPUSET_H */
