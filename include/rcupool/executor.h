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
 * PTHREADPOOL_FLAG_DONT_SPIN_WORKERS). e->num_threads() is the count of
 * threads the set has, and a pthreadpool_create_v2() of n threads gets at
 * most that many plus its caller: this call first grows the set to m's
 * current width less one, so a pool of m's width made right after gets
 * its width.
 * Which threads the set keeps for your pools: rcupool cannot see them
 * destroyed, so it keeps the threads each was sized from (what
 * num_threads() answered at its creation, and what this call grew the set
 * to) until rcupool_trim(m) or rcupool_finalize(), which let them go at
 * once with the rest of what is idle. A pool of yours that is still alive
 * then gets them back at its next parallel call: that call starts them
 * again (a thread start; never a wait for a task of anyone's). So destroy
 * your pools when done, and the process's threads follow the widest width
 * in use after the application's next trim.
 * When two parallel calls want more threads than the set has, each caller
 * works on its own items and takes the threads as they come free: no call
 * waits for a thread to start it, so none deadlocks or runs slower than on
 * its caller alone.
 * Returns: 0 with *executor and *context set, or
 *   -EINVAL   m, executor or context is NULL;
 *   -ENOTSUP  this rcupool was built against a pthreadpool without the
 *             executor API (nothing is set);
 *   -ENOMEM   the set could not be allocated;
 *   -EAGAIN   a thread the growth needed could not start (a thread limit;
 *             *executor and *context are not set, the set keeps the
 *             threads it has).
 * Threads: any, including a task running on a pool.
 * Blocks: may start threads (the growth above), under a lock of the set
 *   that no task holds; never waits for a task.
 * Lifetime: *executor and *context are valid until rcupool_destroy(m)
 *   (never for rcupool_default()'s manager, also after
 *   rcupool_finalize()); a pool made on them must be destroyed before
 *   rcupool_destroy(m).
 */
RCUPOOL_API int rcupool_executor(rcupool_t *m,
                                 struct pthreadpool_executor **executor,
                                 void **context);

#ifdef __cplusplus
}
#endif

#endif /* RCUPOOL_EXECUTOR_H */
