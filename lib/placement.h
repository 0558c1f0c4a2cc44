/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/placement.c's API: a placement's identity, its CPUs now,
 * and the binding of a pool's workers.
 */
#ifndef RCUPOOL_LIB_PLACEMENT_H
#define RCUPOOL_LIB_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>

#include "cpuset.h"
#include "rcupool/rcupool.h"

/* 0 when pl is a placement (a policy of rcupool_place_t; RCUPOOL_PLACE_CPUS
 * with at least one CPU); -EINVAL otherwise. Logs nothing. */
int rcupl_placement_check(const rcupool_placement_t *pl);

/* pl with the cpus of every policy but RCUPOOL_PLACE_CPUS cleared and
 * strict 0 or 1 (0 for RCUPOOL_PLACE_NONE), so two placements of one identity are equal byte for
 * byte. pl must have passed rcupl_placement_check(). */
void rcupl_placement_normalise(rcupool_placement_t *pl);

/* The identity test of a pool (PLACE-1): both normalised. */
static inline bool rcupl_placement_equal(const rcupool_placement_t *a,
                                         const rcupool_placement_t *b) {
  if (a->policy != b->policy || a->strict != b->strict) return false;
  if (a->policy != RCUPOOL_PLACE_CPUS) return true;
  for (size_t i = 0; i < RCUPL_CPUSET_WORDS; i++)
    if (a->cpus[i] != b->cpus[i]) return false;
  return true;
}

/* The CPUs a pool placed by pl may run on, now, for the calling thread
 * (PLACE-2). Returns 0 and fills *out (*bind false for
 * RCUPOOL_PLACE_NONE: no binding), or -EINVAL when a RCUPOOL_PLACE_CPUS
 * set has no CPU left in the mask and online (logged at error level with
 * `call`). Reads the mask and a sysfs file: call without manager locks. */
int rcupl_placement_resolve(const rcupool_placement_t *pl, const char *call,
                            struct rcupl_cpuset *out, bool *bind);

/* Whether a pool placed by pl could be placed now by the calling thread
 * (PLACE-2): false only for a RCUPOOL_PLACE_CPUS set with no CPU in the
 * mask and online, which rcupl_placement_resolve() refuses. Logs nothing;
 * reads the mask and a sysfs file: call without manager locks. For the
 * checks made before any pool starts (rcupool_create(), the environment,
 * lib/env.c), whatever the count. */
bool rcupl_placement_can_place(const rcupool_placement_t *pl);

/* Binds the calling thread, worker number k (0-based) of a pool placed on
 * `cpus` (strict: its k-th CPU, round robin), and reads the binding back
 * (PLACE-3). True when the thread's mask is now what was asked. */
bool rcupl_placement_bind_worker(const struct rcupl_cpuset *cpus, bool strict,
                                 size_t k);

#endif /* RCUPOOL_LIB_PLACEMENT_H */
