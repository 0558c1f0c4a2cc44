/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Core classes: which CPUs are performance CPUs and which efficiency CPUs,
 * and the CPU sets (affinity mask, CPUs online) the library compares them
 * with.
 *
 * Detection, per CPU present (cpuN under /sys/devices/system/cpu): the
 * first of these sources that gives a value for every present CPU is used,
 *   1. cpu_capacity             (arm64: the scheduler's capacity, 1024 max)
 *   2. acpi_cppc/highest_perf   (hybrid x86: P cores above E cores)
 *   3. cpufreq/cpuinfo_max_freq (any machine with cpufreq)
 *   4. cpuinfo's core frequency (where cpuinfo knows it)
 * A CPU whose value is above the middle of [smallest, largest] is a
 * performance CPU, the others efficiency CPUs (so the favoured cores of a
 * hybrid x86, a few percent above their siblings, stay with them, and the
 * middle cores of a three-cluster phone count as performance, as they are
 * far above its little cores). Where every value is equal, or no source
 * gives one, every CPU is a performance CPU: one class.
 *
 * RCUPOOL_CPU_CLASSES ("0-3:efficiency,4-7:performance": items of a CPU or
 * a range, a colon, and a class) then gives the named CPUs their class;
 * CPUs it does not name keep what detection gave them.
 *
 * Invariants kept here:
 *   CLASSES-1. The classes are computed once per process, at the first
 *       call that needs them, outside any lock (a few files), and published
 *       with one release store; a call that loses the race to publish
 *       drops its own copy. A snapshot is never freed (a test's reload
 *       keeps the old one on `older`), so a pointer from rcupl_classes_get()
 *       stays valid for the life of the process. No lock is held across a
 *       file read, so fork() never finds one held here.
 *   CLASSES-2. A malformed RCUPOOL_CPU_CLASSES is logged at warning level
 *       and ignored as a whole (detection stands). The classes chosen are
 *       logged at info level once per snapshot.
 *   CLASSES-3. performance and efficiency are disjoint; every CPU present
 *       is in exactly one.
 */
#define _GNU_SOURCE
#include <cpuinfo.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "classes.h"
#include "log_internal.h"
#include "testing.h"

/* --- CPU sets ------------------------------------------------------------- */

size_t rcupl_cpuset_count(const struct rcupl_cpuset *s) {
  size_t n = 0;
  for (size_t i = 0; i < RCUPL_CPUSET_WORDS; i++)
    n += (size_t)__builtin_popcountll(s->w[i]);
  return n;
}

void rcupl_cpuset_and(struct rcupl_cpuset *a, const struct rcupl_cpuset *b) {
  for (size_t i = 0; i < RCUPL_CPUSET_WORDS; i++) a->w[i] &= b->w[i];
}

void rcupl_cpuset_format(const struct rcupl_cpuset *s, char *buf, size_t len) {
  if (len == 0) return;
  size_t at = 0;
  buf[0] = '\0';
  bool any = false;
  for (unsigned c = 0; c < RCUPOOL_PLACEMENT_MAX_CPUS; c++) {
    if (!rcupl_cpuset_has(s, c)) continue;
    unsigned e = c;
    while (e + 1 < RCUPOOL_PLACEMENT_MAX_CPUS && rcupl_cpuset_has(s, e + 1))
      e++;
    char item[32];
    if (e == c)
      snprintf(item, sizeof item, "%s%u", any ? "," : "", c);
    else
      snprintf(item, sizeof item, "%s%u-%u", any ? "," : "", c, e);
    size_t n = strlen(item);
    if (at + n + 4 > len) {
      if (at + 4 <= len) memcpy(buf + at, "...", 4);
      return;
    }
    memcpy(buf + at, item, n + 1);
    at += n;
    any = true;
    c = e;
  }
  if (!any) snprintf(buf, len, "none");
}

/* A decimal CPU number below RCUPOOL_PLACEMENT_MAX_CPUS at *s (advanced). */
static bool rcupl_parse_cpu(const char **s, const char *end, unsigned *out) {
  const char *p = *s;
  unsigned v = 0;
  if (p >= end || *p < '0' || *p > '9') return false;
  while (p < end && *p >= '0' && *p <= '9') {
    v = v * 10 + (unsigned)(*p - '0');
    if (v >= RCUPOOL_PLACEMENT_MAX_CPUS) return false;
    p++;
  }
  *s = p;
  *out = v;
  return true;
}

bool rcupl_cpuset_parse(const char *text, size_t len,
                        struct rcupl_cpuset *out) {
  struct rcupl_cpuset set;
  memset(&set, 0, sizeof set);
  const char *s = text, *end = text + len;
  if (s == end) return false;
  for (;;) {
    unsigned a, b;
    if (!rcupl_parse_cpu(&s, end, &a)) return false;
    b = a;
    if (s < end && *s == '-') {
      s++;
      if (!rcupl_parse_cpu(&s, end, &b) || b < a) return false;
    }
    for (unsigned c = a; c <= b; c++) rcupl_cpuset_add(&set, c);
    if (s == end) break;
    if (*s != ',') return false;
    s++;
  }
  *out = set;
  return true;
}

bool rcupl_cpuset_affinity(struct rcupl_cpuset *out) {
  memset(out, 0, sizeof *out);
  cpu_set_t *set = CPU_ALLOC(RCUPOOL_PLACEMENT_MAX_CPUS);
  if (set == NULL) return false;
  size_t size = CPU_ALLOC_SIZE(RCUPOOL_PLACEMENT_MAX_CPUS);
  bool ok = sched_getaffinity(0, size, set) == 0;
  if (ok)
    for (unsigned c = 0; c < RCUPOOL_PLACEMENT_MAX_CPUS; c++)
      if (CPU_ISSET_S(c, size, set)) rcupl_cpuset_add(out, c);
  CPU_FREE(set);
  return ok;
}

/* --- sysfs ---------------------------------------------------------------- */

/* Test hook state: the sysfs root ("" : the real files). Written only by
 * rcupl_classes_reload(), which a test calls while the library is idle. */
static char sysfs_root[PATH_MAX];

static bool rcupl_read_small(const char *path, char *buf, size_t len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  ssize_t got;
  do got = read(fd, buf, len - 1);
  while (got < 0 && errno == EINTR);
  close(fd);
  if (got <= 0) return false;
  buf[got] = '\0';
  while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == ' '))
    buf[--got] = '\0';
  return true;
}

