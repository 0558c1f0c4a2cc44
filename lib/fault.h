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
  RCUPL_FAULT_CPUINFO = 3,        /* cpuinfo_initialize() (the default size) */
};

/* Returns true when the test hook asks this call to fail. */
bool rcupl_fault(enum rcupl_fault_site site);

#endif /* RCUPOOL_LIB_FAULT_H */
