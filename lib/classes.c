/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Core classes: the snapshot of which CPUs are performance CPUs and which
 * efficiency CPUs, RCUPOOL_CPU_CLASSES over it, and rcupool_cpu_class().
 * Detection (the rule, the files) is lib/classes_detect.c's; every file is
 * read under the machine root (lib/machine.c).
 *
 * RCUPOOL_CPU_CLASSES ("0-3:efficiency,4-7:performance": items of a CPU or
 * a range, a colon, and a class) then gives the named CPUs present their
 * class; CPUs it does not name keep what detection gave them; a named CPU
 * that is not present is left out with a warning.
 *
 * Invariants kept here:
 *   CLASSES-1. The classes are a snapshot, computed outside any lock (a
 *       few files) at the first call that needs them, and again when a
 *       look at the CPUs online (lib/cpus.c's default count:
 *       rcupl_classes_follow_present) finds the CPUs present changed (a
 *       CPU hot-added or removed); RCUPOOL_CPU_CLASSES is read by each
 *       computation. A snapshot is immutable once published in `current`
 *       (compare-and-swap from the one it replaces: of two lookers that
 *       saw one change, one publishes and the other drops its copy).
 *       Readers copy it out (rcupl_classes_get) between an increment and
 *       a decrement of `readers`, all sequentially consistent: no lock, no
 *       wait. A replaced snapshot goes on `retired`, and is freed by
 *       whoever takes the list and then sees `readers` at 0 (the
 *       replacer, or the last reader out): a reader that loaded it
 *       incremented before the swap, so before the take, and that load of
 *       `readers` sees its count until its decrement (whose release orders
 *       its copy before the free). Taken with readers inside, the list is
 *       put back, for a later copy's end to free. No lock is held across a file read, so fork() never
 *       finds one held here (a child forked inside a copy keeps `retired`:
 *       a leak of a few hundred bytes, never a free too early).
 *   CLASSES-2. A malformed RCUPOOL_CPU_CLASSES is logged at warning level
 *       and ignored as a whole (detection stands); an item naming a CPU
 *       that is not present is logged at warning level and not applied to
 *       that CPU. The classes chosen are logged at info level once per
 *       snapshot.
 *   CLASSES-3. performance and efficiency are disjoint; every CPU present
 *       is in exactly one, and no other CPU is in either.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "classes.h"
#include "classes_detect.h"
#include "cpuset.h"
#include "log_deliver.h"
#include "log_internal.h"
#include "machine.h"
#include "testing.h"

