/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The number of threads of the calling process, read from /proc/self/task.
 * Shared by the demo, the churn tool, the benchmarks and the tests, which
 * all judge rcupool by the threads the kernel lists. Links no rcupool, so a
 * host that must not carry a copy of the library can use it too.
 */
#ifndef RCUPOOL_TOOLS_OS_THREADS_H
#define RCUPOOL_TOOLS_OS_THREADS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Threads listed in /proc/self/task; 0 if it cannot be read. */
size_t os_thread_count(void);

#ifdef __cplusplus
}
#endif

#endif /* RCUPOOL_TOOLS_OS_THREADS_H */