bool rcupl_cpuset_online(struct rcupl_cpuset *out) {
  char path[PATH_MAX + 64], text[4096];
  snprintf(path, sizeof path, "%s/sys/devices/system/cpu/online", sysfs_root);
  memset(out, 0, sizeof *out);
  return rcupl_read_small(path, text, sizeof text) &&
         rcupl_cpuset_parse(text, strlen(text), out);
}

/* The CPUs present: cpuN folders, through the "present" list. */
static bool rcupl_cpuset_present(struct rcupl_cpuset *out) {
  char path[PATH_MAX + 64], text[4096];
  snprintf(path, sizeof path, "%s/sys/devices/system/cpu/present", sysfs_root);
  memset(out, 0, sizeof *out);
  return rcupl_read_small(path, text, sizeof text) &&
         rcupl_cpuset_parse(text, strlen(text), out);
}

/* One positive number per CPU from cpuN/<file>; false unless every CPU of
 * `present` has one. */
static bool rcupl_read_per_cpu(const struct rcupl_cpuset *present,
                               const char *file, uint64_t *values) {
  for (unsigned c = 0; c < RCUPOOL_PLACEMENT_MAX_CPUS; c++) {
    if (!rcupl_cpuset_has(present, c)) continue;
    char path[PATH_MAX + 96], text[64];
    snprintf(path, sizeof path, "%s/sys/devices/system/cpu/cpu%u/%s",
             sysfs_root, c, file);
    if (!rcupl_read_small(path, text, sizeof text)) return false;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v == 0) return false;
    values[c] = v;
  }
  return true;
}

/* cpuinfo's core frequency per CPU (Linux id); false unless known for
 * every CPU present. Only with the real files (a test's sysfs root has no
 * cpuinfo of its own). */
static bool rcupl_read_cpuinfo_freq(const struct rcupl_cpuset *present,
                                    uint64_t *values) {
  if (sysfs_root[0] != '\0' || !cpuinfo_initialize()) return false;
  uint32_t n = cpuinfo_get_processors_count();
  const struct cpuinfo_processor *procs = cpuinfo_get_processors();
  if (procs == NULL || n == 0) return false;
  struct rcupl_cpuset seen;
  memset(&seen, 0, sizeof seen);
  for (uint32_t i = 0; i < n; i++) {
    int id = procs[i].linux_id;
    if (id < 0 || id >= RCUPOOL_PLACEMENT_MAX_CPUS || procs[i].core == NULL ||
        procs[i].core->frequency == 0)
      continue;
    values[id] = procs[i].core->frequency;
    rcupl_cpuset_add(&seen, (unsigned)id);
  }
  for (size_t i = 0; i < RCUPL_CPUSET_WORDS; i++)
    if ((present->w[i] & ~seen.w[i]) != 0) return false;
  return true;
}

/* --- detection ------------------------------------------------------------ */

