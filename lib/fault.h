/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/fault.c's API, failure injection.
 */
#ifndef RCUPOOL_LIB_FAULT_H
#define RCUPOOL_LIB_FAULT_H

#include <stdbool.h>

enum rcupl_fault_site {
  RCUPL_FAULT_ALLOC = 0,          /* any allocation of the library */
  RCUPL_FAULT_POOL_CREATE = 1,    /* pthreadpool_create() */
  RCUPL_FAULT_RECLAIM_THREAD = 2, /* the reclaim thread's pthread_create() */
  /* Hold points: inside the critical section of one lock each, where a
   * test's hook may keep the thread (to fork meanwhile); the hook's result
   * is ignored. docs/design.md, "Every lock a fork can catch". */
  RCUPL_HOLD_DEFAULT_LOCK = 3,  /* default.c: the first creation */
  RCUPL_HOLD_MANAGER_LOCK = 4,  /* manager.c: m->lock, rcupool_get_stats() */
  RCUPL_HOLD_MANAGERS_MU = 5,   /* manager.c: managers_mu, rcupool_create() */
  RCUPL_HOLD_RECLAIM_QUEUE = 6, /* reclaim.c: rq.mu, a push */
  RCUPL_HOLD_GP_GATE = 7,       /* grace.c: gp_gate, before the grace period */
  RCUPL_HOLD_LOG_QUEUE = 8,     /* log.c: lq.mu, a record queued */
  RCUPL_HOLD_MACHINE_LOCK = 9,  /* machine.c: machine_lock, a root copied */
  RCUPL_HOLD_CPUS_LOCK = 10,    /* cpus.c: cpus_lock, the sizing line */
  RCUPL_HOLD_MEMB_FORK_LOCK = 11, /* memb.c: fork_lock.mu, a registration */
  RCUPL_HOLD_RESET_RETIRE = 12,   /* reset.c: m->writer, published, the retire
                                   not yet queued */
  RCUPL_FAULT_CPUINFO = 13,       /* cpuinfo_initialize() (the default size) */
};

/* Returns true when the test hook asks this call to fail. */
bool rcupl_fault(enum rcupl_fault_site site);

/* A hold point (the sites from RCUPL_HOLD_DEFAULT_LOCK on): calls the test
 * hook, if any, which may block; one acquire load without one. */
void rcupl_hold_point(enum rcupl_fault_site site);

#endif /* RCUPOOL_LIB_FAULT_H */
