// SPDX-License-Identifier: LGPL-2.1-or-later
// One pool per process: two extensions loaded with dlopen(RTLD_LOCAL) that
// link librcupool.so share one manager and one pool; two that link the
// static library get one each (the control), and the one-definer check
// names them.
#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "tests/shared/host.h"

namespace rcupool_host {
namespace {

constexpr int kChildTimeoutS = 120;
constexpr size_t kThreads = 4;  // workers of one such pool: kThreads - 1

TEST(RcupoolSharedDlopen, TwoExtensionsSeeOneManagerAndOnePool) {
  RCUPOOL_RUN_IN_CHILD(kChildTimeoutS);
  Extension a, b;
  ASSERT_NO_FATAL_FAILURE(Open(kBindings, &a));
  ASSERT_NO_FATAL_FAILURE(Open(kTraining, &b));
  // Each extension's own dynamic scope resolved rcupool_default to the one
  // object that defines it.
  EXPECT_TRUE(IsLoaded(kLibrary));
  ASSERT_NE(a.api->manager(), nullptr);
  EXPECT_EQ(a.api->manager(), b.api->manager());
  EXPECT_EQ(a.api->current(), b.api->current());
  EXPECT_EQ(a.api->generation(), b.api->generation());
  EXPECT_EQ(a.api->sum(1000), 0);
  EXPECT_EQ(b.api->sum(1000), 0);
}

TEST(RcupoolSharedDlopen, ResetThroughOneExtensionIsSeenByTheOther) {
  RCUPOOL_RUN_IN_CHILD(kChildTimeoutS);
  Extension a, b;
  ASSERT_NO_FATAL_FAILURE(Open(kBindings, &a));
  ASSERT_NO_FATAL_FAILURE(Open(kTraining, &b));
  ASSERT_EQ(b.api->method_load(0), 0);  // a method loaded before the reset
  pthreadpool_t before = b.api->current();
  uint64_t gen = b.api->generation();

  ASSERT_EQ(a.api->reset(3), 0);
  EXPECT_EQ(b.api->threads(), 3u);
  EXPECT_EQ(b.api->generation(), gen + 1);
  EXPECT_EQ(b.api->current(), a.api->current());
  EXPECT_NE(b.api->current(), before);
  // The other extension's method keeps the pool it planned for.
  EXPECT_EQ(b.api->method_pool(0), before);
  EXPECT_EQ(b.api->method_run(0, 1000), 0);
  b.api->method_unload(0);

  ASSERT_EQ(b.api->reset(1), 0);
  EXPECT_EQ(a.api->threads(), 1u);
  EXPECT_EQ(a.api->current(), b.api->current());
}

// Points 1 and 2 side by side in one process: the OS threads that loading
// and using two extensions adds, with librcupool.so and with the static
// library. The shared phase runs first, so the reclaim thread of
// librcupool.so (one per copy of the library: the static copies start one
// each in the static phase) is counted there.
TEST(RcupoolDlopen, SharedGivesOnePoolStaticGivesOneManagerAndPoolEach) {
  RCUPOOL_RUN_IN_CHILD(kChildTimeoutS);
  const size_t base = BaselineThreadCount();

  // librcupool.so: both extensions reset to kThreads; one pool results.
  Extension a, b;
  ASSERT_NO_FATAL_FAILURE(Open(kBindings, &a));
  ASSERT_NO_FATAL_FAILURE(Open(kTraining, &b));
  ASSERT_EQ(a.api->reset(kThreads), 0);
  ASSERT_EQ(b.api->reset(kThreads), 0);
  EXPECT_EQ(a.api->sum(1000), 0);
  EXPECT_EQ(b.api->sum(1000), 0);
  ASSERT_EQ(a.api->barrier(), 0);
  const size_t shared_added = WaitForOsThreadCount(base + kThreads) - base;
  // One pool's workers plus the library's one reclaim thread.
  EXPECT_EQ(shared_added, (kThreads - 1) + 1);

  // Static library: each extension carries its own manager and pool.
  const size_t base_static = OsThreadCount();
  Extension sa, sb;
  ASSERT_NO_FATAL_FAILURE(Open(kBindingsStatic, &sa));
  ASSERT_NO_FATAL_FAILURE(Open(kTrainingStatic, &sb));
  ASSERT_NE(sa.api->manager(), nullptr);
  ASSERT_NE(sb.api->manager(), nullptr);
  EXPECT_NE(sa.api->manager(), sb.api->manager());
  EXPECT_NE(sa.api->manager(), a.api->manager());
  ASSERT_EQ(sa.api->reset(kThreads), 0);
  ASSERT_EQ(sb.api->reset(kThreads), 0);
  EXPECT_NE(sa.api->current(), sb.api->current());
  EXPECT_EQ(sa.api->sum(1000), 0);
  EXPECT_EQ(sb.api->sum(1000), 0);
  ASSERT_EQ(sa.api->barrier(), 0);
  ASSERT_EQ(sb.api->barrier(), 0);
  const size_t static_added =
      WaitForOsThreadCount(base_static + 2 * kThreads) - base_static;
  // Two pools' workers and two reclaim threads (one per copy of the
  // library): twice those of the shared case.
  EXPECT_EQ(static_added, 2 * kThreads);
  EXPECT_EQ(static_added, 2 * shared_added);

  // A reset through one static copy is not seen by the other.
  ASSERT_EQ(sa.api->reset(1), 0);
  EXPECT_EQ(sa.api->threads(), 1u);
  EXPECT_EQ(sb.api->threads(), kThreads);

  // The check names both static extensions and fails.
  std::string out;
  int rc = RunCommand(std::string(kCheckTool) + " " + kBindingsStatic + " " +
                   kTrainingStatic + " 2>&1",
               &out);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find(std::string("definer: ") + kBindingsStatic),
            std::string::npos)
      << out;
  EXPECT_NE(out.find(std::string("definer: ") + kTrainingStatic),
            std::string::npos)
      << out;
  // The static extensions stay loaded until exit: their managers' worker
  // threads run code of the objects they loaded (see docs/building.md).
}

TEST(RcupoolCheckOneDefiner, RealBuildOutputHasExactlyOneDefiner) {
  char self[4096];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  ASSERT_GT(len, 0);
  self[len] = '\0';
  std::string out;
  // The library's folder, the two extensions that link it, and this host.
  int rc = RunCommand(std::string(kCheckTool) + " lib/shared " + kBindings + " " +
                   kTraining + " " + self + " 2>&1",
               &out);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find(std::string("definer: lib/shared/librcupool.so.0")),
            std::string::npos)
      << out;
  size_t lines = 0;
  for (size_t at = out.find("definer: "); at != std::string::npos;
       at = out.find("definer: ", at + 1))
    lines++;
  EXPECT_EQ(lines, 1u) << out;
}

