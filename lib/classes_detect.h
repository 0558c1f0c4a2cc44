/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/classes_detect.c's API, the detection of each CPU's class
 * from the machine's files, and the type of the classes it fills.
 */
#ifndef RCUPOOL_LIB_CLASSES_DETECT_H
#define RCUPOOL_LIB_CLASSES_DETECT_H

#include "cpuset.h"

/* The classes of the machine's CPUs. */
struct rcupl_classes {
  struct rcupl_cpuset performance, efficiency; /* disjoint (CLASSES-3) */
  struct rcupl_cpuset present;                 /* the CPUs they are for */
  char source[128]; /* where they came from (logged and printed) */
};

/* Fills every field of *c from the files under root ("": the real files,
 * and cpuinfo; lib/classes_detect.c gives the rule). Reads files, takes no
 * lock; RCUPOOL_CPU_CLASSES is not read here (lib/classes.c). */
void rcupl_classes_detect(const char *root, struct rcupl_classes *c);

#endif /* RCUPOOL_LIB_CLASSES_DETECT_H */
