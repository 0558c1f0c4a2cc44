/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/default.c's API inside the library.
 */
#ifndef RCUPOOL_LIB_DEFAULT_H
#define RCUPOOL_LIB_DEFAULT_H

#include "rcupool/rcupool.h"

/* The default manager pointer, or NULL before it exists (fork handlers). */
rcupool_t *rcupl_default_peek(void);
/* Fork handlers' part of default.c: prepare takes default_lock (FORK-2),
 * parent and child release it. */
void rcupl_default_fork_prepare(void);
void rcupl_default_fork_parent(void);
void rcupl_default_fork_child(void);

#endif /* RCUPOOL_LIB_DEFAULT_H */
