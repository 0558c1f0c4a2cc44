/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * CPU sets: a fixed bitmap of RCUPOOL_PLACEMENT_MAX_CPUS CPUs, its kernel
 * list syntax ("0-3,6"), and the calling thread's real affinity mask.
 *
 * Invariants kept here:
 *   CPUSET-1. A CPU list is parsed completely or not at all: a malformed
 *       list, or one naming a CPU at or above RCUPOOL_PLACEMENT_MAX_CPUS,
 *       leaves the output untouched; a formatted list is always
 *       NUL-terminated.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "cpuset.h"

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