/* RCUPOOL_CPU_CLASSES over the detected classes (CLASSES-2). */
static void rcupl_classes_override(struct rcupl_classes *c) {
  const char *text = getenv(RCUPOOL_ENV_CPU_CLASSES);
  if (text == NULL || text[0] == '\0') return;
  struct rcupl_cpuset perf = c->performance, eff = c->efficiency, present,
                      outside;
  memset(&outside, 0, sizeof outside);
  for (size_t i = 0; i < RCUPL_CPUSET_WORDS; i++)
    present.w[i] = perf.w[i] | eff.w[i]; /* CLASSES-3 */
  const char *s = text;
  while (*s == ' ' || *s == '\t') s++; /* blanks around (ENV-2) */
  bool ok = true;
  while (ok && *s != '\0') {
    const char *item_end = strchr(s, ',');
    if (item_end == NULL) item_end = s + strlen(s);
    const char *colon = memchr(s, ':', (size_t)(item_end - s));
    struct rcupl_cpuset cpus;
    ok = colon != NULL && rcupl_cpuset_parse(s, (size_t)(colon - s), &cpus);
    if (ok) {
      const char *cls = colon + 1;
      size_t n = (size_t)(item_end - cls);
      while (n > 0 &&
             (cls[n - 1] == ' ' || cls[n - 1] == '\t' || cls[n - 1] == '\n'))
        n--; /* the value's trailing blanks; names without case (ENV-2) */
      bool is_perf = n == 11 && strncasecmp(cls, "performance", n) == 0;
      bool is_eff = n == 10 && strncasecmp(cls, "efficiency", n) == 0;
      ok = is_perf || is_eff;
      for (size_t i = 0; ok && i < RCUPL_CPUSET_WORDS; i++) {
        outside.w[i] |= cpus.w[i] & ~present.w[i];
        cpus.w[i] &= present.w[i];
        perf.w[i] = is_perf ? perf.w[i] | cpus.w[i] : perf.w[i] & ~cpus.w[i];
        eff.w[i] = is_eff ? eff.w[i] | cpus.w[i] : eff.w[i] & ~cpus.w[i];
      }
    }
    s = *item_end == ',' ? item_end + 1 : item_end;
    if (*item_end == ',' && *s == '\0') ok = false; /* trailing comma */
  }
  if (!ok) {
    rcupl_log(RCUPOOL_LOG_WARN,
              "%s=\"%.64s\" is not a list of CPU:class items (e.g. "
              "\"0-3:efficiency,4-7:performance\"); ignored",
              RCUPOOL_ENV_CPU_CLASSES, text);
    return;
  }
  if (rcupl_cpuset_count(&outside) != 0) {
    char list[64];
    rcupl_cpuset_format(&outside, list, sizeof list);
    rcupl_log(RCUPOOL_LOG_WARN,
              "%s names CPUs that are not present (%s); not applied to them",
              RCUPOOL_ENV_CPU_CLASSES, list);
  }
  c->performance = perf;
  c->efficiency = eff;
  snprintf(c->source, sizeof c->source, "%s", RCUPOOL_ENV_CPU_CLASSES);
}

/* CLASSES-1: the published snapshot and the ones it replaced. */
struct rcupl_classes_snap {
  struct rcupl_classes c;
  struct rcupl_classes_snap *retired_next;
};
static struct rcupl_classes_snap *current;
static struct rcupl_classes_snap *retired;
static size_t readers; /* copies of `current` in progress */

/* Detection under root, then RCUPOOL_CPU_CLASSES; logged (CLASSES-2). */
static void rcupl_classes_compute(const char *root, struct rcupl_classes *c) {
  rcupl_classes_detect(root, c);
  rcupl_classes_override(c);
  char perf[128], eff[128];
  rcupl_cpuset_format(&c->performance, perf, sizeof perf);
  rcupl_cpuset_format(&c->efficiency, eff, sizeof eff);
  rcupl_log(RCUPOOL_LOG_INFO, "CPU classes (%s): performance %s; efficiency %s",
            c->source, perf, eff);
}

/* A new snapshot computed under root, or NULL (out of memory). */
static struct rcupl_classes_snap *rcupl_classes_new(const char *root) {
  struct rcupl_classes_snap *s = calloc(1, sizeof(*s));
  if (s != NULL) rcupl_classes_compute(root, &s->c);
  return s;
}

