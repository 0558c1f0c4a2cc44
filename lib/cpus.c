/*
 * How many threads the default is: the count a pool gets when nobody named
 * one, and the RCUPOOL_NUM_THREADS override.
 *
 *   count = performance cores (cpuinfo) with a processor in the calling
 *           thread's affinity mask (sched_getaffinity)
 *           - no performance core in the mask: every core in the mask;
 *           - cpuinfo unavailable, or it knows none of the mask's CPUs:
 *             the number of CPUs in the mask;
 *         then capped by the CPU quota of the process's cgroup, at least 1.
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
 * unless a test installs another (rp_cpus_set_cgroup_root, testing.h).
 *
 * Invariants kept here:
 *   CPUS-1. Every count rp_cpus_thread_count() returns is in
 *           1..RCUPOOL_MAX_THREADS, whatever the files hold.
 *   CPUS-2. A missing cgroup file means "no quota at that level"; a
 *           malformed one is logged at warning level and ignored. Nothing
 *           read from a file is trusted: lengths are bounded, numbers are
 *           checked for range before use.
 *   CPUS-3. The line saying how the count was chosen is logged at info
 *           level when it differs from the last one logged (so once for a
 *           process whose limits never change), at debug level otherwise.
 *           last_line and cgroup_root are under cpus_lock.
 *   CPUS-4. RCUPOOL_NUM_THREADS is read only by rp_cpus_env_thread_count();
 *           an invalid value is logged and reads as "unset" (0).
 */
#define _GNU_SOURCE
#include <cpuinfo.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "testing.h"

static pthread_mutex_t cpus_lock = PTHREAD_MUTEX_INITIALIZER;
static char cgroup_root[PATH_MAX]; /* "" : the real files */
static char last_line[256];

void rp_cpus_set_cgroup_root(const char *root) {
  rp_mutex_lock(&cpus_lock);
  snprintf(cgroup_root, sizeof cgroup_root, "%s", root != NULL ? root : "");
  last_line[0] = '\0';
  rp_mutex_unlock(&cpus_lock);
}

/* --- cgroup files ---------------------------------------------------------- */

bool rp_read_small_file(const char *path, char *buf, size_t len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  size_t have = 0;
  while (have + 1 < len) {
    ssize_t got = read(fd, buf + have, len - 1 - have);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    have += (size_t)got;
  }
  close(fd);
  buf[have] = '\0';
  return true;
}

/* Parses a decimal in 1..10^18-1 from [s, s + n) (the digit cap keeps it
 * far below overflow). */
static bool rp_parse_positive(const char *s, size_t n, uint64_t *out) {
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

/* ceil(quota / period) CPUs, in 1..RCUPOOL_MAX_THREADS. */
static size_t rp_quota_cpus(uint64_t quota, uint64_t period) {
  uint64_t cpus = quota / period + (quota % period != 0);
  if (cpus < 1) cpus = 1;
  return cpus > RCUPOOL_MAX_THREADS ? RCUPOOL_MAX_THREADS : (size_t)cpus;
}

/* The length of text without trailing blanks and newlines. */
static size_t rp_trimmed_len(const char *text) {
  size_t n = strlen(text);
  while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' ' ||
                   text[n - 1] == '\t'))
    n--;
  return n;
}

int rp_cpus_parse_cpu_max(const char *text, size_t *cpus) {
  size_t n = rp_trimmed_len(text);
  const char *space = memchr(text, ' ', n);
  size_t qlen = space != NULL ? (size_t)(space - text) : n;
  uint64_t quota, period;
  if (qlen == 3 && memcmp(text, "max", 3) == 0) {
    if (space != NULL &&
        !rp_parse_positive(space + 1, n - qlen - 1, &period))
      return -EINVAL;
    *cpus = 0;
    return 0;
  }
  if (space == NULL || !rp_parse_positive(text, qlen, &quota) ||
      !rp_parse_positive(space + 1, n - qlen - 1, &period))
    return -EINVAL;
  *cpus = rp_quota_cpus(quota, period);
  return 0;
}

