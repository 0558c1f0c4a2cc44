/*
 * The pool object: a pthreadpool_t of a fixed thread count and its
 * reference count (see internal.h for what the references are).
 *
 * Invariants kept here:
 *   POOL-1. tp, threads and manager never change while the pool is alive.
 *   POOL-2. refs never goes up from zero: rp_pool_tryget() fails on a dying
 *       pool, so exactly one party sees its rp_pool_put() return true.
 *   POOL-3. canary is RP_POOL_CANARY from creation until rp_pool_free() poisons
 *       it, just before the memory is returned (after rp_pool_stop(): the
 *       threads go first, the memory a grace period later, RECLAIM-9).
 *   POOL-4. A pool is created only when its workers can start: either every
 *       limit that can stop a thread start is read and leaves room for them
 *       (rp_threads_have_room), or, when one cannot be read or is close,
 *       its workers' worth of probe threads were seen to start
 *       (rp_workers_can_start). So a thread limit is -EAGAIN rather than a
 *       pthreadpool_create() that never returns.
 *   POOL-5. A pool orphaned by fork() is freed without its pthreadpool,
 *       whose workers do not exist in this process (pthreadpool_destroy()
 *       would wait for them for ever). That pthreadpool is not dropped: it
 *       goes on the process's list of orphaned pthreadpools (`orphans`),
 *       kept for the life of the process, so the memory stays accounted
 *       for (a leak checker sees it reachable, a debugger finds it).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

/* The pthreadpool this library links (Debian 12's) does not check
 * pthread_create(): when a worker cannot start (RLIMIT_NPROC, out of
 * memory) pthreadpool_create() waits for it forever. So before creating a
 * pool, start as many probe threads as it has workers, with the same default
 * attributes, all alive at once, then let them go: if one cannot start, the
 * pool's would not either. A limit reached by another thread between the
 * probe's joins and the pool's creation still hangs the create; that window
 * is all that is left. */
struct rp_probe {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  bool go;
};

static void *rp_probe_main(void *arg) {
  struct rp_probe *pr = arg;
  pthread_mutex_lock(&pr->mu);
  while (!pr->go) pthread_cond_wait(&pr->cv, &pr->mu);
  pthread_mutex_unlock(&pr->mu);
  return NULL;
}

static bool rp_workers_can_start(size_t workers) {
  if (workers == 0) return true;
  pthread_t *t = malloc(workers * sizeof(*t));
  if (t == NULL) return false;
  struct rp_probe pr = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
                        false};
  size_t started = 0;
  while (started < workers &&
         pthread_create(&t[started], NULL, rp_probe_main, &pr) == 0)
    started++;
  pthread_mutex_lock(&pr.mu);
  pr.go = true;
  pthread_cond_broadcast(&pr.cv);
  pthread_mutex_unlock(&pr.mu);
  for (size_t i = 0; i < started; i++) pthread_join(t[i], NULL);
  free(t);
  return started == workers;
}

/* The probe costs as many thread starts as the pool's own (it doubled the
 * cost of a reset to a new size). Cheaper, and enough when it says yes:
 * read what can stop a thread start and see room for `workers` more.
 * pthread_create() fails with EAGAIN on
 *   - RLIMIT_NPROC: the threads of the user; the user's count is at most
 *     every thread of the system (sysinfo()'s procs, the kernel's thread
 *     total), so total + workers below the limit leaves room (an infinite
 *     limit always does);
 *   - kernel.threads-max: the same total against it;
 *   - a pids cgroup limit: only a process in the root cgroup (v1 pids line
 *     or v2 line "/") with no pids.max at the mount point is known free of
 *     one (a container's own limit shows at its mount point);
 *   - no memory for the stack: RLIMIT_AS must be infinite and overcommit
 *     not strict (vm.overcommit_memory 2).
 * Any file that cannot be read, or any other answer: false, and the caller
 * probes with real threads. Like the probe, a limit reached by another
 * thread between this check and the pool's creation is not seen.
 *
 * The counts (threads alive, the two rlimits) are read at every check, by
 * system calls. The settings behind files (overcommit, threads-max, the
 * pids cgroup: four file reads, about 19 us, half a 2-thread
 * pthreadpool_create here) change only by an administrator's hand; each
 * thread keeps what it read for a second (rp_room_settings), so a setting
 * lowered within the last second is missed the way a limit reached between
 * check and create is. */
static bool rp_read_u64(const char *path, unsigned long long *out) {
  char buf[32];
  char *end;
  if (!rp_read_small_file(path, buf, sizeof buf)) return false;
  errno = 0;
  *out = strtoull(buf, &end, 10);
  return errno == 0 && end != buf && (*end == '\n' || *end == '\0');
}

/* No pids cgroup limit applies: the process sits in the root of the pids
 * hierarchy and no pids.max exists there (or it reads "max"). */
static bool rp_no_pids_limit(void) {
  char buf[1024];
  if (!rp_read_small_file("/proc/self/cgroup", buf, sizeof buf)) return false;
  const char *mount = NULL;
  for (char *line = buf, *next; line != NULL && *line; line = next) {
    next = strchr(line, '\n');
    if (next != NULL) *next++ = '\0';
    char *ctl = strchr(line, ':');
    char *path = ctl != NULL ? strchr(ctl + 1, ':') : NULL;
    if (path == NULL) return false;
    *path++ = '\0';
    ctl++;
    bool v2 = line[0] == '0' && line[1] == ':' && *ctl == '\0';
    bool pids = false;
    for (char *c = ctl, *e; c != NULL && *c; c = e) {
      e = strchr(c, ',');
      if (e != NULL) *e++ = '\0';
      if (strcmp(c, "pids") == 0) pids = true;
    }
    if (!v2 && !pids) continue;
    if (strcmp(path, "/") != 0) return false;
    if (pids) {
      mount = "/sys/fs/cgroup/pids/pids.max";
      break;
    }
    mount = "/sys/fs/cgroup/pids.max"; /* v2; a v1 pids line wins */
  }
  if (mount == NULL) return false; /* no pids line at all: unknown */
  char max[32];
  if (!rp_read_small_file(mount, max, sizeof max))
    return access(mount, F_OK) != 0;
  return strcmp(max, "max\n") == 0;
}

