// SPDX-License-Identifier: LGPL-2.1-or-later
// dlclose of an extension that used the pool, while methods of another
// extension hold pins and run: no hang, no thread leaked or lost, the other
// keeps working, and the process exits cleanly (the child's exit status,
// checked by the parent with a timeout, covers exit handlers too).
#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tests/shared/host.h"

namespace rcupool_host {
namespace {

constexpr int kChildTimeoutS = 120;

// Runs a method of `ext` in a loop on its own thread, as a serving thread
// of a training module would, until stopped.
class MethodRunner {
 public:
  MethodRunner(const ext_api_t *ext, int slot)
      : thread_([this, ext, slot] {
          while (!stop_.load(std::memory_order_acquire)) {
            if (ext->method_run(slot, 4096) != 0)
              failures_.fetch_add(1, std::memory_order_relaxed);
            runs_.fetch_add(1, std::memory_order_release);
          }
        }) {}
  ~MethodRunner() { Stop(); }
  void Stop() {
    stop_.store(true, std::memory_order_release);
    if (thread_.joinable()) thread_.join();
  }
  size_t runs() const { return runs_.load(std::memory_order_acquire); }
  size_t failures() const { return failures_.load(); }

  // Waits (bounded) until `more` further runs completed; true if they did.
  bool WaitForRuns(size_t more) const {
    size_t target = runs() + more;
    for (int i = 0; i < 2000 && runs() < target; i++)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return runs() >= target;
  }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<size_t> runs_{0};
  std::atomic<size_t> failures_{0};
  std::thread thread_;
};

TEST(RcupoolSharedDlclose, UnloadWhileOtherExtensionHoldsPinsKeepsThreadsAndExits) {
  RCUPOOL_RUN_IN_CHILD(kChildTimeoutS);
  const size_t base = BaselineThreadCount();
  Extension a, b;
  ASSERT_NO_FATAL_FAILURE(Open(kBindings, &a));
  ASSERT_NO_FATAL_FAILURE(Open(kTraining, &b));

  // The bindings module uses the pool: forwards the log, resets, runs work
  // and a method of its own, which it unloads (rule: no pin survives it).
  a.api->log_forward();
  ASSERT_EQ(a.api->reset(2), 0);
  ASSERT_EQ(a.api->sum(1000), 0);
  ASSERT_EQ(a.api->method_load(0), 0);
  ASSERT_EQ(a.api->method_run(0, 1000), 0);
  a.api->method_unload(0);

  // The training module loads two methods on the 2-thread pool; a reset
  // through the bindings module leaves their pool kept for their pins.
  ASSERT_EQ(b.api->method_load(0), 0);
  ASSERT_EQ(b.api->method_load(1), 0);
  ASSERT_EQ(a.api->reset(1), 0);
  ASSERT_EQ(a.api->barrier(), 0);
  EXPECT_GT(a.api->log_count(), 0u) << "the bindings module's hook ran";
  EXPECT_EQ(b.api->method_threads(0), 2u);

  {
    MethodRunner r0(b.api, 0), r1(b.api, 1);
    ASSERT_TRUE(r0.WaitForRuns(10));
    ASSERT_TRUE(r1.WaitForRuns(10));
    const size_t running = OsThreadCount();

    // Unload the bindings module while the methods run.
    ASSERT_EQ(dlclose(a.handle), 0) << dlerror();
    a = Extension();
    EXPECT_FALSE(IsLoaded(kBindings));
    EXPECT_TRUE(IsLoaded(kLibrary));

    EXPECT_TRUE(r0.WaitForRuns(10));
    EXPECT_TRUE(r1.WaitForRuns(10));
    EXPECT_EQ(OsThreadCount(), running) << "threads leaked or lost";

    // State changes are logged after the unload (the hook it installed
    // was removed as it unloaded).
    ASSERT_EQ(b.api->reset(3), 0);
    ASSERT_EQ(b.api->sum(1000), 0);
    EXPECT_TRUE(r0.WaitForRuns(10));
    r0.Stop();
    r1.Stop();
    EXPECT_EQ(r0.failures(), 0u);
    EXPECT_EQ(r1.failures(), 0u);
  }

  // The methods are unloaded; the kept 2-thread pool is freed. The process
  // holds the current pool's workers and the library's reclaim thread.
  b.api->method_unload(0);
  b.api->method_unload(1);
  ASSERT_EQ(b.api->barrier(), 0);
  EXPECT_EQ(WaitForOsThreadCount(base + (3 - 1) + 1), base + (3 - 1) + 1);

  // Unloading the last extension leaves the library (and its idle pool) in
  // place: it is never unloaded, so its threads never run unmapped code.
  ASSERT_EQ(dlclose(b.handle), 0) << dlerror();
  EXPECT_FALSE(IsLoaded(kTraining));
  EXPECT_TRUE(IsLoaded(kLibrary));
  EXPECT_EQ(OsThreadCount(), base + (3 - 1) + 1);

  // Loading an extension again finds the same manager and pool.
  Extension again;
  ASSERT_NO_FATAL_FAILURE(Open(kBindings, &again));
  EXPECT_EQ(again.api->threads(), 3u);
  EXPECT_EQ(again.api->sum(1000), 0);
  EXPECT_EQ(OsThreadCount(), base + (3 - 1) + 1) << "a second pool started";
  ASSERT_EQ(dlclose(again.handle), 0);
}

}  // namespace
}  // namespace rcupool_host
