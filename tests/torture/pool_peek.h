/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The torture test's view of rcupool's pool objects, to catch a pool freed
// while in use: the current pool object, a pin's pool object, a pool's
// canary and its pthreadpool. Read through the leading fields that
// <rcupool/inline.h> declares and lib/pool.h and lib/manager_internal.h assert (the manager's
// first field is its current pool; a pool starts with its canary, then its
// pthreadpool_t), and through the pin's private pool_ field. Nothing here
// is compiled into the library.
#ifndef RCUPOOL_TESTS_TORTURE_POOL_PEEK_H
#define RCUPOOL_TESTS_TORTURE_POOL_PEEK_H

#include <stdint.h>

#ifndef RCUPOOL_INLINE_OUT_OF_LINE
#define RCUPOOL_INLINE_OUT_OF_LINE 1  // the struct declarations only
#endif
#include <rcupool/inline.h>

// RCUPL_POOL_CANARY of lib/pool.h ("RCUPPOOL"): a live pool's canary. Were
// the two to differ, every check of the torture test would fail.
#define RCUPL_TESTING_POOL_CANARY UINT64_C(0x52435550504f4f4c)

// The pool object that is m's current pool. Call inside a read-side
// section; valid until the matching rcupool_read_unlock().
static inline const void *rcupl_testing_current_pool(rcupool_t *m) {
  return __atomic_load_n(&((const struct rcupool_head_ *)(const void *)m)
                              ->current_,
                         __ATOMIC_ACQUIRE);
}

// The pool object pinned by pin; NULL for an empty pin. pool_'s low bits
// may carry the library's flags (a pool is aligned to 64 bytes).
static inline const void *rcupl_testing_pin_pool(const rcupool_pin_t *pin) {
  return (const void *)((uintptr_t)pin->pool_ & ~(uintptr_t)63);
}

// A pool object's canary (RCUPL_TESTING_POOL_CANARY while it may be used) and
// its pthreadpool. Reading a freed pool is the use after free these exist
// to catch.
static inline uint64_t rcupl_testing_pool_canary(const void *pool) {
  return __atomic_load_n(
      &((const struct rcupool_pool_head_ *)pool)->canary_, __ATOMIC_RELAXED);
}

static inline pthreadpool_t rcupl_testing_pool_pthreadpool(const void *pool) {
  return ((const struct rcupool_pool_head_ *)pool)->threadpool_;
}

#endif  // RCUPOOL_TESTS_TORTURE_POOL_PEEK_H