int rp_cpus_parse_cfs(const char *quota_text, const char *period_text,
                      size_t *cpus) {
  size_t qn = rp_trimmed_len(quota_text), pn = rp_trimmed_len(period_text);
  uint64_t quota, period;
  if (!rp_parse_positive(period_text, pn, &period)) return -EINVAL;
  if (qn == 2 && memcmp(quota_text, "-1", 2) == 0) {
    *cpus = 0;
    return 0;
  }
  if (!rp_parse_positive(quota_text, qn, &quota)) return -EINVAL;
  *cpus = rp_quota_cpus(quota, period);
  return 0;
}

/* Reads one level's quota. Returns 1 and sets *cpus (0: no quota) when the
 * level has the file(s), 0 when it has none; a malformed file is logged and
 * counts as "none" at this level. */
static int rp_read_level(const char *dir, bool v2, size_t *cpus) {
  char path[PATH_MAX + 32], a[128], b[128] = "";
  const char *file = v2 ? "cpu.max" : "cpu.cfs_quota_us";
  if (snprintf(path, sizeof path, "%s/%s", dir, file) >= (int)sizeof path)
    return 0;
  if (!rp_read_small_file(path, a, sizeof a)) return 0;
  int err;
  if (v2) {
    err = rp_cpus_parse_cpu_max(a, cpus);
  } else {
    char ppath[PATH_MAX + 32];
    if (snprintf(ppath, sizeof ppath, "%s/cpu.cfs_period_us", dir) >=
            (int)sizeof ppath ||
        !rp_read_small_file(ppath, b, sizeof b))
      b[0] = '\0';
    err = rp_cpus_parse_cfs(a, b, cpus);
  }
  if (err != 0) {
    int an = (int)rp_trimmed_len(a), bn = (int)rp_trimmed_len(b);
    for (int i = 0; i < an; i++)  /* log printable text only */
      if (a[i] < 0x20 || a[i] > 0x7e) a[i] = '?';
    for (int i = 0; i < bn; i++)
      if (b[i] < 0x20 || b[i] > 0x7e) b[i] = '?';
    /* The reason first: a long path may be cut at the log's 255 bytes. */
    rp_log(RCUPOOL_LOG_WARN,
           "cgroup: not a CPU quota, ignored: \"%.*s\"%s%.*s%s in %s",
           an > 32 ? 32 : an, a, v2 ? "" : " (period \"",
           v2 ? 0 : (bn > 32 ? 32 : bn), v2 ? "" : b, v2 ? "" : "\")", path);
    return 0;
  }
  return 1;
}

/* Walks from mount/cgroup up to mount; the smallest quota wins. Returns
 * whether any level had the file(s); *cpus is 0 when none set a quota. */
static bool rp_walk_cgroup(const char *root, const char *mount,
                           const char *cgroup, bool v2, size_t *cpus) {
  char rel[PATH_MAX];
  if (snprintf(rel, sizeof rel, "%s", cgroup) >= (int)sizeof rel) return false;
  size_t n = strlen(rel);
  while (n > 0 && rel[n - 1] == '/') rel[--n] = '\0'; /* "/" becomes "" */
  bool found = false;
  *cpus = 0;
  for (;;) {
    char dir[PATH_MAX + 64];
    if (snprintf(dir, sizeof dir, "%s%s%s", root, mount, rel) <
        (int)sizeof dir) {
      size_t level;
      if (rp_read_level(dir, v2, &level)) {
        found = true;
        if (level != 0 && (*cpus == 0 || level < *cpus)) *cpus = level;
      }
    }
    if (rel[0] == '\0') break;
    char *slash = strrchr(rel, '/');
    if (slash == NULL) break;
    *slash = '\0';
  }
  return found;
}

