/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The library's grace periods: every one it waits for goes through the
 * gate here (gp_gate), which fork's handlers and the exit destructor
 * hold. Called by the reclaim thread (lib/reclaim.c), destroy
 * (lib/manager.c) and fork (lib/fork.c).
 *
 * Invariants kept here:
 *   GRACE-1. Every grace period the library waits for is
 *       rcupl_grace_synchronize(), which holds gp_gate around it. Under memb
 *       fork's prepare takes gp_gate, so no grace period of the library is
 *       in flight at a fork (liburcu-memb's grace-period lock has no fork
 *       hook). Under bp liburcu-bp's own fork hook settles its locks, and
 *       the child re-initialises gp_gate, which a parent thread may have
 *       held (lib/fork.c, FORK-2).
 *   GRACE-2. No grace period of the library starts once the process
 *       exits: liburcu's destructors (liburcu-bp's unmaps its reader
 *       registry) run after rcupool's own (ELF runs a library's
 *       destructors before those of the libraries it depends on, and a
 *       program's before its libraries'), and a grace period running then
 *       would read freed memory. rcupool's destructor takes gp_gate and
 *       never gives it back: it waits for a grace period of the library in
 *       flight, and every later one (the reclaim thread's, a barrier's or
 *       a destroy's on a thread still running) waits on the gate until the
 *       process ends. The reclaim thread (lib/reclaim.c) stops there; pools it had not
 *       freed are left to the process's end, like every pool alive at
 *       exit. When the exiting thread is inside a read-side section (the
 *       grace period in flight would wait for it) it takes nothing.
 */
#include <pthread.h>
#include <stdbool.h>

#include "context.h"
#include "fault.h"
#include "grace.h"
#include "lock.h"
#include "tsan.h"
#include "urcu_flavor.h"

static pthread_mutex_t gp_gate = PTHREAD_MUTEX_INITIALIZER; /* GRACE-1 */

void rcupl_grace_synchronize(void) {
  rcupl_mutex_lock(&gp_gate);
  rcupl_hold_point(RCUPL_HOLD_GP_GATE);
  rcupl_synchronize_rcu();
  rcupl_mutex_unlock(&gp_gate);
  RCUPL_TSAN_GP_ACQUIRE();
}

/* GRACE-2. Runs at exit() (or when a copy of the library that can be
 * unloaded is), before liburcu's destructors. */
__attribute__((destructor)) static void rcupl_grace_at_exit(void) {
  if (rcupl_in_read_section_quiet()) return;
  rcupl_mutex_lock(&gp_gate); /* never unlocked */
}

/* The gate's part of fork (called by lib/fork.c's handlers only; the
 * reclaim thread's part is lib/reclaim_fork.c). */
void rcupl_grace_fork_prepare(void) { rcupl_mutex_lock(&gp_gate); }
void rcupl_grace_fork_parent(void) { rcupl_mutex_unlock(&gp_gate); }
void rcupl_grace_fork_child(bool taken) {
  if (taken) {
    rcupl_mutex_unlock(&gp_gate);
  } else {
    /* bp: a thread of the parent may have held it; none exists here. */
    rcupl_mutex_init(&gp_gate);
  }
}
