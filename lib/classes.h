/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/classes.c's API, the class of each CPU (performance or
 * efficiency): the snapshot of the classes and when it is taken again.
 */
#ifndef RCUPOOL_LIB_CLASSES_H
#define RCUPOOL_LIB_CLASSES_H

#include "classes_detect.h"

/* Copies the classes of the machine's CPUs into *out (CLASSES-1): the
 * snapshot, computed at the first call that needs it (a few files read,
 * no lock held) and again when rcupl_classes_follow_present() sees the
 * CPUs present change. Threads: any. Blocks: no, after the first call. */
void rcupl_classes_get(struct rcupl_classes *out);

/* Reads the CPUs present under root and, when they differ from those of
 * the snapshot, computes the classes again and publishes them (logged at
 * info level; CLASSES-1). Called by the looks that read the CPUs online
 * (lib/cpus.c's default count). Reads files; takes no lock. */
void rcupl_classes_follow_present(const char *root);

#endif /* RCUPOOL_LIB_CLASSES_H */
