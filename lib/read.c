/*
 * The read side: RCU read-side sections and the current pool.
 *
 * Invariants kept here:
 *   READ-1. A reader never locks, allocates (after its thread's first section)
 *       or writes shared memory: the section is liburcu's, the pointer load
 *       is a plain acquire load.
 *   READ-2. Everything a reader did with a pool happens before that pool's
 *       retire callback: liburcu's grace period, annotated for TSAN by the
 *       release just before the section ends (tsan.h).
 *
 *   READ-3. rcupool_current() never creates anything: in a fork child before
 *       the first call that settles the default manager (lib/fork.c) it
 *       returns the 1-thread pool the child inherited as current.
 *   READ-4. rp_read_get_current() takes its pin reference inside its own
 *       section on the pool that section saw as current (pin.c, PIN-1): one
 *       call for the fast paths of rcupool_pin() and rcupool_pin_sized().
 *
 * This is the one file that inlines liburcu's per-thread reader state
 * (pins take their reference here too, rp_read_get_current: READ-4).
 * liburcu-bp declares its reader struct 128-byte aligned but allocates
 * readers at smaller steps, so UBSan's alignment check fires on every
 * inlined access: lib/BUILD compiles this file (target read_side) with
 * -fno-sanitize=alignment, so a consumer's -fsanitize=undefined build is
 * clean with no flag of its own. (A no_sanitize("alignment") attribute on
 * a caller elsewhere does not do: liburcu's inline functions are
 * instrumented before they are inlined.)
 */
#include <stddef.h>

#include "internal.h"

void rcupool_read_lock(void) { rp_rcu_read_lock(); }

void rcupool_read_unlock(void) {
  RP_TSAN_GP_RELEASE();
  rp_rcu_read_unlock();
}

/* The library's own names for the same code: aliases, not wrappers, so a
 * section costs the caller one call each way, and the library's own calls
 * bind to the local rp_* symbols (never through the PLT). */
void rp_read_lock(void) __attribute__((alias("rcupool_read_lock")));
void rp_read_unlock(void) __attribute__((alias("rcupool_read_unlock")));

#if defined(RCUPOOL_URCU_BP)
/* rcupool/inline.h refers to this symbol so that code inlining urcu-bp's
 * read side cannot link against a library built with another flavour. */
RCUPOOL_API void rcupool_abi_urcu_bp_v0(void);
void rcupool_abi_urcu_bp_v0(void) {}
#endif

pthreadpool_t rcupool_read_lock_current(rcupool_t *m) {
  rp_rcu_read_lock();
  if (m == NULL) return NULL;
  struct rp_pool *p = __atomic_load_n(&m->current, __ATOMIC_ACQUIRE);
  return p != NULL ? p->tp : NULL;
}

struct rp_pool *rp_read_get_current(rcupool_t *m, size_t threads,
                                    uint64_t *gen, size_t *refs_before) {
  rp_rcu_read_lock();
  struct rp_pool *p = __atomic_load_n(&m->current, __ATOMIC_ACQUIRE);
  if (threads != 0 && p->threads != threads) {
    p = NULL;
  } else {
    *refs_before = __atomic_fetch_add(&p->refs, 1, __ATOMIC_RELAXED);
    *gen = __atomic_load_n(&p->generation, __ATOMIC_RELAXED);
  }
  RP_TSAN_GP_RELEASE();
  rp_rcu_read_unlock();
  return p;
}

bool rp_read_ongoing(void) { return rp_rcu_read_ongoing() != 0; }

bool rp_read_ongoing_quiet(void) { return rp_rcu_read_ongoing_quiet() != 0; }

pthreadpool_t rcupool_current(rcupool_t *m) {
  if (m == NULL) return NULL;
  struct rp_pool *p = __atomic_load_n(&m->current, __ATOMIC_ACQUIRE);
  return p != NULL ? p->tp : NULL;
}