// librcupool.so.0 reaches liburcu-bp's reader state with the initial-exec
// TLS model (lib/urcu_flavor.h), which needs liburcu-bp.so's TLS block in
// static TLS. Loaded first by dlopen (as Python's ctypes does), liburcu-bp
// comes with it and glibc must find it room: the dlopen succeeds and
// sections run, also on a thread started afterwards.
TEST(RcupoolSharedDlopen, LoadedFirstByDlopenRunsReadSectionsOnNewThread) {
  RCUPOOL_RUN_IN_CHILD(kChildTimeoutS);
  ASSERT_FALSE(IsLoaded("liburcu-bp.so.8"));
  void *lib = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  auto get_default = reinterpret_cast<rcupool_t *(*)(void)>(
      dlsym(lib, "rcupool_default"));
  auto lock_current = reinterpret_cast<pthreadpool_t (*)(rcupool_t *)>(
      dlsym(lib, "rcupool_read_lock_current"));
  auto unlock = reinterpret_cast<void (*)(void)>(
      dlsym(lib, "rcupool_read_unlock"));
  ASSERT_TRUE(get_default != nullptr && lock_current != nullptr &&
              unlock != nullptr);
  rcupool_t *m = get_default();
  ASSERT_NE(m, nullptr);
  std::atomic<int> seen{0};
  std::thread t([&] {
    for (int i = 0; i < 1000; i++) {
      if (lock_current(m) != nullptr) seen++;
      unlock();
    }
  });
  t.join();
  EXPECT_EQ(seen.load(), 1000);
}

TEST(RcupoolCheckOneDefiner, NoDefinerExitsNonZero) {
  std::string out;
  int rc = RunCommand(std::string(kCheckTool) + " " + kBindings + " 2>&1", &out);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("no object defines rcupool_default"), std::string::npos)
      << out;
}

}  // namespace
}  // namespace rcupool_host