/* The file-backed settings of the room check, as one thread last read
 * them: usable (overcommit not strict and no pids cgroup limit, all files
 * read) and threads-max; `until` is when they go stale (CLOCK_MONOTONIC
 * ns, 0: never read). */
struct rp_room_settings {
  uint64_t until;
  unsigned long long threads_max;
  bool usable;
};
static __thread struct rp_room_settings room_settings;

static uint64_t rp_now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static const struct rp_room_settings *rp_room_settings(void) {
  struct rp_room_settings *s = &room_settings;
  uint64_t now = rp_now_ns();
  if (now < s->until) return s;
  unsigned long long overcommit;
  s->usable = rp_read_u64("/proc/sys/vm/overcommit_memory", &overcommit) &&
              overcommit != 2 &&
              rp_read_u64("/proc/sys/kernel/threads-max", &s->threads_max) &&
              rp_no_pids_limit();
  s->until = now + 1000000000u;
  return s;
}

static bool rp_threads_have_room(size_t workers) {
  struct rlimit as, nproc;
  if (getrlimit(RLIMIT_AS, &as) != 0 || as.rlim_cur != RLIM_INFINITY)
    return false;
  const struct rp_room_settings *set = rp_room_settings();
  if (!set->usable) return false;
  struct sysinfo si;
  if (sysinfo(&si) != 0) return false;
  unsigned long long need = (unsigned long long)si.procs + workers;
  if (need >= set->threads_max) return false;
  if (getrlimit(RLIMIT_NPROC, &nproc) != 0) return false;
  return nproc.rlim_cur == RLIM_INFINITY || need < nproc.rlim_cur;
}

int rp_pool_create(rcupool_t *m, size_t threads, struct rp_pool **out) {
  if (rp_fault(RP_FAULT_ALLOC)) return -ENOMEM;
  struct rp_pool *p = aligned_alloc(RP_CACHELINE, sizeof(*p));
  if (p == NULL) return -ENOMEM;
  memset(p, 0, sizeof(*p));

  pthreadpool_t tp = NULL;
  if (!rp_fault(RP_FAULT_POOL_CREATE) &&
      (threads <= 1 || rp_threads_have_room(threads - 1) ||
       rp_workers_can_start(threads - 1))) {
    /* pthreadpool_create(n) starts n-1 workers; the caller is the n-th. */
    tp = pthreadpool_create(threads);
  }
  if (tp == NULL) {
    free(p);
    return -EAGAIN;
  }
  p->canary = RP_POOL_CANARY;
  p->tp = tp;
  p->threads = pthreadpool_get_threads_count(tp);
  p->manager = m;
  p->refs = 1;
  CDS_INIT_LIST_HEAD(&p->node);
  rp_parallel_mark_workers(p);
  *out = p;
  return 0;
}

void rp_pool_put_underflow(struct rp_pool *p) {
  rp_die("reference count underflow on pool %p", (void *)p);
}

void rp_pool_get_dispatch(struct rp_pool *p) {
  size_t old = __atomic_fetch_add(&p->refs, RP_DISPATCH_REF, __ATOMIC_RELAXED);
  if (old == 0) rp_die("parallelize: pool %p reached at refs 0", (void *)p);
}

bool rp_pool_put_dispatch(struct rp_pool *p) {
  size_t old = __atomic_fetch_sub(&p->refs, RP_DISPATCH_REF, __ATOMIC_ACQ_REL);
  if (old < RP_DISPATCH_REF)
    rp_die("dispatch reference underflow on pool %p", (void *)p);
  return old == RP_DISPATCH_REF;
}

void rp_pool_check(const struct rp_pool *p, const char *where) {
  if (p->canary != RP_POOL_CANARY)
    rp_die("%s: pool %p used after free (canary %#llx)", where,
           (const void *)p, (unsigned long long)p->canary);
}

/* POOL-5: the pthreadpools of pools orphaned by fork(), pushed by the
 * thread that frees their pool (a lock-free push: pushes are the only
 * writes). A node that cannot be allocated leaves its pthreadpool
 * unlisted, nothing worse. */
struct rp_orphan {
  struct rp_orphan *next;
  pthreadpool_t tp;
};
static struct rp_orphan *orphans;

static void rp_pool_keep_orphan(pthreadpool_t tp) {
  struct rp_orphan *o = malloc(sizeof(*o));
  if (o == NULL) return;
  o->tp = tp;
  o->next = __atomic_load_n(&orphans, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(&orphans, &o->next, o, true,
                                      __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
  }
}

void rp_pool_stop(struct rp_pool *p) {
  rp_pool_check(p, "stop");
  if (p->fork_orphan)
    rp_pool_keep_orphan(p->tp); /* POOL-5 */
  else
    pthreadpool_destroy(p->tp);
}

void rp_pool_free(struct rp_pool *p) {
  rp_pool_check(p, "free");
  __atomic_store_n(&p->canary, RP_POOL_POISON, __ATOMIC_RELAXED);
  free(p);
}
