/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The library's private test hooks (failure injection, lib/fault.c; the
 * machine root, lib/machine.c and lib/cpus.c; the cgroup quota's readers,
 * lib/limits.c), for rcupool's own tests. Defined in the library because
 * they steer its code; not installed, not exported from the shared library
 * (hidden symbols: a test that calls them links the library statically).
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

/* Mirrors enum rcupl_fault_site of fault.h. */
#define RCUPL_FAULT_SITE_ALLOC 0
#define RCUPL_FAULT_SITE_POOL_CREATE 1
#define RCUPL_FAULT_SITE_RECLAIM_THREAD \
  2 /* the reclaim thread's pthread_create */
/* Hold points: the hook is called inside one lock's critical section and
 * may block there (its result is ignored), so a test can fork while a
 * thread holds that lock (tests/fork/fork_locks_test.cc). The writers of
 * the managers are held through RCUPL_FAULT_SITE_POOL_CREATE (a reset or
 * a sized pin starting a pool holds its manager's writer). */
#define RCUPL_HOLD_SITE_DEFAULT_LOCK 3
#define RCUPL_HOLD_SITE_MANAGER_LOCK 4
#define RCUPL_HOLD_SITE_MANAGERS_MU 5
#define RCUPL_HOLD_SITE_RECLAIM_QUEUE 6
#define RCUPL_HOLD_SITE_GP_GATE 7
#define RCUPL_HOLD_SITE_LOG_QUEUE 8
#define RCUPL_HOLD_SITE_MACHINE_LOCK 9
#define RCUPL_HOLD_SITE_CPUS_LOCK 10
#define RCUPL_HOLD_SITE_MEMB_FORK_LOCK 11 /* memb builds only */
#define RCUPL_HOLD_SITE_RESET_RETIRE 12   /* writer held, retire not queued */
#define RCUPL_FAULT_SITE_CPUINFO 13       /* cpuinfo_initialize (lib/cpus.c) */

/* Returns true to make the library call at `site` fail. */
typedef bool (*rcupl_fault_hook_fn)(void *ctx, int site);

/* Installs a failure hook (NULL removes it). At a hold point the hook runs
 * with a library lock held: it must not call rcupool. Not thread-safe against calls
 * that allocate or create pools: install it while the library is idle. */
void rcupl_fault_set_hook(rcupl_fault_hook_fn fn, void *ctx);

/* --- the machine (lib/machine.c), the default size (lib/cpus.c), the
 * cgroup quota (lib/limits.c) --- */

/* Test hook, the machine seam: every file the library reads about the
 * machine is read under `root` ("<root>/sys/devices/system/cpu/...",
 * "<root>/sys/devices/cpu_atom/cpus", "<root>/proc/self/cgroup",
 * "<root>/sys/fs/cgroup/..."), and the affinity mask the default count
 * and rcupool_describe() see is the Cpus_allowed_list line of
 * <root>/proc/self/status (the real mask where that file is missing;
 * workers are always bound with the real one). cpuinfo is not asked
 * under a fake root. NULL or "" restores the real machine. Computes the
 * classes again (rcupl_classes_reload) and forgets the last sizing line
 * logged, so the next count is logged at info level again. Call while the
 * library is idle (no pool being created, no classes being read). */
void rcupl_machine_set_root(const char *root);

/* Test hook: read the cgroup files alone under `root` (the rest of the
 * machine stays as rcupl_machine_set_root left it); NULL or "" makes them
 * follow the machine root again. Also forgets the last sizing line logged.
 * Threads: any. Blocks: briefly (a library mutex). */
void rcupl_cpus_set_cgroup_root(const char *root);

/* The CPU quota of the process's cgroup as read under root ("" for the real
 * files): ceil(quota / period) CPUs, 0 when there is none. Never fails: a
 * missing file is no quota, a malformed one is logged and ignored. */
size_t rcupl_limits_cgroup_cpus(const char *root);

/* Parses the text of a cgroup v2 cpu.max ("max P" or "Q P"), and of the v1
 * pair cpu.cfs_quota_us ("-1" or Q) and cpu.cfs_period_us (P): *cpus =
 * ceil(Q / P) capped at RCUPOOL_MAX_THREADS, or 0 for no quota. Returns 0,
 * or -EINVAL for a malformed text (*cpus untouched). */
int rcupl_limits_parse_cpu_max(const char *text, size_t *cpus);
int rcupl_limits_parse_cfs(const char *quota, const char *period, size_t *cpus);

/* Test hook: under a fake machine root (rcupl_machine_set_root), take
 * `cores` as the count cpuinfo reads, for the sizing line and
 * rcupool_describe() only ("kernel topology; cpuinfo reads 1 core"): the
 * kernel's topology still gives the count wherever it covers the CPUs.
 * -1 (the default): cpuinfo not asked, as without the hook. The real
 * machine always asks cpuinfo itself. Call while the library is idle. */
void rcupl_cores_fake_cpuinfo(long cores);

/* --- core classes (lib/classes.c) and following (lib/follow.c) --- */

/* Test hook: installs `root` as the machine root (as
 * rcupl_machine_set_root, without forgetting the sizing line) and
 * computes the CPU classes again, reading RCUPOOL_CPU_CLASSES now. Call
 * while the library is idle. */
void rcupl_classes_reload(const char *root);

/* Test hook: how long a manager waits between two checks of its limits
 * (RCUPOOL_FOLLOW_PERIOD_MS by default); a manager created later starts
 * with it, an existing one at its next check. 0: every parallel call
 * checks. */
void rcupl_follow_set_period_ns(uint64_t ns);

/* Test hook: what a follow's info line says changed (lib/follow.c), for
 * limits given as CPU counts {affinity mask, cgroup quota, CPUs online}
 * (0: the mask or the online count unread, no quota), from -> to: e.g.
 * "affinity mask 2 CPUs -> 1 CPU; cgroup quota 1 CPU -> none". */
void rcupl_follow_describe_counts(const size_t from[3], const size_t to[3],
                                  char *buf, size_t len);

/* Benchmark hook: the check a parallel call makes after its work
 * (rcupl_follow_maybe, FOLLOW-3), through one call. */
void rcupl_follow_maybe_for_bench(rcupool_t *m);

/* Test hook: how many times a thread of an executor's set (lib/exec_set.c)
 * went to sleep without spinning first, in the whole process: under the
 * yield policy, after a task that came a tick or more after its sleep
 * (EXEC_SET-5). Always 0 with a pthreadpool without the executor API.
 * Threads: any. */
uint64_t rcupl_exec_unspun_sleeps(void);

#ifdef __cplusplus
}
#endif

#endif /* RCUPOOL_LIB_TESTING_H */
