/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Placement: where a pool's workers run (rcupool/placement.h), and a
 * pool's identity, which is (width, placement).
 *
 * Invariants kept here:
 *   PLACE-1. A pool's placement is fixed when it starts (pool.h: immutable
 *       like its width) and normalised, so rcupl_placement_equal() is the
 *       one identity test: every search for a pool of a width (a reset's
 *       reuse, RESET-2; a sized or placed pin, SIZED-1) matches width and
 *       placement, and "one live pool per width" is "one live pool per
 *       (width, placement)".
 *   PLACE-2. A placement is resolved against the affinity mask of the
 *       thread that starts the pool and the CPUs online, when it starts:
 *       performance or efficiency takes its class's CPUs in the mask, or
 *       the whole mask when the class has none there (logged at info);
 *       an explicit set is clipped to the mask and the CPUs online
 *       (logged at warning when CPUs were dropped), and is -EINVAL when
 *       none is left. A pool that cannot be placed is not started. A
 *       1-thread pool has no worker and is not resolved at all (nothing is
 *       read or logged: fork's prepare handler starts one). A manager's
 *       placement is checked once before its first pool, whatever the
 *       count (rcupl_placement_can_place): rcupool_create() refuses one
 *       that cannot be placed, and RCUPOOL_PLACEMENT's is ignored with a
 *       warning (lib/env.c).
 *   PLACE-3. Workers are bound by the worker census (lib/worker.c,
 *       WORKER-1), each on its own thread as its first act in the pool,
 *       with sched_setaffinity(0, ...); each reads its mask back with
 *       sched_getaffinity and counts itself bound only when the mask is
 *       the one asked for. A worker that could not be bound runs where
 *       the OS puts it; the pool counts it (bind_failures in stats) and
 *       the start is logged at warning. The thread that starts the pool,
 *       and every thread that later calls a parallel function, is never
 *       bound: it runs its own share where it is (docs/placement.md).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "classes.h"
#include "classes_detect.h"
#include "cpuset.h"
#include "log_internal.h"
#include "machine.h"
#include "placement.h"
#include "plural.h"

int rcupl_placement_check(const rcupool_placement_t *pl) {
  if (pl == NULL) return -EINVAL;
  switch (pl->policy) {
    case RCUPOOL_PLACE_NONE:
    case RCUPOOL_PLACE_PERFORMANCE:
    case RCUPOOL_PLACE_EFFICIENCY:
      return 0;
    case RCUPOOL_PLACE_CPUS:
      for (size_t i = 0; i < RCUPL_CPUSET_WORDS; i++)
        if (pl->cpus[i] != 0) return 0;
      return -EINVAL;
  }
  return -EINVAL;
}

void rcupl_placement_normalise(rcupool_placement_t *pl) {
  rcupool_placement_t n;
  memset(&n, 0, sizeof n);
  n.policy = pl->policy;
  /* Strict means nothing where nothing is bound. */
  n.strict = pl->strict && pl->policy != RCUPOOL_PLACE_NONE;
  if (pl->policy == RCUPOOL_PLACE_CPUS) memcpy(n.cpus, pl->cpus, sizeof n.cpus);
  *pl = n;
}

static const char *rcupl_place_name(rcupool_place_t p) {
  switch (p) {
    case RCUPOOL_PLACE_NONE:
      return "none";
    case RCUPOOL_PLACE_PERFORMANCE:
      return "performance";
    case RCUPOOL_PLACE_EFFICIENCY:
      return "efficiency";
    case RCUPOOL_PLACE_CPUS:
      return "cpus";
  }
  return "?";
}

int rcupool_placement_parse(const char *text, rcupool_placement_t *out) {
  if (text == NULL || out == NULL) return -EINVAL;
  while (*text == ' ' || *text == '\t') text++;
  size_t n = strlen(text);
  while (n > 0 &&
         (text[n - 1] == ' ' || text[n - 1] == '\t' || text[n - 1] == '\n'))
    n--;
  rcupool_placement_t pl;
  memset(&pl, 0, sizeof pl);
  static const char strict[] = ":strict";
  const size_t sn = sizeof strict - 1;
  /* Names compare without case (docs/environment.md). */
  if (n > sn && strncasecmp(text + n - sn, strict, sn) == 0) {
    pl.strict = true;
    n -= sn;
  }
  if (n == 4 && strncasecmp(text, "none", 4) == 0) {
    pl.policy = RCUPOOL_PLACE_NONE;
  } else if (n == 11 && strncasecmp(text, "performance", 11) == 0) {
    pl.policy = RCUPOOL_PLACE_PERFORMANCE;
  } else if (n == 10 && strncasecmp(text, "efficiency", 10) == 0) {
    pl.policy = RCUPOOL_PLACE_EFFICIENCY;
  } else {
    struct rcupl_cpuset set;
    if (!rcupl_cpuset_parse(text, n, &set)) return -EINVAL;
    pl.policy = RCUPOOL_PLACE_CPUS;
    memcpy(pl.cpus, set.w, sizeof pl.cpus);
  }
  *out = pl;
  return 0;
}

int rcupool_placement_format(const rcupool_placement_t *pl, char *buf,
                             size_t size) {
  if (rcupl_placement_check(pl) != 0 || (buf == NULL && size > 0))
    return -EINVAL;
  char text[4096 + 16];
  if (pl->policy == RCUPOOL_PLACE_CPUS) {
    struct rcupl_cpuset set;
    memcpy(set.w, pl->cpus, sizeof set.w);
    rcupl_cpuset_format(&set, text, sizeof text - 8);
  } else {
    snprintf(text, sizeof text, "%s", rcupl_place_name(pl->policy));
  }
  if (pl->strict) strcat(text, ":strict");
  return snprintf(buf, size, "%s", text);
}

int rcupl_placement_resolve(const rcupool_placement_t *pl, const char *call,
                            struct rcupl_cpuset *out, bool *bind) {
  memset(out, 0, sizeof *out);
  *bind = pl->policy != RCUPOOL_PLACE_NONE;
  if (!*bind) return 0;
  struct rcupl_cpuset mask, online;
  if (!rcupl_cpuset_affinity(&mask)) {
    rcupl_log(RCUPOOL_LOG_WARN, "%s: affinity mask unreadable; not placed",
              call);
    *bind = false;
    return 0;
  }
  if (rcupl_cpuset_online(&online)) rcupl_cpuset_and(&mask, &online);
  char list[128];
  if (pl->policy == RCUPOOL_PLACE_CPUS) {
    memcpy(out->w, pl->cpus, sizeof out->w);
    size_t asked = rcupl_cpuset_count(out);
    rcupl_cpuset_and(out, &mask);
    size_t kept = rcupl_cpuset_count(out);
    if (kept == 0) {
      rcupl_cpuset_format(&mask, list, sizeof list);
      rcupl_log(RCUPOOL_LOG_ERROR,
                "%s: no CPU of the placement is in the affinity mask and "
                "online (%s)",
                call, list);
      return -EINVAL;
    }
    if (kept < asked) {
      rcupl_cpuset_format(out, list, sizeof list);
      rcupl_log(RCUPOOL_LOG_WARN,
                "%s: %zu of the placement's %zu %s outside the affinity "
                "mask or offline; placed on %s",
                call, asked - kept, asked, rcupl_plural(asked, "CPU", "CPUs"),
                list);
    }
    return 0;
  }
  struct rcupl_classes c;
  rcupl_classes_get(&c);
  *out = pl->policy == RCUPOOL_PLACE_PERFORMANCE ? c.performance : c.efficiency;
  rcupl_cpuset_and(out, &mask);
  if (rcupl_cpuset_count(out) == 0) {
    *out = mask;
    rcupl_cpuset_format(&mask, list, sizeof list);
    rcupl_log(RCUPOOL_LOG_INFO,
              "%s: no %s CPU in the affinity mask; placed on the mask (%s)",
              call, rcupl_place_name(pl->policy), list);
  }
  return 0;
}

bool rcupl_placement_can_place(const rcupool_placement_t *pl) {
  if (pl->policy != RCUPOOL_PLACE_CPUS) return true;
  struct rcupl_cpuset mask, online, set;
  if (!rcupl_cpuset_affinity(&mask)) return true; /* resolve: not placed */
  if (rcupl_cpuset_online(&online)) rcupl_cpuset_and(&mask, &online);
  memcpy(set.w, pl->cpus, sizeof set.w);
  rcupl_cpuset_and(&set, &mask);
  return rcupl_cpuset_count(&set) != 0;
}

bool rcupl_placement_bind_worker(const struct rcupl_cpuset *cpus, bool strict,
                                 size_t k) {
  struct rcupl_cpuset want = *cpus;
  if (strict) {
    size_t n = rcupl_cpuset_count(cpus), i = 0, pick = k % n;
    memset(&want, 0, sizeof want);
    for (unsigned c = 0; c < RCUPOOL_PLACEMENT_MAX_CPUS; c++) {
      if (!rcupl_cpuset_has(cpus, c)) continue;
      if (i++ == pick) {
        rcupl_cpuset_add(&want, c);
        break;
      }
    }
  }
  const size_t size = CPU_ALLOC_SIZE(RCUPOOL_PLACEMENT_MAX_CPUS);
  cpu_set_t *set = CPU_ALLOC(RCUPOOL_PLACEMENT_MAX_CPUS);
  if (set == NULL) return false;
  CPU_ZERO_S(size, set);
  for (unsigned c = 0; c < RCUPOOL_PLACEMENT_MAX_CPUS; c++)
    if (rcupl_cpuset_has(&want, c)) CPU_SET_S(c, size, set);
  bool ok = sched_setaffinity(0, size, set) == 0;
  CPU_FREE(set);
  struct rcupl_cpuset got;
  if (!ok || !rcupl_cpuset_affinity(&got)) return false;
  return memcmp(&got, &want, sizeof got) == 0;
}
