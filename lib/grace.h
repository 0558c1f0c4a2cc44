/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/grace.c's API, the library's grace periods and their gate.
 */
#ifndef RCUPOOL_LIB_GRACE_H
#define RCUPOOL_LIB_GRACE_H

#include <stdbool.h>

/* The library's one way to wait for a grace period (GRACE-1). */
void rcupl_grace_synchronize(void);

/* fork (lib/fork.c, GRACE-1): prepare takes the gate (memb: no grace
 * period in flight at the fork), parent gives it back; child gives it back
 * when taken, else (bp) initialises it again. */
void rcupl_grace_fork_prepare(void);
void rcupl_grace_fork_parent(void);
void rcupl_grace_fork_child(bool taken);

#endif /* RCUPOOL_LIB_GRACE_H */
