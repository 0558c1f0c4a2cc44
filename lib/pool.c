/*
 * The pool object: a pthreadpool_t of a fixed thread count and its
 * reference count (see internal.h for what the references are).
 *
 * Invariants kept here:
 *   P1. tp, threads and manager never change while the pool is alive.
 *   P2. refs never goes up from zero: rp_pool_tryget() fails on a dying
 *       pool, so exactly one party sees its rp_pool_put() return true.
 *   P3. canary is RP_POOL_CANARY from creation until rp_pool_free() poisons
 *       it, just before the memory is returned.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int rp_pool_create(rcupool_t *m, size_t threads, struct rp_pool **out) {
  if (rp_fault(RP_FAULT_ALLOC)) return -ENOMEM;
  struct rp_pool *p = aligned_alloc(RP_CACHELINE, sizeof(*p));
  if (p == NULL) return -ENOMEM;
  memset(p, 0, sizeof(*p));

  pthreadpool_t tp = NULL;
  if (!rp_fault(RP_FAULT_POOL_CREATE)) {
    /* pthreadpool_create(n) starts n-1 workers; the caller is the n-th.
     * It returns NULL when a thread cannot start (and cleans up itself). */
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
  if (old == 0) {
    fprintf(stderr, "rcupool: reference count underflow on pool %p\n",
            (void *)p);
    abort();
  }
  return old == 1;
}

void rp_pool_check(const struct rp_pool *p, const char *where) {
  if (p->canary != RP_POOL_CANARY) {
    fprintf(stderr, "rcupool: %s: pool %p used after free (canary %#llx)\n",
            where, (const void *)p, (unsigned long long)p->canary);
    abort();
  }
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
