/*
 * The read side: RCU read-side sections and the current pool.
 *
 * Invariants kept here:
 *   R1. A reader never locks, allocates (after its thread's first section)
 *       or writes shared memory: the section is liburcu's, the pointer load
 *       is a plain acquire load.
 *   R2. Everything a reader did with a pool happens before that pool's
 *       retire callback: liburcu's grace period, annotated for TSAN by the
 *       release just before the section ends (tsan.h).
 *
 * This is the one file that inlines liburcu's per-thread reader state (see
 * the asan config in .bazelrc for why that matters to UBSan).
 */
#include "internal.h"

void rp_read_lock(void) {
  rp_rcu_reader_ready();
  rp_rcu_read_lock_raw();
}

void rp_read_unlock(void) {
  RP_TSAN_GP_RELEASE();
  rp_rcu_read_unlock_raw();
}

void rcupool_read_lock(void) { rp_read_lock(); }

void rcupool_read_unlock(void) { rp_read_unlock(); }

#if defined(RCUPOOL_URCU_BP)
/* rcupool/inline.h refers to this symbol so that code inlining urcu-bp's
 * read side cannot link against a library built with another flavour. */
RCUPOOL_API void rcupool_abi_urcu_bp_v0(void);
void rcupool_abi_urcu_bp_v0(void) {}
#endif

bool rp_read_ongoing(void) { return rp_rcu_read_ongoing() != 0; }

pthreadpool_t rcupool_current(rcupool_t *m) {
  if (m == NULL) return NULL;
  struct rp_pool *p = __atomic_load_n(&m->current, __ATOMIC_ACQUIRE);
  return p != NULL ? p->tp : NULL;
}
