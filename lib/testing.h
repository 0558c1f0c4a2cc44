/*
 * Private test hooks of the library, for rcupool's own tests. Not installed,
 * not exported from the shared library.
 */
#ifndef RCUPOOL_LIB_TESTING_H
#define RCUPOOL_LIB_TESTING_H

#include <stdbool.h>

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

#ifdef __cplusplus
}
#endif

#endif /* RCUPOOL_LIB_TESTING_H */
