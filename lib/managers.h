/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/managers.c's API inside the library: the list of every
 * manager.
 */
#ifndef RCUPOOL_LIB_MANAGERS_H
#define RCUPOOL_LIB_MANAGERS_H

#include "rcupool/rcupool.h"

/* Lists m (rcupool_create, before it returns m) and unlists it
 * (rcupool_destroy, before it frees m), under the list's lock. */
void rcupl_managers_add(rcupool_t *m);
void rcupl_managers_remove(rcupool_t *m);

/* Fork handlers' part of the list (MANAGERS-1): prepare takes the list's
 * lock and then every manager's lock; parent releases them; child calls
 * each(m) for every manager, then releases m's lock, then the list's. */
void rcupl_managers_fork_prepare(void);
void rcupl_managers_fork_parent(void);
void rcupl_managers_fork_child(void (*each)(rcupool_t *m));

/* Calls fn(m, ctx) for every listed manager, under the list's lock
 * (MANAGERS-1): the warm pass's way to every manager. */
void rcupl_managers_each(void (*fn)(rcupool_t *m, void *ctx), void *ctx);

#endif /* RCUPOOL_LIB_MANAGERS_H */
