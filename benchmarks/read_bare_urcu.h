/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The limit of the read path: liburcu's own read-side section, inlined. */
#ifndef RCUPOOL_BENCHMARKS_READ_BARE_URCU_H
#define RCUPOOL_BENCHMARKS_READ_BARE_URCU_H

#include <stddef.h>

#include <pthreadpool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Publishes the object the sections read (once, before any reader). */
void bare_urcu_publish(pthreadpool_t tp);

/* Registers / unregisters the calling thread if the flavour needs it. */
void bare_urcu_thread_begin(void);
void bare_urcu_thread_end(void);

/* Runs n sections, each: lock, dereference, load the pool, unlock. */
void bare_urcu_reads(size_t n);

/* The same, each section made of three calls the compiler does not inline
 * (lock, dereference, unlock): the shape of rcupool's read API. */
void bare_urcu_reads_three_calls(size_t n);

#ifdef __cplusplus
}
#endif

#endif
