// SPDX-License-Identifier: LGPL-2.1-or-later
#include "tests/support/support.h"
#include "tests/support/annotate.h"

#include <time.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

namespace rcupool_test {

namespace {
struct SumCtx {
  std::atomic<uint64_t> total{0};
  std::atomic<uint64_t> calls{0};
};
void SumTask(void *arg, size_t i) {
  auto *c = static_cast<SumCtx *>(arg);
  c->total.fetch_add(i * 3 + 1, std::memory_order_relaxed);
  c->calls.fetch_add(1, std::memory_order_relaxed);
}
bool SumIsRight(const SumCtx &c, size_t range) {
  uint64_t n = range;
  uint64_t want = 3 * (n * (n - 1) / 2) + n;
  return c.total.load() == want && c.calls.load() == n;
}
}  // namespace

#if defined(__SANITIZE_THREAD__)
extern "C" void __tsan_acquire(void *addr);
extern "C" void __tsan_release(void *addr);
#define TEST_TSAN_ACQUIRE(a) __tsan_acquire(a)
#define TEST_TSAN_RELEASE(a) __tsan_release(a)
#else
#define TEST_TSAN_ACQUIRE(a) ((void)(a))
#define TEST_TSAN_RELEASE(a) ((void)(a))
#endif

namespace {
struct Annotated {
  pthreadpool_task_1d_t task;
  void *ctx;
  char start, end;
};
void AnnotatedTask(void *arg, size_t i) {
  auto *a = static_cast<Annotated *>(arg);
  TEST_TSAN_ACQUIRE(&a->start);
  a->task(a->ctx, i);
  TEST_TSAN_RELEASE(&a->end);
}
}  // namespace

void AnnotatedParallelize1d(pthreadpool_t pool, pthreadpool_task_1d_t task,
                            void *ctx, size_t range) {
  Annotated a{task, ctx, 0, 0};
  TEST_TSAN_RELEASE(&a.start);
  pthreadpool_parallelize_1d(pool, AnnotatedTask, &a, range, 0);
  TEST_TSAN_ACQUIRE(&a.end);
}

void RecordThread(void *arg, size_t) {
  auto *t = static_cast<ThreadIds *>(arg);
  std::lock_guard<std::mutex> g(t->mu);
  t->ids.insert(pthread_self());
  t->calls++;
}

bool ParallelSumIsRight(pthreadpool_t pool, size_t range) {
  SumCtx c;
  AnnotatedParallelize1d(pool, SumTask, &c, range);
  return SumIsRight(c, range);
}

bool ManagerSumIsRight(rcupool_t *m, size_t range) {
  SumCtx c;
  if (rcupool_parallelize_1d(m, SumTask, &c, range, 0) != 0) return false;
  return SumIsRight(c, range);
}

LogRecorder::LogRecorder() { rcupool_set_log(&LogRecorder::Hook, this); }
LogRecorder::~LogRecorder() { rcupool_set_log(nullptr, nullptr); }

void LogRecorder::Hook(void *ctx, rcupool_log_level_t level,
                       const char *message) {
  auto *self = static_cast<LogRecorder *>(ctx);
  std::lock_guard<std::mutex> g(self->mu_);
  self->lines_.emplace_back(level, message);
}

size_t LogRecorder::Count(rcupool_log_level_t level,
                          const std::string &needle) const {
  rcupool_log_deliver();  // what other threads queued since our last call
  std::lock_guard<std::mutex> g(mu_);
  size_t n = 0;
  for (const auto &l : lines_)
    if (l.first == level && l.second.find(needle) != std::string::npos) n++;
  return n;
}

std::vector<std::string> LogRecorder::All() const {
  rcupool_log_deliver();
  std::lock_guard<std::mutex> g(mu_);
  std::vector<std::string> out;
  for (const auto &l : lines_) out.push_back(l.second);
  return out;
}

// The span of lib/clock.h's rcupl_coarse_lag_ns() (a private header the
// tests do not see): two resolutions, 20 ms if the clock cannot say.
void SleepTwoCoarseTicks() {
  struct timespec tick = {0, 10000000};
  clock_getres(CLOCK_MONOTONIC_COARSE, &tick);
  std::this_thread::sleep_for(
      std::chrono::nanoseconds(2 * (tick.tv_sec * 1000000000LL + tick.tv_nsec)));
}

size_t ThreadBaselineAtOneThread(rcupool_t *m) {
  EXPECT_EQ(rcupool_reset(m, 2), 0);
  EXPECT_EQ(rcupool_reset(m, 1), 0);
  EXPECT_EQ(rcupool_barrier(m), 0);
  return SettledOsThreadCount();
}

rcupool_stats_t Stats(rcupool_t *m) {
  rcupool_stats_t s{};
  EXPECT_EQ(rcupool_get_stats(m, &s), 0);
  return s;
}

Manager::Manager(size_t threads, uint32_t warm_ms, uint32_t warm_pools) {
  rcupool_options_t opts{};
  opts.threads = threads;
  opts.warm_ms = warm_ms;
  opts.warm_pools = warm_pools;
  EXPECT_EQ(rcupool_create(&opts, &m_), 0);
}

namespace {

// At the end of every test binary, the default manager's warm pools are
// freed and their threads joined before exit (it is created here if the
// binary never used it: one small pool start). A
// warm pool's linger may otherwise end while the process exits: the
// reclaim thread would be joining its workers then, and ThreadSanitizer
// reports threads that finished unjoined at exit as leaks.
class TrimDefaultAtExit : public ::testing::Environment {
 public:
  void TearDown() override {
    EXPECT_GE(rcupool_trim(rcupool_default()), 0);
  }
};
::testing::Environment *const trim_default_at_exit =
    ::testing::AddGlobalTestEnvironment(new TrimDefaultAtExit());

}  // namespace

void DefaultKeepsNoWarmPools::SetUp() {
  ASSERT_EQ(rcupool_set_warm(rcupool_default(), 0, RCUPOOL_WARM_NONE), 0);
}

Manager::~Manager() { EXPECT_EQ(rcupool_destroy(m_), 0); }

}  // namespace rcupool_test
