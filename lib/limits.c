/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the process may have: the library's own maximum thread count, the
 * CPU quota of the process's cgroup, and room for a pool's threads to
 * start. Every limit lib/ reads is read here; lib/cpus.c turns the quota
 * into the default size, lib/pool.c asks for room before a pool starts.
 *
 * The quota: the process's cgroup is read from <root>/proc/self/cgroup.
 * cgroup v2 (line "0::/path"): cpu.max ("max P" or "Q P": ceil(Q / P) CPUs)
 * under <root>/sys/fs/cgroup/path. Where no cpu.max exists at any level
 * (v1, or a hybrid layout whose cpu controller is v1), cgroup v1 (the line
 * whose controllers include "cpu"): cpu.cfs_quota_us / cpu.cfs_period_us
 * (-1: no quota) under <root>/sys/fs/cgroup/cpu/path. Each level from the
 * cgroup up to the mount point is read and the smallest quota wins (a
 * parent's limit binds its children; a container that sees its own cgroup
 * at the mount point ends the walk there). <root> is "" (the real files)
 * unless a test installs another (the machine seam, lib/machine.c). The
 * quota is kept as the fraction quota / period too, for the log and
 * rcupool_info ("cgroup quota 1.5 CPUs -> 2 threads").
 *
 * Invariants kept here:
 *   LIMITS-1. A missing cgroup file means "no quota at that level"; a
 *           malformed one is logged at warning level and ignored. Nothing
 *           read from a file is trusted: lengths are bounded, numbers are
 *           checked for range before use. A quota is 0 (none) or in
 *           1..RCUPOOL_MAX_THREADS.
 *   LIMITS-2. Room for a pool's threads is seen, not computed: as many
 *           probe threads as the pool has workers, with the same default
 *           attributes, all alive at once (rcupl_limits_threads_can_start).
 *           Whatever stops a thread start (RLIMIT_NPROC, RLIMIT_DATA or
 *           RLIMIT_AS for the stacks, a pids cgroup, kernel.threads-max,
 *           vm.max_map_count, memory) stops a probe first. The probes'
 *           stacks go to the C library's stack cache when they are
 *           joined, and the pool's workers start on them. A limit reached
 *           by another thread between the probe's joins and the pool's
 *           start is not seen; that window is all that is left.
 *   LIMITS-3. Every call that takes a thread count from its caller
 *           (create, reset, pin_sized) refuses one above
 *           RCUPOOL_MAX_THREADS through rcupl_limits_check_threads(): -EINVAL,
 *           logged at error level with the call's name (LOG-5).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "limits_internal.h"
#include "lock.h"
#include "log_internal.h"
#include "machine.h"
#include "plural.h"
#include "rcupool/rcupool.h"
#include "testing.h"

/* --- the library's maximum (LIMITS-3) ------------------------------------- */

int rcupl_limits_check_threads(const char *call, size_t threads) {
  if (threads <= RCUPOOL_MAX_THREADS) return 0;
  rcupl_log(RCUPOOL_LOG_ERROR, "%s: %zu %s is above the maximum of %d %s", call,
            threads, rcupl_threads_noun(threads), RCUPOOL_MAX_THREADS,
            rcupl_threads_noun(RCUPOOL_MAX_THREADS));
  return -EINVAL;
}

/* --- room for a pool's threads (LIMITS-2) --------------------------------- */

/* The pthreadpool this library links (Debian 12's) does not check
 * pthread_create(): when a worker cannot start (RLIMIT_NPROC, out of
 * memory) pthreadpool_create() waits for it forever. So the probes start
 * first, and if one cannot start, the pool's would not either. */
struct rcupl_probe {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  bool go;
};

static void *rcupl_probe_main(void *arg) {
  struct rcupl_probe *pr = arg;
  rcupl_mutex_lock(&pr->mu);
  while (!pr->go) rcupl_cond_wait(&pr->cv, &pr->mu);
  rcupl_mutex_unlock(&pr->mu);
  return NULL;
}

bool rcupl_limits_threads_can_start(size_t threads) {
  if (threads == 0) return true;
  pthread_t *t = malloc(threads * sizeof(*t));
  if (t == NULL) return false;
  struct rcupl_probe pr = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
                           false};
  size_t started = 0;
  while (started < threads &&
         pthread_create(&t[started], NULL, rcupl_probe_main, &pr) == 0)
    started++;
  rcupl_mutex_lock(&pr.mu);
  pr.go = true;
  rcupl_cond_broadcast(&pr.cv);
  rcupl_mutex_unlock(&pr.mu);
  for (size_t i = 0; i < started; i++) pthread_join(t[i], NULL);
  free(t);
  return started == threads;
}

/* --- the CPU quota of the process's cgroup -------------------------------- */

