/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/follow.c's API: a default count that follows the CPU limits
 * while the process runs.
 */
#ifndef RCUPOOL_LIB_FOLLOW_H
#define RCUPOOL_LIB_FOLLOW_H

#include <stdbool.h>
#include <stdint.h>

#include "clock.h"
#include "cpus.h"
#include "manager_state.h"

/* What changed from `from` to `to`, as "affinity mask 2 CPUs -> 1 CPU;
 * cgroup quota none -> 1 CPU" (NUL-terminated). */
void rcupl_follow_describe(const struct rcupl_default_size *from,
                           const struct rcupl_default_size *to, char *buf,
                           size_t len);

/* The check, when due or forced: FOLLOW-1..4 in follow.c. Returns as
 * rcupool_follow_now(). */
int rcupl_follow_check(rcupool_t *m, bool force);

/* The test hook's period (ns; testing.h). */
extern uint64_t rcupl_follow_period_ns;

/* The check a parallel call makes after its work (FOLLOW-3): two loads of
 * m and a coarse clock read unless a check is due. */
static inline void rcupl_follow_maybe(rcupool_t *m) {
  if (!m->follow || __atomic_load_n(&m->chosen, __ATOMIC_RELAXED)) return;
  if (__builtin_expect(rcupl_coarse_now_ns() <
                           __atomic_load_n(&m->follow_due_ns, __ATOMIC_RELAXED),
                       1))
    return;
  rcupl_follow_check(m, false);
}

#endif /* RCUPOOL_LIB_FOLLOW_H */
