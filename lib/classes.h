/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/classes.c's API, the class of each CPU (performance or
 * efficiency).
 */
#ifndef RCUPOOL_LIB_CLASSES_H
#define RCUPOOL_LIB_CLASSES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpuset.h"
#include "rcupool/rcupool.h"

/* The classes of the machine's CPUs, computed once (CLASSES-1) and kept
 * for the life of the process (a test's machine root computes them
 * again: rcupl_classes_reload). */
struct rcupl_classes {
  struct rcupl_cpuset performance, efficiency; /* disjoint */
  char source[128];            /* where they came from (logged and printed) */
  struct rcupl_classes *older; /* snapshots replaced by a test's reload */
};
const struct rcupl_classes *rcupl_classes_get(void);

#endif /* RCUPOOL_LIB_CLASSES_H */
