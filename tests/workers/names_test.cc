// SPDX-License-Identifier: LGPL-2.1-or-later
// Thread names: every worker of an rcupool pool and the reclaim thread
// carry a name that starts with "rcupool", as top -H, perf, gdb and
// /proc/<pid>/task/*/comm show it; the thread that creates a pool (which
// the worker census also runs on) keeps its own name. On a pthreadpool
// with the executor API a pool is a view over its manager's set, whose
// threads serve every width: "rcupool-w<index>/*" (lib/exec_set.c).
#include <pthread.h>
#include <pthreadpool.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "tests/support/support.h"

using rcupool_test::NoWarmManager;
using rcupool_test::OsThreadName;
using rcupool_test::OsThreadNames;

namespace {

pid_t Tid() { return static_cast<pid_t>(syscall(SYS_gettid)); }

#ifdef PTHREADPOOL_FLAG_DONT_SPIN_WORKERS /* the executor API: views */
constexpr bool kViews = true;
#else
constexpr bool kViews = false;
#endif

// The name of worker `index` of a pool of `width` threads (NAMES-1).
std::string WorkerName(size_t index, size_t width) {
  return "rcupool-w" + std::to_string(index) + "/" +
         (kViews ? std::string("*") : std::to_string(width));
}

// The tids of the threads that run a parallel call of `threads` items on
// m's current pool: each item waits (bounded) until every thread holds one,
// so each of the pool's threads runs exactly one.
struct Census {
  size_t threads;
  std::atomic<size_t> arrived{0};
  std::mutex mu;
  std::set<pid_t> tids;
};
void CensusTask(void *arg, size_t) {
  auto *c = static_cast<Census *>(arg);
  {
    std::lock_guard<std::mutex> g(c->mu);
    c->tids.insert(Tid());
  }
  c->arrived.fetch_add(1);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (c->arrived.load() < c->threads &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::yield();
}
std::set<pid_t> PoolTids(rcupool_t *m, size_t threads) {
  Census c;
  c.threads = threads;
  EXPECT_EQ(rcupool_parallelize_1d(m, CensusTask, &c, threads, 0), 0);
  return c.tids;
}

// Names the calling thread for the length of a test, then restores it.
class CallerName {
 public:
  explicit CallerName(const char *name) {
    pthread_getname_np(pthread_self(), saved_, sizeof saved_);
    pthread_setname_np(pthread_self(), name);
  }
  ~CallerName() { pthread_setname_np(pthread_self(), saved_); }

 private:
  char saved_[16] = {0};
};

}  // namespace

TEST(RcupoolCreate, ThreeThreadPoolWorkersNamedRcupoolWithIndexAndWidth) {
  CallerName caller("names-test");
  NoWarmManager m(3);
  std::set<pid_t> tids = PoolTids(m, 3);
  ASSERT_EQ(tids.size(), 3u);  // the caller and 2 workers
  ASSERT_EQ(tids.count(Tid()), 1u);
  std::set<std::string> names;
  for (pid_t tid : tids)
    if (tid != Tid()) names.insert(OsThreadName(tid));
  EXPECT_EQ(names, (std::set<std::string>{WorkerName(1, 3), WorkerName(2, 3)}));
}

TEST(RcupoolCreate, CallingThreadKeepsItsName) {
  CallerName caller("names-test");
  NoWarmManager m(3);
  EXPECT_EQ(OsThreadName(Tid()), "names-test");
  ASSERT_EQ(rcupool_reset(m, 2), 0);  // a census on this thread again
  EXPECT_EQ(OsThreadName(Tid()), "names-test");
}

TEST(RcupoolReset, NewPoolsWorkersNamedForTheirWidth) {
  CallerName caller("names-test");
  NoWarmManager m(1);
  ASSERT_EQ(rcupool_reset(m, 4), 0);
  std::set<pid_t> tids = PoolTids(m, 4);
  ASSERT_EQ(tids.size(), 4u);
  std::set<std::string> names;
  for (pid_t tid : tids)
    if (tid != Tid()) names.insert(OsThreadName(tid));
  EXPECT_EQ(names, (std::set<std::string>{WorkerName(1, 4), WorkerName(2, 4),
                                          WorkerName(3, 4)}));
  EXPECT_EQ(OsThreadName(Tid()), "names-test");
}

// Linux keeps 15 bytes of a name: "rcupool-w100/101" (16) does not fit,
// so a worker of a width of three digits drops the "w" (a set's thread,
// "rcupool-w100/*", fits). Every worker still starts with "rcupool" and
// has a name of its own.
TEST(RcupoolCreate, WorkersOfThreeDigitWidthNamedWithinFifteenBytes) {
  NoWarmManager m(101);
  const std::string suffix = kViews ? "/*" : "/101";
  std::set<std::string> names;
  for (const auto &t : OsThreadNames())
    if (t.second.size() >= suffix.size() &&
        t.second.compare(t.second.size() - suffix.size(), suffix.size(),
                         suffix) == 0)
      names.insert(t.second);
  EXPECT_EQ(names.size(), 100u);
  EXPECT_EQ(names.count(WorkerName(1, 101)), 1u);
  EXPECT_EQ(names.count(WorkerName(99, 101)), 1u);
  EXPECT_EQ(names.count(kViews ? "rcupool-w100/*" : "rcupool-100/101"), 1u);
  for (const std::string &n : names) {
    EXPECT_EQ(n.rfind("rcupool", 0), 0u) << n;
    EXPECT_LE(n.size(), 15u) << n;
  }
}

TEST(RcupoolBarrier, ReclaimThreadNamedRcupoolReclaim) {
  NoWarmManager m(2);
  ASSERT_EQ(rcupool_reset(m, 1), 0);  // a retire starts the reclaim thread
  ASSERT_EQ(rcupool_barrier(m), 0);
  size_t reclaim = 0;
  for (const auto &t : OsThreadNames())
    if (t.second == "rcupool-reclaim") reclaim++;
  EXPECT_EQ(reclaim, 1u);
}