size_t rp_cpus_cgroup_limit(const char *root) {
  char self[4096], path[PATH_MAX + 32];
  snprintf(path, sizeof path, "%s/proc/self/cgroup", root);
  if (!rp_read_small_file(path, self, sizeof self)) return 0;
  char v2[PATH_MAX] = "", v1[PATH_MAX] = "";
  bool have_v2 = false, have_v1 = false;
  for (char *line = self, *next; line != NULL && *line != '\0'; line = next) {
    next = strchr(line, '\n');
    if (next != NULL) *next++ = '\0';
    /* hierarchy-id:controllers:path */
    char *c1 = strchr(line, ':');
    char *c2 = c1 != NULL ? strchr(c1 + 1, ':') : NULL;
    if (c2 == NULL || c2[1] != '/') continue;
    if (c1 == line + 1 && line[0] == '0' && c2 == c1 + 1) {
      have_v2 = snprintf(v2, sizeof v2, "%s", c2 + 1) < (int)sizeof v2;
      continue;
    }
    for (char *c = c1 + 1; c < c2;) {
      char *end = memchr(c, ',', (size_t)(c2 - c));
      if (end == NULL) end = c2;
      if (end - c == 3 && memcmp(c, "cpu", 3) == 0)
        have_v1 = snprintf(v1, sizeof v1, "%s", c2 + 1) < (int)sizeof v1;
      c = end + 1;
    }
  }
  size_t cpus = 0;
  if (have_v2 && rp_walk_cgroup(root, "/sys/fs/cgroup", v2, true, &cpus))
    return cpus;
  if (have_v1) rp_walk_cgroup(root, "/sys/fs/cgroup/cpu", v1, false, &cpus);
  return cpus;
}

/* --- cores in the affinity mask ------------------------------------------- */

/* The calling thread's affinity mask, allocated; NULL if it cannot be read.
 * *bytes is its size. */
static cpu_set_t *rp_affinity_mask(size_t *bytes) {
  for (int cpus = 1024; cpus <= (1 << 16); cpus *= 2) {
    cpu_set_t *set = CPU_ALLOC(cpus);
    if (set == NULL) return NULL;
    size_t size = CPU_ALLOC_SIZE(cpus);
    if (sched_getaffinity(0, size, set) == 0) {
      *bytes = size;
      return set;
    }
    CPU_FREE(set);
    if (errno != EINVAL) return NULL;
  }
  return NULL;
}

struct rp_cores {
  size_t performance; /* performance cores with a processor in the mask */
  size_t any;         /* cores with a processor in the mask */
};

/* Counts cpuinfo's cores in the mask (mask NULL: every core). False when
 * cpuinfo cannot initialise. */
static bool rp_cores_in_mask(const cpu_set_t *mask, size_t bytes,
                             struct rp_cores *out) {
  out->performance = out->any = 0;
  if (!cpuinfo_initialize()) return false;
  uint32_t ncores = cpuinfo_get_cores_count();
  uint32_t nprocs = cpuinfo_get_processors_count();
  const struct cpuinfo_core *cores = cpuinfo_get_cores();
  const struct cpuinfo_processor *procs = cpuinfo_get_processors();
  if (ncores == 0 || cores == NULL || procs == NULL) return false;
  /* Performance cores: those with the highest frequency. Where the
   * frequency is unknown (0, common on x86), every core counts. */
  uint64_t top = 0;
  for (uint32_t i = 0; i < ncores; i++)
    if (cores[i].frequency > top) top = cores[i].frequency;
  for (uint32_t i = 0; i < ncores; i++) {
    bool in = mask == NULL;
    for (uint32_t j = 0; !in && j < cores[i].processor_count; j++) {
      uint32_t k = cores[i].processor_start + j;
      if (k >= nprocs) break;
      int id = procs[k].linux_id;
      in = id >= 0 && CPU_ISSET_S((size_t)id, bytes, mask);
    }
    if (!in) continue;
    out->any++;
    if (cores[i].frequency == top) out->performance++;
  }
  return true;
}

