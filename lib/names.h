/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/names.c's API, thread names.
 */
#ifndef RCUPOOL_LIB_NAMES_H
#define RCUPOOL_LIB_NAMES_H

#include <stddef.h>

/* Names the calling thread (pthread_setname_np; Linux keeps 15 bytes:
 * longer names are cut). The reclaim thread is "rcupool-reclaim". */
void rcupl_thread_set_name(const char *name);

/* Names the calling thread as worker `index` of a pool of `threads`
 * threads: "rcupool-w3/8", or "rcupool-100/101" where the "w" would not
 * fit. */
void rcupl_thread_name_worker(size_t index, size_t threads);

/* Names the calling thread as thread `index` (1-based) of an executor's
 * set, which views of every width borrow: "rcupool-w<index>/" and a
 * star. */
void rcupl_thread_name_set_worker(size_t index);

#endif /* RCUPOOL_LIB_NAMES_H */
