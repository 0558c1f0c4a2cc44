/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Following the CPU limits: a manager whose count is the default resets
 * to the new default count when the affinity mask, the cgroup CPU quota
 * or the CPUs online change while the process runs (rcupool_follow_t).
 *
 * Invariants kept here:
 *   FOLLOW-1. Only a count nobody chose follows (design invariant 11): m
 *       follows when it was created with threads 0 and follow not off
 *       (m->follow, immutable), and no reset(m, n > 0) has happened since
 *       the last reset(m, 0) (m->chosen, written under m->writer by every
 *       reset that succeeds, reset.c RESET-6: a failed one changes nothing). A follow reset checks m->chosen again under
 *       m->writer, so a chosen count set meanwhile is never overwritten.
 *   FOLLOW-2. A change is an ordinary reset (RESET-1..4): the old pool is
 *       retired, loaded methods keep it and see is_current false; a reset
 *       that fails leaves the current pool (logged, as every reset).
 *       m->follow_last (the limits the last check saw, for the log line)
 *       is under m->writer.
 *   FOLLOW-3. Who checks: rcupool_parallelize_1d() outside a scope, after
 *       its work (rcupl_follow_maybe: a relaxed load of m->chosen, a
 *       CLOCK_MONOTONIC_COARSE read and a load of follow_due_ns; measured
 *       in benchmarks/placement_bench.cc), and rcupool_follow_now(). At most
 *       one thread checks per period: the due time is claimed by a
 *       compare-and-swap. Nothing else: no timer, no thread wakes an idle
 *       process; the read side, pin and unpin never look (they stay
 *       lock-free and async-signal-safe).
 *   FOLLOW-4. The check reads files and may start threads: it runs with no
 *       lock of m held, outside any read-side section and never in a task
 *       (a nested parallel call runs inline and returns before it).
 *   FOLLOW-5. The default rule (m->default_rule, RCUPOOL_DEFAULT_RULE_*)
 *       is read once by each computation of the default count;
 *       rcupool_set_default_rule() stores it and, for a count not chosen,
 *       makes the same reset a check would (FOLLOW-1, FOLLOW-2).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "cpus.h"
#include "follow.h"
#include "lock.h"
#include "log_deliver.h"
#include "log_internal.h"
#include "plural.h"
#include "pool.h"
#include "reset.h"
#include "testing.h"

uint64_t rcupl_follow_period_ns =
    (uint64_t)RCUPOOL_FOLLOW_PERIOD_MS * UINT64_C(1000000);

/* A count of CPUs with its unit ("1 CPU", "2 CPUs"), or `zero` for 0. */
static void rcupl_follow_cpus(char *out, size_t len, size_t n,
                              const char *zero) {
  if (n == 0)
    snprintf(out, len, "%s", zero);
  else
    snprintf(out, len, "%zu %s", n, rcupl_plural(n, "CPU", "CPUs"));
}

static void rcupl_follow_part(char *buf, size_t len, const char *what,
                              size_t from, size_t to, const char *zero) {
  if (from == to) return;
  size_t at = strlen(buf);
  char a[32], b[32];
  rcupl_follow_cpus(a, sizeof a, from, zero);
  rcupl_follow_cpus(b, sizeof b, to, zero);
  snprintf(buf + at, len - at, "%s%s %s -> %s", at != 0 ? "; " : "", what, a,
           b);
}

void rcupl_follow_describe(const struct rcupl_default_size *from,
                           const struct rcupl_default_size *to, char *buf,
                           size_t len) {
  buf[0] = '\0';
  rcupl_follow_part(buf, len, "affinity mask", from->mask, to->mask,
                    "unreadable");
  rcupl_follow_part(buf, len, "cgroup quota", from->quota, to->quota, "none");
  rcupl_follow_part(buf, len, "online", from->online, to->online, "unreadable");
  if (buf[0] == '\0') snprintf(buf, len, "%s", to->line);
}

void rcupl_follow_describe_counts(const size_t from[3], const size_t to[3],
                                  char *buf, size_t len) {
  struct rcupl_default_size a = {0}, b = {0};
  a.mask = from[0], a.quota = from[1], a.online = from[2];
  b.mask = to[0], b.quota = to[1], b.online = to[2];
  rcupl_follow_describe(&a, &b, buf, len);
}

