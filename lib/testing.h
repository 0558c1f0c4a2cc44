/*
 * Private test hooks of the library, for rcupool's own tests. Not installed,
 * not exported from the shared library.
 */
#ifndef RCUPOOL_LIB_TESTING_H
#define RCUPOOL_LIB_TESTING_H

#include <stdbool.h>
#include <stdint.h>

#include "rcupool/rcupool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Mirrors enum rp_fault_site of internal.h. */
#define RP_FAULT_SITE_ALLOC 0
#define RP_FAULT_SITE_POOL_CREATE 1

/* Returns true to make the library call at `site` fail. */
typedef bool (*rp_fault_hook_fn)(void *ctx, int site);

/* Installs a failure hook (NULL removes it). Not thread-safe against calls
 * that allocate or create pools: install it while the library is idle. */
void rp_fault_set_hook(rp_fault_hook_fn fn, void *ctx);

/* Mirrors RP_POOL_CANARY of internal.h: a live pool's canary. */
#define RP_TESTING_POOL_CANARY UINT64_C(0x52435550504f4f4c)

/* The pool object (opaque) that is m's current pool. Call inside a
 * read-side section; valid until the matching rcupool_read_unlock(). */
const void *rp_testing_current_pool(rcupool_t *m);

/* The pool object pinned by pin; NULL for an empty pin. */
const void *rp_testing_pin_pool(const rcupool_pin_t *pin);

/* A pool object's canary (RP_TESTING_POOL_CANARY while it may be used) and
 * its pthreadpool. Reading a freed pool is the use after free these
 * accessors exist to catch. */
uint64_t rp_testing_pool_canary(const void *pool);
pthreadpool_t rp_testing_pool_pthreadpool(const void *pool);

#ifdef __cplusplus
}
#endif

#endif /* RCUPOOL_LIB_TESTING_H */
