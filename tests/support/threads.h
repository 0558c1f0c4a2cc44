/* SPDX-License-Identifier: LGPL-2.1-or-later */
// OS thread counts for the tests. Links no rcupool, so the dlopen host of
// tests/shared (which must not carry a copy of the library) uses it too.
#ifndef RCUPOOL_TESTS_SUPPORT_THREADS_H
#define RCUPOOL_TESTS_SUPPORT_THREADS_H

#include <stddef.h>
#include <sys/types.h>

#include <map>
#include <string>

namespace rcupool_test {

// Number of threads of this process, read from /proc/self/task.
size_t OsThreadCount();

// Waits (up to ~2 s) until OsThreadCount() == expected; returns the last count.
// pthreadpool_destroy joins its workers, but the kernel may list an exiting
// thread for a moment after the join returns.
size_t WaitForOsThreadCount(size_t expected);

// The count once it has stayed the same for 100 ms (at most ~2 s): a
// baseline taken after joins, without a thread still being listed as it
// exits (under qemu-user a joined thread stays listed longer: its host
// thread exits after the guest's join has returned).
size_t SettledOsThreadCount();

// The name of thread `tid` of this process (/proc/self/task/<tid>/comm,
// without its newline); "" when it is gone.
std::string OsThreadName(pid_t tid);

// Every thread of this process, by tid, with its name.
std::map<pid_t, std::string> OsThreadNames();

}  // namespace rcupool_test

#endif  // RCUPOOL_TESTS_SUPPORT_THREADS_H
