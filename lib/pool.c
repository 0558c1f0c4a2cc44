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
 *   POOL-4. A pool is created only when its workers were just seen to
 *       start: as many probe threads as it has workers, with the same
 *       default attributes, all alive at once (rp_workers_can_start).
 *       Whatever stops a thread start (RLIMIT_NPROC, RLIMIT_DATA or
 *       RLIMIT_AS for the stacks, a pids cgroup, kernel.threads-max,
 *       vm.max_map_count, memory) stops a probe first, so the start is
 *       -EAGAIN rather than a pthreadpool_create() that never returns.
 *       The probes' stacks go to the C library's stack cache when they
 *       are joined, and the pool's workers start on them.
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
  rp_mutex_lock(&pr->mu);
  while (!pr->go) rp_cond_wait(&pr->cv, &pr->mu);
  rp_mutex_unlock(&pr->mu);
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
  rp_mutex_lock(&pr.mu);
  pr.go = true;
  pthread_cond_broadcast(&pr.cv);
  rp_mutex_unlock(&pr.mu);
  for (size_t i = 0; i < started; i++) pthread_join(t[i], NULL);
  free(t);
  return started == workers;
}

int rp_pool_create(rcupool_t *m, size_t threads, struct rp_pool **out) {
  if (rp_fault(RP_FAULT_ALLOC)) return -ENOMEM;
  struct rp_pool *p = aligned_alloc(RP_CACHELINE, sizeof(*p));
  if (p == NULL) return -ENOMEM;
  memset(p, 0, sizeof(*p));

  pthreadpool_t tp = NULL;
  if (!rp_fault(RP_FAULT_POOL_CREATE) && rp_workers_can_start(threads - 1)) {
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
  p->refs = 1; /* the manager's reference */
  p->managed = true;
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

/* POOL-5: the pthreadpools of pools orphaned by fork(), pushed by
 * rp_pool_stop() on the reclaim thread, a grace period before the pool's
 * memory is freed (a lock-free push: pushes are the only writes). A node that cannot be allocated leaves its pthreadpool
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
