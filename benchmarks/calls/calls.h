/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Calls into a shared object of their own (libbench_calls.so), for the
 * read benchmarks: what crossing into a .so costs by itself, measured in
 * the same run as rcupool's rows through librcupool.so.0.
 *
 *   bench_calls_first(x), bench_calls_second()
 *       return x and return: two calls with nothing in them, the floor of
 *       any section a caller opens and closes through a shared object
 *       (rcupool_read_lock_current + rcupool_read_unlock);
 *   bench_calls_refcount_get(), bench_calls_refcount_put(p)
 *       the atomic refcount get + put of baselines/refcount_getter.cc,
 *       behind the same two calls into the .so (rcupool_pin +
 *       rcupool_unpin).
 *
 * Threads: any. Nothing blocks. Not shipped.
 */
#ifndef RCUPOOL_BENCHMARKS_CALLS_CALLS_H
#define RCUPOOL_BENCHMARKS_CALLS_CALLS_H

#ifdef __cplusplus
extern "C" {
#endif

void *bench_calls_first(void *x);
void bench_calls_second(void);
void *bench_calls_refcount_get(void);
void bench_calls_refcount_put(void *p);

#ifdef __cplusplus
}
#endif

#endif /* RCUPOOL_BENCHMARKS_CALLS_CALLS_H */