static size_t rp_clamp(size_t n) {
  if (n < 1) return 1;
  return n > RCUPOOL_MAX_THREADS ? RCUPOOL_MAX_THREADS : n;
}

size_t rp_cpus_thread_count(void) {
  char root[PATH_MAX];
  rp_mutex_lock(&cpus_lock);
  memcpy(root, cgroup_root, sizeof root);
  rp_mutex_unlock(&cpus_lock);

  size_t bytes = 0;
  cpu_set_t *mask = rp_affinity_mask(&bytes);
  bool have_mask = mask != NULL;
  size_t in_mask = have_mask ? (size_t)CPU_COUNT_S(bytes, mask) : 0;
  struct rp_cores cores;
  bool have_cpuinfo = rp_cores_in_mask(mask, bytes, &cores);
  if (have_mask) CPU_FREE(mask);

  char why[160];
  size_t n;
  char of_mask[48];
  if (have_mask)
    snprintf(of_mask, sizeof of_mask, "in the affinity mask of %zu CPUs",
             in_mask);
  else
    snprintf(of_mask, sizeof of_mask, "(affinity mask unreadable)");
  if (have_cpuinfo && cores.performance > 0) {
    n = cores.performance;
    snprintf(why, sizeof why, "%zu performance cores %s", n, of_mask);
  } else if (have_cpuinfo && cores.any > 0) {
    n = cores.any;
    snprintf(why, sizeof why, "%zu cores %s (none of them a performance core)",
             n, of_mask);
  } else if (have_mask) {
    n = in_mask;
    snprintf(why, sizeof why, "%s the affinity mask's %zu CPUs",
             have_cpuinfo ? "cpuinfo knows none of" : "no cpuinfo; counted",
             in_mask);
  } else {
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    n = online > 0 ? (size_t)online : 1;
    snprintf(why, sizeof why, "no cpuinfo, no affinity mask: %zu online CPUs",
             n);
  }
  n = rp_clamp(n);

  size_t quota = rp_cpus_cgroup_limit(root);
  char line[sizeof last_line];
  if (quota != 0) {
    if (quota < n) n = quota;
    snprintf(line, sizeof line, "default size %zu threads: %s; cgroup quota %zu CPUs",
             n, why, quota);
  } else {
    snprintf(line, sizeof line, "default size %zu threads: %s; no cgroup quota",
             n, why);
  }
  rp_mutex_lock(&cpus_lock);
  bool fresh = strcmp(line, last_line) != 0;
  if (fresh) memcpy(last_line, line, sizeof line);
  rp_mutex_unlock(&cpus_lock);
  rp_log(fresh ? RCUPOOL_LOG_INFO : RCUPOOL_LOG_DEBUG, "%s", line);
  return n;
}

/* --- RCUPOOL_NUM_THREADS --------------------------------------------------- */

size_t rp_cpus_env_thread_count(void) {
  const char *text = getenv(RCUPOOL_ENV_NUM_THREADS);
  if (text == NULL) return 0;
  const char *s = text;
  while (*s == ' ' || *s == '\t') s++;
  char *end = NULL;
  errno = 0;
  long v = (*s >= '0' && *s <= '9') ? strtol(s, &end, 10) : -1;
  if (end != NULL)
    while (*end == ' ' || *end == '\t' || *end == '\n') end++;
  if (v < 1 || v > RCUPOOL_MAX_THREADS || errno != 0 || end == NULL ||
      *end != '\0') {
    rp_log(RCUPOOL_LOG_WARN,
           "%s=\"%.32s\" is not a thread count in 1..%d; ignored",
           RCUPOOL_ENV_NUM_THREADS, text, RCUPOOL_MAX_THREADS);
    return 0;
  }
  rp_log(RCUPOOL_LOG_INFO, "default size %ld threads: %s=%ld", v,
         RCUPOOL_ENV_NUM_THREADS, v);
  return (size_t)v;
}
