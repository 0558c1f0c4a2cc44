/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/parallel.c's API inside the library.
 */
#ifndef RCUPOOL_LIB_PARALLEL_H
#define RCUPOOL_LIB_PARALLEL_H

struct rcupl_pool;

/* The pool the calling thread holds a dispatch reference on (at most one:
 * a nested call runs inline and takes none), or NULL. */
const struct rcupl_pool *rcupl_parallel_dispatching(void);

#endif /* RCUPOOL_LIB_PARALLEL_H */
