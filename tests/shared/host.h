// Helpers of the dlopen host tests. The host links no copy of rcupool (not
// even tests/support, which links the static library): whatever rcupool the
// process runs comes from the extensions it loads.
#ifndef RCUPOOL_TESTS_SHARED_HOST_H
#define RCUPOOL_TESTS_SHARED_HOST_H

#include <string>

#include "tests/shared/extension.h"
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

// Process isolation. Tests that measure the process's threads or load
// extensions run in a fresh copy of this test program: the parent calls
// RunThisTestInChild() and checks the result; the child (InChild()) runs
// the body. The child must exit by itself within timeout_s: a hang,
// including one in exit handlers, is reported as such and the child killed.
bool InChild();
struct ChildResult {
  bool exited = false;   // false: killed by a signal or hung
  int status = -1;       // exit status when exited
  int signal = 0;        // terminating signal when not exited
  bool hung = false;     // killed by us after timeout_s
};
ChildResult RunThisTestInChild(int timeout_s);

}  // namespace rcupool_host

// Runs the rest of the test body in a fresh process (see above).
#define RCUPOOL_RUN_IN_CHILD(timeout_s)                                     \
  do {                                                                      \
    if (!::rcupool_host::InChild()) {                                       \
      ::rcupool_host::ChildResult r =                                       \
          ::rcupool_host::RunThisTestInChild(timeout_s);                    \
      EXPECT_FALSE(r.hung) << "the child did not finish in " << timeout_s   \
                           << " s (killed)";                                \
      EXPECT_TRUE(r.exited) << "the child died of signal " << r.signal;     \
      EXPECT_EQ(r.status, 0) << "the child failed (its output is above)";   \
      return;                                                               \
    }                                                                       \
  } while (0)

#endif  // RCUPOOL_TESTS_SHARED_HOST_H