/* Parses a decimal in 1..10^18-1 from [s, s + n) (the digit cap keeps it
 * far below overflow). */
static bool rcupl_parse_positive(const char *s, size_t n, uint64_t *out) {
  if (n == 0 || n > 18) return false; /* 18 digits: no overflow below */
  uint64_t v = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (uint64_t)(s[i] - '0');
  }
  if (v == 0) return false;
  *out = v;
  return true;
}

/* ceil(quota / period) CPUs, in 1..RCUPOOL_MAX_THREADS; the fraction
 * itself into *exact when exact is not NULL. */
static size_t rcupl_quota_cpus(uint64_t quota, uint64_t period, double *exact) {
  uint64_t cpus = quota / period + (quota % period != 0);
  if (exact != NULL) *exact = (double)quota / (double)period;
  if (cpus < 1) cpus = 1;
  return cpus > RCUPOOL_MAX_THREADS ? RCUPOOL_MAX_THREADS : (size_t)cpus;
}

/* The length of text without trailing blanks and newlines. */
static size_t rcupl_trimmed_len(const char *text) {
  size_t n = strlen(text);
  while (n > 0 &&
         (text[n - 1] == '\n' || text[n - 1] == ' ' || text[n - 1] == '\t'))
    n--;
  return n;
}

static int rcupl_parse_cpu_max_exact(const char *text, size_t *cpus,
                                     double *exact) {
  size_t n = rcupl_trimmed_len(text);
  const char *space = memchr(text, ' ', n);
  size_t qlen = space != NULL ? (size_t)(space - text) : n;
  uint64_t quota, period;
  if (qlen == 3 && memcmp(text, "max", 3) == 0) {
    if (space != NULL &&
        !rcupl_parse_positive(space + 1, n - qlen - 1, &period))
      return -EINVAL;
    *cpus = 0;
    return 0;
  }
  if (space == NULL || !rcupl_parse_positive(text, qlen, &quota) ||
      !rcupl_parse_positive(space + 1, n - qlen - 1, &period))
    return -EINVAL;
  *cpus = rcupl_quota_cpus(quota, period, exact);
  return 0;
}

int rcupl_limits_parse_cpu_max(const char *text, size_t *cpus) {
  return rcupl_parse_cpu_max_exact(text, cpus, NULL);
}

static int rcupl_parse_cfs_exact(const char *quota_text,
                                 const char *period_text, size_t *cpus,
                                 double *exact) {
  size_t qn = rcupl_trimmed_len(quota_text),
         pn = rcupl_trimmed_len(period_text);
  uint64_t quota, period;
  if (!rcupl_parse_positive(period_text, pn, &period)) return -EINVAL;
  if (qn == 2 && memcmp(quota_text, "-1", 2) == 0) {
    *cpus = 0;
    return 0;
  }
  if (!rcupl_parse_positive(quota_text, qn, &quota)) return -EINVAL;
  *cpus = rcupl_quota_cpus(quota, period, exact);
  return 0;
}

int rcupl_limits_parse_cfs(const char *quota_text, const char *period_text,
                           size_t *cpus) {
  return rcupl_parse_cfs_exact(quota_text, period_text, cpus, NULL);
}

/* Reads one level's quota. Returns 1 and sets *cpus (0: no quota) when the
 * level has the file(s), 0 when it has none; a malformed file is logged and
 * counts as "none" at this level. */
static int rcupl_read_level(const char *dir, bool v2, struct rcupl_quota *q) {
  char path[PATH_MAX + 32], a[128], b[128] = "";
  const char *file = v2 ? "cpu.max" : "cpu.cfs_quota_us";
  if (snprintf(path, sizeof path, "%s/%s", dir, file) >= (int)sizeof path)
    return 0;
  if (!rcupl_machine_read_file(path, a, sizeof a)) return 0;
  int err;
  if (v2) {
    err = rcupl_parse_cpu_max_exact(a, &q->cpus, &q->exact);
  } else {
    char ppath[PATH_MAX + 32];
    if (snprintf(ppath, sizeof ppath, "%s/cpu.cfs_period_us", dir) >=
            (int)sizeof ppath ||
        !rcupl_machine_read_file(ppath, b, sizeof b))
      b[0] = '\0';
    err = rcupl_parse_cfs_exact(a, b, &q->cpus, &q->exact);
  }
  if (err != 0) {
    int an = (int)rcupl_trimmed_len(a), bn = (int)rcupl_trimmed_len(b);
    for (int i = 0; i < an; i++) /* log printable text only */
      if (a[i] < 0x20 || a[i] > 0x7e) a[i] = '?';
    for (int i = 0; i < bn; i++)
      if (b[i] < 0x20 || b[i] > 0x7e) b[i] = '?';
    /* The reason first: a long path may be cut at the log's 255 bytes. */
    rcupl_log(RCUPOOL_LOG_WARN,
              "cgroup: not a CPU quota, ignored: \"%.*s\"%s%.*s%s in %s",
              an > 32 ? 32 : an, a, v2 ? "" : " (period \"",
              v2 ? 0 : (bn > 32 ? 32 : bn), v2 ? "" : b, v2 ? "" : "\")", path);
    return 0;
  }
  return 1;
}

