/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcupool/inline.h: the read side inlined into the caller.
 *
 *   rcupool_read_lock_inline(), rcupool_current_inline(m),
 *   rcupool_read_unlock_inline()
 *
 * Same contract as rcupool_read_lock(), rcupool_current() and
 * rcupool_read_unlock() (rcupool.h), and interchangeable with them: a
 * section may be entered with one and left with the other. What changes is
 * the cost: three calls into the library become liburcu-bp's inline
 * read-side fast path and two loads in the caller's code.
 *
 * The price of including this header:
 *   - it defines _LGPL_SOURCE and includes liburcu-bp's headers, which
 *     inlines liburcu's LGPL-2.1 code into the caller's object files, and
 *     the caller links -lurcu-bp itself (Bazel's //:rcupool carries it);
 *   - it relies on the first fields of the manager and pool structs (the
 *     library asserts that layout at build time; it is part of the ABI of
 *     the soname's major version);
 *   - it needs a library built with the urcu-bp flavour (the default): the
 *     header references rcupool_abi_urcu_bp_v0, which only such a build
 *     defines, so a mismatch fails at link time rather than at run time.
 * The functions call the out-of-line versions instead under ThreadSanitizer
 * (which needs the library's annotations), under AddressSanitizer builds
 * (their UBSan rejects liburcu-bp's own reader struct, declared 128-byte
 * aligned but allocated at 32-byte steps), with RCUPOOL_URCU_MEMB defined
 * (Bazel defines it for the memb flavour), or when the includer defines
 * RCUPOOL_INLINE_OUT_OF_LINE.
 *
 * Returns, Threads, Blocks, Lifetime: those of the out-of-line functions
 * (rcupool/read.h), as the comment of the functions below says.
 */
#ifndef RCUPOOL_INLINE_H
#define RCUPOOL_INLINE_H

#include <rcupool/rcupool.h>

#if !defined(RCUPOOL_INLINE_OUT_OF_LINE)
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__) || \
    defined(RCUPOOL_URCU_MEMB)
#define RCUPOOL_INLINE_OUT_OF_LINE 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define RCUPOOL_INLINE_OUT_OF_LINE 1
#endif
#endif
#endif

#if !defined(RCUPOOL_INLINE_OUT_OF_LINE)
/* Before the extern "C" block: liburcu's headers give themselves C linkage,
 * and from 0.14 on they declare C++ templates when C++ compiles them,
 * which no extern "C" block may enclose. */
#ifndef _LGPL_SOURCE
#define _LGPL_SOURCE
#endif
#include <urcu/urcu-bp.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The leading fields of the library's structs that the inline path reads.
 * lib/pool.h and lib/manager_internal.h assert that they match. Not for
 * any other use (rcupool's own torture test reads pool canaries through
 * them). */
struct rcupool_pool_head_ {
  uint64_t canary_;
  pthreadpool_t threadpool_;
};
struct rcupool_head_ {
  struct rcupool_pool_head_ *current_;
};

#if defined(RCUPOOL_INLINE_OUT_OF_LINE)

/*
 * rcupool_read_lock_inline(), rcupool_read_unlock_inline(): as
 * rcupool_read_lock() and rcupool_read_unlock(); rcupool_current_inline(m):
 * as rcupool_current(m). (The inline versions below have the same
 * contract.)
 * Returns: nothing; m's current pool, NULL if m is NULL.
 * Threads: any, no registration; a section is left on the thread that
 *   entered it.
 * Blocks: as rcupool_read_lock(): with urcu-bp (the only flavour that
 *   inlines), only a thread's first section, which registers the thread.
 * Lifetime: the pool until the matching read unlock.
 */
static inline void rcupool_read_lock_inline(void) { rcupool_read_lock(); }
static inline void rcupool_read_unlock_inline(void) { rcupool_read_unlock(); }
static inline pthreadpool_t rcupool_current_inline(rcupool_t *m) {
  return rcupool_current(m);
}

#else

/*
 * The library's mark of the urcu-bp flavour: nothing calls it; every object
 * that inlines refers to it (below), so linking with a library of another
 * flavour fails.
 * Returns: nothing.
 * Threads: any (it does nothing).
 * Blocks: no.
 * Lifetime: no pointers kept.
 */
RCUPOOL_API void rcupool_abi_urcu_bp_v0(void);
/* A relocation against the flavour's symbol in every object that inlines. */
__attribute__((used)) static void (*const rcupool_inline_requires_bp_)(void) =
    rcupool_abi_urcu_bp_v0;

static inline void rcupool_read_lock_inline(void) { urcu_bp_read_lock(); }

static inline void rcupool_read_unlock_inline(void) { urcu_bp_read_unlock(); }

/* No NULL and no C cast where C++ compiles this: consumers build with
 * -Wzero-as-null-pointer-constant and -Wold-style-cast (clang) -Werror.
 * Undefined below. */
#if defined(__cplusplus) && __cplusplus >= 201103L
#define RCUPOOL_INLINE_NULL_ nullptr
#define RCUPOOL_INLINE_HEAD_(m) \
  static_cast<const struct rcupool_head_ *>(static_cast<const void *>(m))
#else
#define RCUPOOL_INLINE_NULL_ NULL
#define RCUPOOL_INLINE_HEAD_(m) \
  ((const struct rcupool_head_ *)(const void *)(m))
#endif

static inline pthreadpool_t rcupool_current_inline(rcupool_t *m) {
  const struct rcupool_pool_head_ *p;
  if (m == RCUPOOL_INLINE_NULL_) return RCUPOOL_INLINE_NULL_;
  p = __atomic_load_n(&RCUPOOL_INLINE_HEAD_(m)->current_, __ATOMIC_ACQUIRE);
  return p != RCUPOOL_INLINE_NULL_ ? p->threadpool_ : RCUPOOL_INLINE_NULL_;
}

#undef RCUPOOL_INLINE_NULL_
#undef RCUPOOL_INLINE_HEAD_

#endif /* RCUPOOL_INLINE_OUT_OF_LINE */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RCUPOOL_INLINE_H */
