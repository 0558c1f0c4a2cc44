/*
 * Private test hooks of the library, for rcupool's own tests. Not installed,
 * not exported from the shared library.
 */
#ifndef RCUPOOL_LIB_TESTING_H
#define RCUPOOL_LIB_TESTING_H

#include <stdbool.h>
#include <stddef.h>
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

/* --- the default size (lib/cpus.c) --- */

/* Test hook: read the cgroup files (proc/self/cgroup, sys/fs/cgroup/...)
 * under `root` instead of "/" for every later default count (rcupool_create
 * with 0 threads, rcupool_reset(m, 0)); NULL or "" restores the real files.
 * Also forgets the last sizing line logged, so the next count is logged at
 * info level again. Threads: any. Blocks: briefly (a library mutex). */
void rp_cpus_set_cgroup_root(const char *root);

/* The CPU quota of the process's cgroup as read under root ("" for the real
 * files): ceil(quota / period) CPUs, 0 when there is none. Never fails: a
 * missing file is no quota, a malformed one is logged and ignored. */
size_t rp_cpus_cgroup_limit(const char *root);

/* Parses the text of a cgroup v2 cpu.max ("max P" or "Q P"), and of the v1
 * pair cpu.cfs_quota_us ("-1" or Q) and cpu.cfs_period_us (P): *cpus =
 * ceil(Q / P) capped at RCUPOOL_MAX_THREADS, or 0 for no quota. Returns 0,
 * or -EINVAL for a malformed text (*cpus untouched). */
int rp_cpus_parse_cpu_max(const char *text, size_t *cpus);
int rp_cpus_parse_cfs(const char *quota, const char *period, size_t *cpus);

#ifdef __cplusplus
}
#endif

#endif /* RCUPOOL_LIB_TESTING_H */
