/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Records the pthreadpool_t and the flags of every pthreadpool_parallelize_*
// call made in this test binary: by XNNPACK's partitions (libXNNPACK calls them through
// the dynamic linker, which finds this binary's definitions first) and by
// rcupool_parallelize_1d(). Each call is forwarded to libpthreadpool.
// Link this only into a test that wants it.
#ifndef RCUPOOL_TESTS_XNNPACK_RECORDER_H
#define RCUPOOL_TESTS_XNNPACK_RECORDER_H

#include <cstdint>
#include <set>
#include <vector>

#include <pthreadpool.h>

namespace rcupool_test {

// Clears the record, then records until the next Clear().
void ClearPoolRecord();
// The pools of the calls made since the last Clear(), in call order.
std::vector<pthreadpool_t> RecordedPools();
// The same, as a set.
std::set<pthreadpool_t> RecordedPoolSet();
// The flags argument of the same calls, in call order.
std::vector<uint32_t> RecordedFlags();

// The flags rcupool's yield policy adds to every call it makes (lib/idle.c,
// IDLE-1): with the executor API they also give a view's borrowed threads
// back at the end of each call.
#ifdef PTHREADPOOL_FLAG_DONT_SPIN_WORKERS
constexpr uint32_t kYieldPolicyFlags =
    PTHREADPOOL_FLAG_YIELD_WORKERS | PTHREADPOOL_FLAG_DONT_SPIN_WORKERS;
#else
constexpr uint32_t kYieldPolicyFlags = PTHREADPOOL_FLAG_YIELD_WORKERS;
#endif

}  // namespace rcupool_test

#endif  // RCUPOOL_TESTS_XNNPACK_RECORDER_H
