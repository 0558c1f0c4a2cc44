/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Helpers of the dlopen host tests. The host links no copy of rcupool (not
// even tests/support, which links the static library): whatever rcupool the
// process runs comes from the extensions it loads.
#ifndef RCUPOOL_TESTS_SHARED_HOST_H
#define RCUPOOL_TESTS_SHARED_HOST_H

#include <string>

#include "tests/shared/extension.h"
#include "tests/support/in_child.h"
#include "tests/support/threads.h"

namespace rcupool_host {

// Runfiles paths (relative to the test's working directory).
extern const char kLibrary[];          // lib/shared/librcupool.so.0
extern const char kBindings[];         // extension linking librcupool.so
extern const char kTraining[];         // extension linking librcupool.so
extern const char kBindingsStatic[];   // extension linking the static library
extern const char kTrainingStatic[];   // extension linking the static library
extern const char kCheckTool[];        // tools/check_one_definer
extern const char kPublicHeader[];     // include/rcupool/rcupool.h
extern const char kInlineHeader[];     // include/rcupool/inline.h

// Threads of this process, from /proc/self/task (tests/support/threads.h).
using ::rcupool_test::OsThreadCount;
using ::rcupool_test::WaitForOsThreadCount;

// OsThreadCount() once the threads a sanitizer runtime starts along with a
// process's first thread (ThreadSanitizer's background thread) exist: a
// baseline to which only threads of rcupool add.
size_t BaselineThreadCount();

// dlopen(path, RTLD_NOW | RTLD_LOCAL) and its ext_api(). Fails the test
// (fatal) when either step fails.
struct Extension {
  void *handle = nullptr;
  const ext_api_t *api = nullptr;
};
void Open(const char *path, Extension *out);

// True while `path` is loaded (dlopen with RTLD_NOLOAD).
bool IsLoaded(const char *path);

// Runs a shell command; returns its exit status (-1 if it did not exit) and
// stores its standard output (and error, when merged by the command).
int RunCommand(const std::string &command, std::string *output);

// Process isolation (tests/support/in_child.h): tests that measure the
// process's threads or load extensions run the rest of their body in a
// fresh copy of this test program with RCUPOOL_RUN_IN_CHILD(timeout_s).
using ::rcupool_test::InChild;
using ::rcupool_test::RerunThisTestInChild;

}  // namespace rcupool_host

#endif  // RCUPOOL_TESTS_SHARED_HOST_H
