/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Failure injection: the library's allocation and pool-start sites ask
 * rcupl_fault() whether to fail; rcupool's own tests install the hook
 * (lib/testing.h). Not part of the public API.
 *
 * Invariant kept here:
 *   FAULT-1. With no hook installed, rcupl_fault() is one acquire load and
 *       returns false. The hook is installed and removed only while no
 *       other thread can be inside the library's allocation or creation
 *       paths.
 */
#include "fault.h"
#include "rcupool/rcupool.h"
#include "testing.h"

static rcupl_fault_hook_fn fault_hook;
static void *fault_ctx;

void rcupl_fault_set_hook(rcupl_fault_hook_fn fn, void *ctx) {
  __atomic_store_n(&fault_ctx, ctx, __ATOMIC_RELAXED);
  __atomic_store_n(&fault_hook, fn, __ATOMIC_RELEASE);
}

bool rcupl_fault(enum rcupl_fault_site site) {
  rcupl_fault_hook_fn fn = __atomic_load_n(&fault_hook, __ATOMIC_ACQUIRE);
  if (__builtin_expect(fn == NULL, 1)) return false;
  return fn(__atomic_load_n(&fault_ctx, __ATOMIC_RELAXED), (int)site);
}

void rcupl_hold_point(enum rcupl_fault_site site) { (void)rcupl_fault(site); }

_Static_assert(RCUPL_FAULT_SITE_ALLOC == (int)RCUPL_FAULT_ALLOC, "fault sites");
_Static_assert(RCUPL_FAULT_SITE_POOL_CREATE == (int)RCUPL_FAULT_POOL_CREATE,
               "fault sites");
_Static_assert(RCUPL_FAULT_SITE_RECLAIM_THREAD ==
                   (int)RCUPL_FAULT_RECLAIM_THREAD,
               "fault sites");
_Static_assert(
    RCUPL_HOLD_SITE_DEFAULT_LOCK == (int)RCUPL_HOLD_DEFAULT_LOCK &&
        RCUPL_HOLD_SITE_MANAGER_LOCK == (int)RCUPL_HOLD_MANAGER_LOCK &&
        RCUPL_HOLD_SITE_MANAGERS_MU == (int)RCUPL_HOLD_MANAGERS_MU &&
        RCUPL_HOLD_SITE_RECLAIM_QUEUE == (int)RCUPL_HOLD_RECLAIM_QUEUE &&
        RCUPL_HOLD_SITE_GP_GATE == (int)RCUPL_HOLD_GP_GATE &&
        RCUPL_HOLD_SITE_LOG_QUEUE == (int)RCUPL_HOLD_LOG_QUEUE &&
        RCUPL_HOLD_SITE_MACHINE_LOCK == (int)RCUPL_HOLD_MACHINE_LOCK &&
        RCUPL_HOLD_SITE_CPUS_LOCK == (int)RCUPL_HOLD_CPUS_LOCK &&
        RCUPL_HOLD_SITE_MEMB_FORK_LOCK == (int)RCUPL_HOLD_MEMB_FORK_LOCK &&
        RCUPL_HOLD_SITE_RESET_RETIRE == (int)RCUPL_HOLD_RESET_RETIRE,
    "hold points");
_Static_assert(RCUPL_FAULT_SITE_CPUINFO == (int)RCUPL_FAULT_CPUINFO,
               "fault sites");
