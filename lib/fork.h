/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/fork.c's API inside the library.
 */
#ifndef RCUPOOL_LIB_FORK_H
#define RCUPOOL_LIB_FORK_H

/* Registers the fork handlers once per copy of the library. */
void rcupl_fork_register(void);

#endif /* RCUPOOL_LIB_FORK_H */
