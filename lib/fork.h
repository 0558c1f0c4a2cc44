/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/fork.c's API inside the library.
 */
#ifndef RCUPOOL_LIB_FORK_H
#define RCUPOOL_LIB_FORK_H

#include "rcupool/rcupool.h"

/* The default manager's part of the fork handlers, which lib/default.c
 * gives and lib/fork.c calls (fork.c knows default.c only through it):
 * prepare takes default_lock (FORK-2), parent and child release it; peek
 * is the default manager, or NULL before it exists. */
struct rcupl_fork_default {
  void (*prepare)(void);
  void (*parent)(void);
  void (*child)(void);
  rcupool_t *(*peek)(void);
};

/* Registers the fork handlers once per copy of the library, and the
 * default manager's part when `side` is not NULL (one side per copy: the
 * first non-NULL one is kept). lib/default.c registers its side while the
 * library loads, so every fork handler after that sees it. */
void rcupl_fork_register(const struct rcupl_fork_default *side);

#endif /* RCUPOOL_LIB_FORK_H */