/* A reset to ds->threads made by following the limits: under m->writer,
 * does nothing when the count was chosen meanwhile (FOLLOW-1) or the
 * current pool already has that size; records ds as the limits last seen;
 * counts and logs the change. Returns 1 when it reset, 0 when not, or the
 * reset's error. Call without m's locks. */
static int rcupl_follow_reset(rcupool_t *m,
                              const struct rcupl_default_size *ds) {
  rcupl_mutex_lock(&m->writer);
  if (__atomic_load_n(&m->chosen, __ATOMIC_RELAXED) ||
      m->current->threads == ds->threads) {
    m->follow_last = *ds; /* FOLLOW-2: under writer */
    rcupl_mutex_unlock(&m->writer);
    return 0;
  }
  char what[160];
  rcupl_follow_describe(&m->follow_last, ds, what, sizeof what);
  const size_t from = m->current->threads;
  m->follow_last = *ds;
  int err = rcupl_reset_writer_held(m, ds->threads, false, false);
  if (err != 0) return err;
  rcupl_mutex_lock(&m->lock);
  m->follows++;
  rcupl_mutex_unlock(&m->lock);
  rcupl_log(RCUPOOL_LOG_INFO, "manager %p: default size %zu -> %zu: %s",
            (void *)m, from, ds->threads, what);
  return 1;
}

int rcupl_follow_check(rcupool_t *m, bool force) {
  if (!m->follow || __atomic_load_n(&m->chosen, __ATOMIC_RELAXED)) return 0;
  uint64_t now = rcupl_coarse_now_ns();
  uint64_t due = __atomic_load_n(&m->follow_due_ns, __ATOMIC_RELAXED);
  uint64_t next =
      now + __atomic_load_n(&rcupl_follow_period_ns, __ATOMIC_RELAXED);
  if (!force && (now < due || !__atomic_compare_exchange_n(
                                  &m->follow_due_ns, &due, next, false,
                                  __ATOMIC_RELAXED, __ATOMIC_RELAXED)))
    return 0; /* not due, or another thread claimed this check */
  if (force) __atomic_store_n(&m->follow_due_ns, next, __ATOMIC_RELAXED);
  struct rcupl_default_size ds;
  rcupl_cpus_compute(&ds, /* FOLLOW-4: no lock held */
                     __atomic_load_n(&m->default_rule, __ATOMIC_RELAXED));
  return rcupl_follow_reset(m, &ds);
}

int rcupool_set_default_rule(rcupool_t *m, int rule) {
  if (m == NULL || (rule != RCUPOOL_DEFAULT_RULE_CORES &&
                    rule != RCUPOOL_DEFAULT_RULE_PROCESSORS)) {
    rcupl_log(RCUPOOL_LOG_ERROR, "set_default_rule: %s",
              m == NULL ? "no manager" : "not a RCUPOOL_DEFAULT_RULE_* value");
    rcupl_log_deliver();
    return -EINVAL;
  }
  __atomic_store_n(&m->default_rule, rule, __ATOMIC_RELAXED);
  rcupl_log(RCUPOOL_LOG_DEBUG, "manager %p: default rule %s", (void *)m,
            rule == RCUPOOL_DEFAULT_RULE_CORES ? "cores" : "processors");
  int err = 0;
  /* FOLLOW-5: a count not chosen goes to the new rule's count now; the
   * reset checks m->chosen again under the writer (FOLLOW-1). */
  if (m->default_threads == 0 &&
      !__atomic_load_n(&m->chosen, __ATOMIC_RELAXED)) {
    struct rcupl_default_size ds;
    rcupl_cpus_compute(&ds, rule);
    err = rcupl_follow_reset(m, &ds);
    if (err > 0) err = 0;
  }
  rcupl_log_deliver();
  return err;
}

int rcupool_default_rule(rcupool_t *m) {
  return m == NULL ? RCUPOOL_DEFAULT_RULE_CORES
                   : __atomic_load_n(&m->default_rule, __ATOMIC_RELAXED);
}

void rcupl_follow_set_period_ns(uint64_t ns) {
  __atomic_store_n(&rcupl_follow_period_ns, ns, __ATOMIC_RELAXED);
}

int rcupool_follow_now(rcupool_t *m) {
  if (m == NULL) return -EINVAL;
  int r = rcupl_follow_check(m, true);
  rcupl_log_deliver();
  return r;
}