/* Walks from mount/cgroup up to mount; the smallest quota wins. Returns
 * whether any level had the file(s); q->cpus is 0 when none set a quota. */
static bool rcupl_walk_cgroup(const char *root, const char *mount,
                              const char *cgroup, bool v2,
                              struct rcupl_quota *q) {
  char rel[PATH_MAX];
  if (snprintf(rel, sizeof rel, "%s", cgroup) >= (int)sizeof rel) return false;
  size_t n = strlen(rel);
  while (n > 0 && rel[n - 1] == '/') rel[--n] = '\0'; /* "/" becomes "" */
  bool found = false;
  q->cpus = 0;
  q->exact = 0;
  for (;;) {
    char dir[PATH_MAX + 64];
    if (snprintf(dir, sizeof dir, "%s%s%s", root, mount, rel) <
        (int)sizeof dir) {
      struct rcupl_quota level = {0, 0};
      if (rcupl_read_level(dir, v2, &level)) {
        found = true;
        if (level.cpus != 0 && (q->cpus == 0 || level.exact < q->exact))
          *q = level;
      }
    }
    if (rel[0] == '\0') break;
    char *slash = strrchr(rel, '/');
    if (slash == NULL) break;
    *slash = '\0';
  }
  return found;
}

/* The one parser of /proc/self/cgroup ("hierarchy-id:controllers:path" a
 * line; text is cut up in place): the cgroup v2 path (line "0::path") into
 * v2, the path of the v1 hierarchy whose controllers include "cpu" into v1.
 * A path that does not fit, or a line that is not of that form, is left
 * out (LIMITS-1). */
struct rcupl_self_cgroup {
  char v2[PATH_MAX], v1[PATH_MAX];
  bool have_v2, have_v1;
};

static void rcupl_parse_self_cgroup(char *text, struct rcupl_self_cgroup *out) {
  out->have_v2 = out->have_v1 = false;
  for (char *line = text, *next; line != NULL && *line != '\0'; line = next) {
    next = strchr(line, '\n');
    if (next != NULL) *next++ = '\0';
    /* hierarchy-id:controllers:path */
    char *c1 = strchr(line, ':');
    char *c2 = c1 != NULL ? strchr(c1 + 1, ':') : NULL;
    if (c2 == NULL || c2[1] != '/') continue;
    if (c1 == line + 1 && line[0] == '0' && c2 == c1 + 1) {
      out->have_v2 =
          snprintf(out->v2, sizeof out->v2, "%s", c2 + 1) < (int)sizeof out->v2;
      continue;
    }
    for (char *c = c1 + 1; c < c2;) {
      char *end = memchr(c, ',', (size_t)(c2 - c));
      if (end == NULL) end = c2;
      if (end - c == 3 && memcmp(c, "cpu", 3) == 0)
        out->have_v1 = snprintf(out->v1, sizeof out->v1, "%s", c2 + 1) <
                       (int)sizeof out->v1;
      c = end + 1;
    }
  }
}

void rcupl_limits_cgroup_quota(const char *root, struct rcupl_quota *q) {
  char self[4096], path[PATH_MAX + 32];
  q->cpus = 0;
  q->exact = 0;
  snprintf(path, sizeof path, "%s/proc/self/cgroup", root);
  if (!rcupl_machine_read_file(path, self, sizeof self)) return;
  struct rcupl_self_cgroup cg;
  rcupl_parse_self_cgroup(self, &cg);
  if (cg.have_v2 && rcupl_walk_cgroup(root, "/sys/fs/cgroup", cg.v2, true, q))
    return;
  if (cg.have_v1)
    rcupl_walk_cgroup(root, "/sys/fs/cgroup/cpu", cg.v1, false, q);
}

size_t rcupl_limits_cgroup_cpus(const char *root) {
  struct rcupl_quota q;
  rcupl_limits_cgroup_quota(root, &q);
  return q.cpus;
}

void rcupl_limits_quota(struct rcupl_quota *q) {
  char root[PATH_MAX];
  rcupl_machine_cgroup_root(root, sizeof root);
  rcupl_limits_cgroup_quota(root, q);
}

size_t rcupl_limits_cpu_quota(void) {
  struct rcupl_quota q;
  rcupl_limits_quota(&q);
  return q.cpus;
}
