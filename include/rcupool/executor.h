/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The manager's executor: threads of rcupool's that any pthreadpool made
 * by pthreadpool_create_v2() can run its parallel calls on. Declared in
 * every build; it works only where rcupool was built against a
 * pthreadpool with the executor API (pthreadpool 2025 on: struct
 * pthreadpool_executor, pthreadpool_create_v2), and answers -ENOTSUP with
 * any other (Debian 12's).
 */
#ifndef RCUPOOL_EXECUTOR_H
#define RCUPOOL_EXECUTOR_H

#include <rcupool/common.h>
#include <rcupool/manager.h>

#ifdef __cplusplus
extern "C" {
#endif

/* pthreadpool's own type where it has one; opaque here otherwise. */
struct pthreadpool_executor;

/*
 * The executor of m's threads (placement none), for a library that makes
 * its own pool on them:
 *   struct pthreadpool_executor *e; void *ctx;
 *   if (rcupool_executor(m, &e, &ctx) == 0)
 *     tp = pthreadpool_create_v2(e, ctx, n);
 * Such a pool borrows a thread of the set for each parallel call and gives
 * it back (pthreadpool_release_executor_threads(), or at once with
 * PTHREADPOOL_FLAG_DONT_SPIN_WORKERS). The set starts with no thread and
 * grows to the widest pool made on it: e->num_threads() is the count of
 * threads the set has, and a pthreadpool_create_v2() of n threads first
 * needs n-1 of them (rcupool starts them when it makes a pool on the set;
 * another library's pool gets at most what the set has then, plus its
 * caller). When two parallel calls want more threads than the set has,
 * each caller works on its own items and takes the threads as they come
 * free: no call waits for a thread to start it, so none deadlocks or runs
 * slower than on its caller alone.
 * Returns: 0 with *executor and *context set, or
 *   -EINVAL   m, executor or context is NULL;
 *   -ENOTSUP  this rcupool was built against a pthreadpool without the
 *             executor API (nothing is set);
 *   -ENOMEM   the set could not be allocated.
 * Threads: any.
 * Blocks: the first call allocates the set under a lock; later calls no.
 * Lifetime: *executor and *context are valid until rcupool_destroy(m)
 *   (never for rcupool_default()'s manager before rcupool_finalize()); a
 *   pool made on them must be destroyed before that.
 */
RCUPOOL_API int rcupool_executor(rcupool_t *m,
                                 struct pthreadpool_executor **executor,
                                 void **context);

#ifdef __cplusplus
}
#endif

#endif /* RCUPOOL_EXECUTOR_H */
