/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* See calls.h. Compiled into libbench_calls.so only. */
#include "benchmarks/calls/calls.h"

#include <stddef.h>

void *bench_calls_first(void *x) { return x; }

void bench_calls_second(void) {}

/* One counted object, as the refcount baseline's: its own cache line. */
static struct {
  _Alignas(64) size_t refs;
} counted;

void *bench_calls_refcount_get(void) {
  __atomic_fetch_add(&counted.refs, 1, __ATOMIC_ACQUIRE);
  return &counted;
}

void bench_calls_refcount_put(void *p) {
  __atomic_fetch_sub(&((__typeof__(counted) *)p)->refs, 1, __ATOMIC_ACQ_REL);
}