/* CLASSES-1: frees the retired snapshots when no copy is in progress. */
static void rcupl_classes_free_retired(void) {
  if (__atomic_load_n(&retired, __ATOMIC_RELAXED) == NULL) return;
  struct rcupl_classes_snap *list =
      __atomic_exchange_n(&retired, NULL, __ATOMIC_SEQ_CST);
  if (list == NULL) return;
  if (__atomic_load_n(&readers, __ATOMIC_SEQ_CST) == 0) {
    while (list != NULL) {
      struct rcupl_classes_snap *next = list->retired_next;
      free(list);
      list = next;
    }
    return;
  }
  struct rcupl_classes_snap *last = list; /* put back: the last reader */
  while (last->retired_next != NULL) last = last->retired_next;
  struct rcupl_classes_snap *head = __atomic_load_n(&retired, __ATOMIC_RELAXED);
  do {
    last->retired_next = head;
  } while (!__atomic_compare_exchange_n(&retired, &head, list, true,
                                        __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
}

/* Copies the published snapshot into *out; returns it (compare only: it
 * may be freed once this returns), or NULL when there is none yet. */
static struct rcupl_classes_snap *rcupl_classes_copy(
    struct rcupl_classes *out) {
  __atomic_add_fetch(&readers, 1, __ATOMIC_SEQ_CST);
  struct rcupl_classes_snap *s = __atomic_load_n(&current, __ATOMIC_SEQ_CST);
  if (s != NULL) *out = s->c;
  __atomic_sub_fetch(&readers, 1, __ATOMIC_SEQ_CST);
  rcupl_classes_free_retired();
  return s;
}

/* Publishes fresh in place of seen (CLASSES-1); false, and fresh freed,
 * when another thread replaced seen first. */
static bool rcupl_classes_publish(struct rcupl_classes_snap *seen,
                                  struct rcupl_classes_snap *fresh) {
  if (!__atomic_compare_exchange_n(&current, &seen, fresh, false,
                                   __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
    free(fresh); /* never published: nobody else saw it */
    return false;
  }
  if (seen != NULL) {
    seen->retired_next = __atomic_load_n(&retired, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(&retired, &seen->retired_next, seen,
                                        true, __ATOMIC_SEQ_CST,
                                        __ATOMIC_RELAXED)) {
    }
  }
  rcupl_classes_free_retired();
  return true;
}

void rcupl_classes_get(struct rcupl_classes *out) {
  while (rcupl_classes_copy(out) == NULL) {
    char root[PATH_MAX];
    rcupl_machine_root(root, sizeof root);
    struct rcupl_classes_snap *s = rcupl_classes_new(root);
    if (s == NULL) { /* out of memory: this call's own copy */
      rcupl_classes_compute(root, out);
      return;
    }
    rcupl_classes_publish(NULL, s);
  }
}

void rcupl_classes_follow_present(const char *root) {
  struct rcupl_cpuset now;
  struct rcupl_classes was;
  if (!rcupl_machine_cpus(root, "/sys/devices/system/cpu/present", &now) ||
      rcupl_cpuset_count(&now) == 0)
    return; /* unreadable: the snapshot stands */
  struct rcupl_classes_snap *seen = rcupl_classes_copy(&was);
  if (seen == NULL ||
      memcmp(&now, &was.present, sizeof now) == 0) /* none yet, or same */
    return;
  char from[128], to[128];
  rcupl_cpuset_format(&was.present, from, sizeof from);
  rcupl_cpuset_format(&now, to, sizeof to);
  rcupl_log(RCUPOOL_LOG_INFO, "CPUs present %s -> %s: CPU classes again", from,
            to);
  struct rcupl_classes_snap *s = rcupl_classes_new(root);
  if (s != NULL) rcupl_classes_publish(seen, s);
}

void rcupl_classes_reload(const char *root) {
  rcupl_machine_set_root_only(root);
  char r[PATH_MAX];
  rcupl_machine_root(r, sizeof r);
  struct rcupl_classes_snap *s = rcupl_classes_new(r);
  if (s == NULL) return;
  struct rcupl_classes was;
  while (!rcupl_classes_publish(rcupl_classes_copy(&was), s))
    if ((s = rcupl_classes_new(r)) == NULL) return;
  rcupl_log_deliver();
}

rcupool_cpu_class_t rcupool_cpu_class(unsigned cpu) {
  struct rcupl_classes c;
  rcupl_classes_get(&c);
  rcupool_cpu_class_t cls =
      rcupl_cpuset_has(&c.performance, cpu)  ? RCUPOOL_CLASS_PERFORMANCE
      : rcupl_cpuset_has(&c.efficiency, cpu) ? RCUPOOL_CLASS_EFFICIENCY
                                             : RCUPOOL_CLASS_NONE;
  rcupl_log_deliver();
  return cls;
}
