/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Tests that call pthreadpool directly (on a pinned pthreadpool_t) use this
// instead of pthreadpool_parallelize_1d, so that ThreadSanitizer sees the
// hand-over between the caller and the workers of the uninstrumented
// pthreadpool (the same edges lib/parallel.c annotates).
#ifndef RCUPOOL_TESTS_ANNOTATE_H
#define RCUPOOL_TESTS_ANNOTATE_H

#include <pthreadpool.h>

namespace rcupool_test {

void AnnotatedParallelize1d(pthreadpool_t pool, pthreadpool_task_1d_t task,
                            void *ctx, size_t range);

}  // namespace rcupool_test

#endif
