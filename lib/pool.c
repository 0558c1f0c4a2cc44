/*
 * The pool object: a pthreadpool_t of a fixed thread count and its
 * reference count (see internal.h for what the references are).
 *
 * Invariants kept here:
 *   POOL-1. tp, threads and manager never change while the pool is alive.
 *   POOL-2. refs never goes up from zero: rp_pool_tryget() fails on a dying
 *       pool, so exactly one party sees its rp_pool_put() return true.
 *   POOL-3. canary is RP_POOL_CANARY from creation until rp_pool_free()
 *       poisons it, just before the memory is returned.
 *   POOL-4. A pool is created only after its workers' worth of threads were
 *       seen to start (rp_workers_can_start), so a thread limit is -EAGAIN
 *       rather than a pthreadpool_create() that never returns.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
  p->refs = 1;
  CDS_INIT_LIST_HEAD(&p->node);
  rp_parallel_mark_workers(p);
  *out = p;
  return 0;
}

bool rp_pool_tryget(struct rp_pool *p) {
  size_t refs = __atomic_load_n(&p->refs, __ATOMIC_RELAXED);
  do {
    if (refs == 0) return false;
  } while (!__atomic_compare_exchange_n(&p->refs, &refs, refs + 1, true,
                                        __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
  return true;
}

bool rp_pool_put(struct rp_pool *p) {
  /* acq_rel: every holder's use of the pool happens before the free. */
  size_t old = __atomic_fetch_sub(&p->refs, 1, __ATOMIC_ACQ_REL);
  if (old == 0) rp_die("reference count underflow on pool %p", (void *)p);
  return old == 1;
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

void rp_pool_free(struct rp_pool *p) {
  rp_pool_check(p, "free");
  /* A pool orphaned by fork() has no threads left to join in this process:
   * its pthreadpool is leaked rather than destroyed (destroy would wait for
   * workers that do not exist). */
  if (!p->fork_orphan) pthreadpool_destroy(p->tp);
  __atomic_store_n(&p->canary, RP_POOL_POISON, __ATOMIC_RELAXED);
  free(p);
}
