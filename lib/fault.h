/*
 * Private: lib/fault.c's API, failure injection.
 */
#ifndef RCUPOOL_LIB_FAULT_H
#define RCUPOOL_LIB_FAULT_H

#include <stdbool.h>

enum rp_fault_site {
  RP_FAULT_ALLOC = 0,         /* any allocation of the library */
  RP_FAULT_POOL_CREATE = 1,   /* pthreadpool_create() */
  RP_FAULT_RECLAIM_THREAD = 2, /* the reclaim thread's pthread_create() */
};

/* Returns true when the test hook asks this call to fail. */
bool rp_fault(enum rp_fault_site site);

#endif /* RCUPOOL_LIB_FAULT_H */
