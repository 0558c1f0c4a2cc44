/*
 * Pins: a holder's claim on one pool, in caller-owned storage.
 *
 * Invariants kept here:
 *   N1. A pin is taken inside a read-side section on the pool that section
 *       saw as current. That pool holds a current or retire reference for
 *       as long as the section lasts (its retire callback waits for the
 *       section), so the increment never starts from zero.
 *   N2. An unpin's last access to shared memory is its decrement of the
 *       pool's refs, or, if that was the last reference, the hand-over of
 *       the pool it now owns to the reclaim thread. It never touches the
 *       manager, so rcupool_destroy() can trust a pin count of zero, and it
 *       never frees on the calling thread (a task may unpin its own pool).
 *   N3. An empty pin has pool_ == NULL; rcupool_unpin() empties the pin it
 *       releases, so a second unpin is detected, logged and ignored.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

int rcupool_pin(rcupool_t *m, rcupool_pin_t *pin) {
  if (m == NULL || pin == NULL) return -EINVAL;
  if (pin->pool_ != NULL) {
    rp_log(RCUPOOL_LOG_WARN, "pin: pin %p already holds a pool", (void *)pin);
    return -EBUSY;
  }
  rp_fork_settle(m); /* a fork child's first pin gets the real pool */
  rp_read_lock();
  struct rp_pool *p = __atomic_load_n(&m->current, __ATOMIC_ACQUIRE);
  size_t old = __atomic_fetch_add(&p->refs, 1, __ATOMIC_RELAXED);
  uint64_t gen = __atomic_load_n(&p->generation, __ATOMIC_RELAXED);
  rp_read_unlock();
  if (__builtin_expect(old == 0, 0)) {
    fprintf(stderr, "rcupool: pin: pool %p reached from a section at refs 0\n",
            (void *)p);
    abort();
  }
  pin->pool_ = p;
  pin->manager_ = m;
  pin->threadpool_ = p->tp;
  pin->threads_ = p->threads;
  pin->generation_ = gen;
  return 0;
}

void rcupool_unpin(rcupool_pin_t *pin) {
  if (pin == NULL) {
    rp_log(RCUPOOL_LOG_WARN, "unpin: NULL pin ignored");
    return;
  }
  struct rp_pool *p = pin->pool_;
  if (p == NULL) {
    rp_log(RCUPOOL_LOG_WARN,
           "unpin: pin %p is empty (never pinned or already released); "
           "ignored",
           (void *)pin);
    return;
  }
  pin->pool_ = NULL;
  pin->threadpool_ = NULL;
  pin->threads_ = 0;
  pin->generation_ = 0;
  if (rp_pool_put(p)) rp_reclaim_free_later(p);
}

pthreadpool_t rcupool_pin_pthreadpool(const rcupool_pin_t *pin) {
  return pin != NULL && pin->pool_ != NULL ? pin->threadpool_ : NULL;
}

size_t rcupool_pin_threads(const rcupool_pin_t *pin) {
  return pin != NULL && pin->pool_ != NULL ? pin->threads_ : 0;
}

uint64_t rcupool_pin_generation(const rcupool_pin_t *pin) {
  return pin != NULL && pin->pool_ != NULL ? pin->generation_ : 0;
}

bool rcupool_pin_is_current(const rcupool_pin_t *pin) {
  if (pin == NULL || pin->pool_ == NULL) return false;
  /* Comparing addresses needs no section: the pin keeps its pool alive, so
   * no other pool can be at that address. */
  return __atomic_load_n(&pin->manager_->current, __ATOMIC_RELAXED) ==
         pin->pool_;
}