static void rcupl_classes_detect(struct rcupl_classes *c) {
  struct rcupl_cpuset present;
  if (!rcupl_cpuset_present(&present) || rcupl_cpuset_count(&present) == 0) {
    /* No sysfs: the CPUs the C library counts, one class. */
    long n = sysconf(_SC_NPROCESSORS_CONF);
    if (n < 1) n = 1;
    if (n > RCUPOOL_PLACEMENT_MAX_CPUS) n = RCUPOOL_PLACEMENT_MAX_CPUS;
    memset(&present, 0, sizeof present);
    for (unsigned i = 0; i < (unsigned)n; i++) rcupl_cpuset_add(&present, i);
  }
  static const char *const files[] = {"cpu_capacity", "acpi_cppc/highest_perf",
                                      "cpufreq/cpuinfo_max_freq"};
  uint64_t *values = calloc(RCUPOOL_PLACEMENT_MAX_CPUS, sizeof(*values));
  const char *source = NULL;
  if (values != NULL) {
    for (size_t i = 0; source == NULL && i < sizeof files / sizeof *files; i++)
      if (rcupl_read_per_cpu(&present, files[i], values)) source = files[i];
    if (source == NULL && rcupl_read_cpuinfo_freq(&present, values))
      source = "cpuinfo frequency";
  }
  c->performance = present;
  memset(&c->efficiency, 0, sizeof c->efficiency);
  if (source == NULL) {
    snprintf(c->source, sizeof c->source, "no source; one class");
    free(values);
    return;
  }
  uint64_t lo = UINT64_MAX, hi = 0;
  for (unsigned i = 0; i < RCUPOOL_PLACEMENT_MAX_CPUS; i++) {
    if (!rcupl_cpuset_has(&present, i)) continue;
    if (values[i] < lo) lo = values[i];
    if (values[i] > hi) hi = values[i];
  }
  if (lo == hi) {
    snprintf(c->source, sizeof c->source, "%s, all equal: one class", source);
    free(values);
    return;
  }
  memset(&c->performance, 0, sizeof c->performance);
  for (unsigned i = 0; i < RCUPOOL_PLACEMENT_MAX_CPUS; i++) {
    if (!rcupl_cpuset_has(&present, i)) continue;
    /* Above the middle of [lo, hi]: 2 * v > lo + hi, without overflow. */
    if (values[i] - lo > hi - values[i])
      rcupl_cpuset_add(&c->performance, i);
    else
      rcupl_cpuset_add(&c->efficiency, i);
  }
  snprintf(c->source, sizeof c->source, "%s", source);
  free(values);
}

/* RCUPOOL_CPU_CLASSES over the detected classes (CLASSES-2). */
static void rcupl_classes_override(struct rcupl_classes *c) {
  const char *text = getenv(RCUPOOL_ENV_CPU_CLASSES);
  if (text == NULL || text[0] == '\0') return;
  struct rcupl_cpuset perf = c->performance, eff = c->efficiency;
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
  c->performance = perf;
  c->efficiency = eff;
  snprintf(c->source, sizeof c->source, "%s", RCUPOOL_ENV_CPU_CLASSES);
}

static struct rcupl_classes *classes; /* CLASSES-1: release/acquire */

static struct rcupl_classes *rcupl_classes_compute(void) {
  struct rcupl_classes *c = calloc(1, sizeof(*c));
  if (c == NULL) return NULL;
  rcupl_classes_detect(c);
  rcupl_classes_override(c);
  char perf[128], eff[128];
  rcupl_cpuset_format(&c->performance, perf, sizeof perf);
  rcupl_cpuset_format(&c->efficiency, eff, sizeof eff);
  rcupl_log(RCUPOOL_LOG_INFO, "CPU classes (%s): performance %s; efficiency %s",
            c->source, perf, eff);
  return c;
}

/* The fallback when even the snapshot cannot be allocated: one class of
 * every CPU. */
static const struct rcupl_classes rcupl_classes_all = {
    .performance = {{~UINT64_C(0), ~UINT64_C(0), ~UINT64_C(0), ~UINT64_C(0),
                     ~UINT64_C(0), ~UINT64_C(0), ~UINT64_C(0), ~UINT64_C(0),
                     ~UINT64_C(0), ~UINT64_C(0), ~UINT64_C(0), ~UINT64_C(0),
                     ~UINT64_C(0), ~UINT64_C(0), ~UINT64_C(0), ~UINT64_C(0)}},
    .source = "out of memory; one class",
};
_Static_assert(RCUPL_CPUSET_WORDS == 16, "rcupl_classes_all's initialiser");

const struct rcupl_classes *rcupl_classes_get(void) {
  struct rcupl_classes *c = __atomic_load_n(&classes, __ATOMIC_ACQUIRE);
  if (__builtin_expect(c != NULL, 1)) return c;
  c = rcupl_classes_compute();
  if (c == NULL) return &rcupl_classes_all;
  struct rcupl_classes *none = NULL;
  if (!__atomic_compare_exchange_n(&classes, &none, c, false, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE)) {
    free(c); /* another thread published first */
    return none;
  }
  return c;
}

void rcupl_classes_reload(const char *root) {
  snprintf(sysfs_root, sizeof sysfs_root, "%s", root != NULL ? root : "");
  struct rcupl_classes *c = rcupl_classes_compute();
  if (c == NULL) return;
  c->older = __atomic_load_n(&classes, __ATOMIC_ACQUIRE);
  __atomic_store_n(&classes, c, __ATOMIC_RELEASE);
  rcupl_log_deliver();
}

rcupool_cpu_class_t rcupool_cpu_class(unsigned cpu) {
  const struct rcupl_classes *c = rcupl_classes_get();
  rcupool_cpu_class_t cls =
      rcupl_cpuset_has(&c->performance, cpu)  ? RCUPOOL_CLASS_PERFORMANCE
      : rcupl_cpuset_has(&c->efficiency, cpu) ? RCUPOOL_CLASS_EFFICIENCY
                                              : RCUPOOL_CLASS_NONE;
  rcupl_log_deliver();
  return cls;
}
