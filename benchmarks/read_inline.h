/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rcupool's inline read side, called from C (read_inline.c). */
#ifndef RCUPOOL_BENCHMARKS_READ_INLINE_H
#define RCUPOOL_BENCHMARKS_READ_INLINE_H

#include <stddef.h>

#include <rcupool/rcupool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Runs n sections with rcupool_read_lock_inline, rcupool_current_inline and
 * rcupool_read_unlock_inline. */
void rcupool_inline_reads(rcupool_t *m, size_t n);

#ifdef __cplusplus
}
#endif

#endif
