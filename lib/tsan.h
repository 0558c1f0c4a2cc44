/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ThreadSanitizer annotations for synchronisation that TSAN cannot see:
 * liburcu 0.13 and pthreadpool are built without instrumentation.
 *
 * The edges annotated are real:
 *   - grace period: everything a reader did before leaving its read-side
 *     section happens before the grace-period callback (or the return of
 *     synchronize_rcu) that follows. Readers release rcupl_tsan_gp_token just
 *     before they leave; reclaim-queue pushers release it just before queueing;
 *     callbacks acquire it first; synchronize_rcu callers acquire it after.
 *   - pthreadpool dispatch: the caller's writes happen before each task, and
 *     each task happens before pthreadpool_parallelize_* returns
 *     (lib/parallel.c releases/acquires a start and an end address).
 *   - a view's executor context: every call pthreadpool makes of the
 *     executor with it (schedule, num_threads; lib/exec_set.c releases the
 *     context after its last read) happens before pthreadpool_destroy() of
 *     the view returns, which waits for the threads it recruited (the
 *     caller's own calls end before its unpin); lib/executor.c acquires it
 *     there, before the free.
 * Without -fsanitize=thread every macro compiles to nothing.
 */
#ifndef RCUPOOL_LIB_TSAN_H
#define RCUPOOL_LIB_TSAN_H

#if defined(__SANITIZE_THREAD__)
#define RCUPL_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RCUPL_TSAN 1
#endif
#endif

#if defined(RCUPL_TSAN)
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
extern char rcupl_tsan_gp_token;
#define RCUPL_TSAN_ACQUIRE(addr) __tsan_acquire((void *)(addr))
#define RCUPL_TSAN_RELEASE(addr) __tsan_release((void *)(addr))
#define RCUPL_TSAN_GP_RELEASE() __tsan_release(&rcupl_tsan_gp_token)
#define RCUPL_TSAN_GP_ACQUIRE() __tsan_acquire(&rcupl_tsan_gp_token)
#else
#define RCUPL_TSAN_ACQUIRE(addr) ((void)0)
#define RCUPL_TSAN_RELEASE(addr) ((void)0)
#define RCUPL_TSAN_GP_RELEASE() ((void)0)
#define RCUPL_TSAN_GP_ACQUIRE() ((void)0)
#endif

#endif /* RCUPOOL_LIB_TSAN_H */
