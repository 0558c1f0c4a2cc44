/*
 * Failure injection and private accessors for tests (lib/testing.h). Not
 * part of the public API.
 *
 * Invariant: with no hook installed, rp_fault() is one relaxed load and
 * returns false. The hook is installed and removed only while no other
 * thread can be inside the library's allocation or creation paths.
 */
#include "internal.h"
#include "testing.h"

static rp_fault_hook_fn fault_hook;
static void *fault_ctx;

void rp_fault_set_hook(rp_fault_hook_fn fn, void *ctx) {
  __atomic_store_n(&fault_ctx, ctx, __ATOMIC_RELAXED);
  __atomic_store_n(&fault_hook, fn, __ATOMIC_RELEASE);
}

bool rp_fault(enum rp_fault_site site) {
  rp_fault_hook_fn fn = __atomic_load_n(&fault_hook, __ATOMIC_ACQUIRE);
  if (__builtin_expect(fn == NULL, 1)) return false;
  return fn(__atomic_load_n(&fault_ctx, __ATOMIC_RELAXED), (int)site);
}

_Static_assert(RP_FAULT_SITE_ALLOC == (int)RP_FAULT_ALLOC, "fault sites");
_Static_assert(RP_FAULT_SITE_POOL_CREATE == (int)RP_FAULT_POOL_CREATE,
               "fault sites");

/* --- private accessors for the torture test (testing.h) ----------------- */

const void *rp_testing_current_pool(rcupool_t *m) {
  return __atomic_load_n(&m->current, __ATOMIC_ACQUIRE);
}

const void *rp_testing_pin_pool(const rcupool_pin_t *pin) {
  return pin->pool_;
}

uint64_t rp_testing_pool_canary(const void *pool) {
  return __atomic_load_n(&((const struct rp_pool *)pool)->canary,
                         __ATOMIC_RELAXED);
}

pthreadpool_t rp_testing_pool_pthreadpool(const void *pool) {
  return ((const struct rp_pool *)pool)->tp;
}

_Static_assert(RP_TESTING_POOL_CANARY == RP_POOL_CANARY, "pool canary");
