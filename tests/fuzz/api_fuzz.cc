// SPDX-License-Identifier: LGPL-2.1-or-later
// A libFuzzer harness over rcupool's API. Each input byte string is decoded
// into a sequence of calls on one private manager (create, reset with any
// count, pin, unpin, unpin of an empty pin, scope enter/exit, parallel work,
// read-side sections, resets from inside a task, stats, barrier, destroy),
// run on the fuzzer's thread, with a model of what each call must return.
// After every call the harness checks the manager against the model and the
// design's invariants; any difference aborts, which libFuzzer reports.
//
// The manager outlives an input (destroying it waits for the reclaim
// thread's ~10 ms batches, which would cap the fuzzer at a few inputs a
// second): each input starts from the manager the previous one left, with
// every pin released and every scope left, and reads its model from it. An
// input's destroy op destroys it; the next op that needs one creates it.
//
// Thread counts: invalid counts (above RCUPOOL_MAX_THREADS, up to SIZE_MAX)
// are decoded freely; valid ones are kept to 0..kMaxFuzzThreads so that an
// input runs in milliseconds (a pool's threads start on every create).
#include "tests/fuzz/api_fuzz.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <atomic>
#include <set>
#include <vector>

#include <rcupool/rcupool.h>

namespace {

constexpr size_t kMaxFuzzThreads = 6;
constexpr int kPinSlots = 4;

#define FUZZ_CHECK(cond)                                                  \
  do {                                                                    \
    if (!(cond)) {                                                        \
      fprintf(stderr, "api_fuzz: %s:%d: check failed: %s (op %zu)\n",     \
              __FILE__, __LINE__, #cond, op_index_);                      \
      abort();                                                            \
    }                                                                     \
  } while (0)

// Warnings logged by the library, counted to check logged no-ops; the
// hook also keeps them off stderr.
std::atomic<uint64_t> warnings{0};
void CountWarnings(void *, rcupool_log_level_t level, const char *) {
  if (level == RCUPOOL_LOG_WARN) warnings++;
}

struct Bytes {
  const uint8_t *data;
  size_t size;
  size_t pos = 0;
  bool Done() const { return pos >= size; }
  uint8_t Next() { return pos < size ? data[pos++] : 0; }
};

struct SumCtx {
  std::atomic<uint64_t> total{0};
  std::atomic<uint64_t> calls{0};
};
void SumTask(void *arg, size_t i) {
  auto *c = static_cast<SumCtx *>(arg);
  c->total += i * 3 + 1;
  c->calls++;
}
bool SumIsRight(const SumCtx &c, size_t range) {
  uint64_t n = range;
  return c.total.load() == 3 * (n * (n - 1) / 2) + n && c.calls.load() == n;
}

struct NestedCtx {
  rcupool_t *m;
  size_t inner_range;
  std::atomic<int> failures{0};
};
void NestedTask(void *arg, size_t) {
  auto *c = static_cast<NestedCtx *>(arg);
  SumCtx inner;
  if (rcupool_parallelize_1d(c->m, SumTask, &inner, c->inner_range, 0) != 0 ||
      !SumIsRight(inner, c->inner_range))
    c->failures++;
}

struct ResetInTaskCtx {
  rcupool_t *m;
  size_t threads;
  std::atomic<int> result{1};
  std::atomic<int> runs{0};
};
void ResetInTask(void *arg, size_t) {
  auto *c = static_cast<ResetInTaskCtx *>(arg);
  c->runs++;
  c->result = rcupool_reset(c->m, c->threads);
}

// The manager carried from one input to the next, and its default count.
rcupool_t *carried_manager;
size_t carried_default_threads;

class Harness {
 public:
  void Run(Bytes in);

 private:
  enum Op {
    kCreate,
    kResetSmall,
    kResetAny,
    kPin,
    kUnpin,
    kScopeEnter,
    kScopeExit,
    kParallelize,
    kReadSection,
    kStats,
    kBarrier,
    kDestroy,
    kResetInTask,
    kNestedParallelize,
    kOpCount
  };

  void Create(size_t threads);
  void Reset(size_t threads);
  void Check();
  void CheckAfterBarrier();
  bool InScope(int slot) const;
  size_t PinnedCount() const;
  std::set<size_t> PinnedSizes() const;
  size_t Expected(size_t threads) const {
    return threads == 0 ? default_threads_ : threads;
  }

  rcupool_t *m_ = nullptr;
  size_t default_threads_ = 0;
  size_t threads_ = 0;
  uint64_t generation_ = 0;
  rcupool_pin_t pins_[kPinSlots] = {};
  bool pinned_[kPinSlots] = {};
  size_t pin_threads_[kPinSlots] = {};
  uint64_t pin_generation_[kPinSlots] = {};
  std::vector<int> scopes_;
  size_t op_index_ = 0;
};

size_t Harness::PinnedCount() const {
  size_t n = 0;
  for (int i = 0; i < kPinSlots; i++) n += pinned_[i];
  return n;
}

std::set<size_t> Harness::PinnedSizes() const {
  std::set<size_t> sizes;
  for (int i = 0; i < kPinSlots; i++)
    if (pinned_[i]) sizes.insert(pin_threads_[i]);
  return sizes;
}

bool Harness::InScope(int slot) const {
  for (int s : scopes_)
    if (s == slot) return true;
  return false;
}

void Harness::Create(size_t threads) {
  rcupool_options_t opts{};
  opts.threads = threads;
  // The model here is the lifetime without warm pools: a barrier frees
  // every pool that is neither current nor pinned (tests/warm_test.cc has
  // warm widths).
  opts.warm_pools = RCUPOOL_WARM_NONE;
  FUZZ_CHECK(rcupool_create(&opts, &m_) == 0);
  threads_ = rcupool_threads(m_);
  FUZZ_CHECK(threads == 0 ? threads_ >= 1 : threads_ == threads);
  default_threads_ = threads_;
  generation_ = 1;
}

void Harness::Reset(size_t threads) {
  int err = rcupool_reset(m_, threads);
  if (threads > RCUPOOL_MAX_THREADS) {
    FUZZ_CHECK(err == -EINVAL);
    return;
  }
  FUZZ_CHECK(err == 0);
  size_t n = Expected(threads);
  if (n != threads_) {
    threads_ = n;
    generation_++;
  }
}

void Harness::Check() {
  if (m_ == nullptr) return;
  FUZZ_CHECK(rcupool_threads(m_) == threads_);
  FUZZ_CHECK(rcupool_generation(m_) == generation_);
  rcupool_stats_t s{};
  FUZZ_CHECK(rcupool_get_stats(m_, &s) == 0);
  FUZZ_CHECK(s.threads == threads_);
  FUZZ_CHECK(s.generation == generation_);
  FUZZ_CHECK(s.pins == PinnedCount());
  FUZZ_CHECK(s.pools_alive == s.pools_created - s.pools_freed);
  FUZZ_CHECK(s.pools_alive >= 1 + s.pools_kept);
  FUZZ_CHECK(s.reuses <= s.resets);
  std::set<size_t> kept_sizes = PinnedSizes();
  kept_sizes.erase(threads_);
  FUZZ_CHECK(s.pools_kept <= kept_sizes.size());
  for (int i = 0; i < kPinSlots; i++) {
    const rcupool_pin_t *p = &pins_[i];
    if (!pinned_[i]) {
      FUZZ_CHECK(rcupool_pin_pthreadpool(p) == nullptr);
      FUZZ_CHECK(rcupool_pin_threads(p) == 0);
      FUZZ_CHECK(!rcupool_pin_is_current(p));
      continue;
    }
    FUZZ_CHECK(rcupool_pin_threads(p) == pin_threads_[i]);
    FUZZ_CHECK(rcupool_pin_generation(p) == pin_generation_[i]);
    FUZZ_CHECK(pthreadpool_get_threads_count(rcupool_pin_pthreadpool(p)) ==
               pin_threads_[i]);
    // At most one live pool per size: a pin is current exactly when its
    // size is the current size, and pins of one size share one pool.
    FUZZ_CHECK(rcupool_pin_is_current(p) == (pin_threads_[i] == threads_));
    for (int j = 0; j < i; j++)
      if (pinned_[j] && pin_threads_[j] == pin_threads_[i])
        FUZZ_CHECK(rcupool_pin_pthreadpool(&pins_[j]) ==
                   rcupool_pin_pthreadpool(p));
  }
}

void Harness::CheckAfterBarrier() {
  rcupool_stats_t s{};
  FUZZ_CHECK(rcupool_get_stats(m_, &s) == 0);
  std::set<size_t> sizes = PinnedSizes();
  sizes.insert(threads_);
  size_t threads = 0;
  for (size_t n : sizes) threads += n;
  FUZZ_CHECK(s.pools_alive == sizes.size());
  FUZZ_CHECK(s.pools_kept == sizes.size() - 1);
  FUZZ_CHECK(s.frees_pending == 0);
  FUZZ_CHECK(s.threads_alive == threads);
}

void Harness::Run(Bytes in) {
  m_ = carried_manager;
  if (m_ != nullptr) {
    default_threads_ = carried_default_threads;
    threads_ = rcupool_threads(m_);
    generation_ = rcupool_generation(m_);
    Check();
  }
  for (op_index_ = 0; !in.Done(); op_index_++) {
    uint8_t op = in.Next() % kOpCount;
    uint8_t arg = in.Next();
    int slot = arg % kPinSlots;
    if (m_ == nullptr && op != kCreate && op != kStats) op = kCreate;
    switch (op) {
      case kCreate:
        if (m_ == nullptr) Create(arg % (kMaxFuzzThreads + 1));
        break;
      case kResetSmall:
        Reset(arg % (kMaxFuzzThreads + 1));
        break;
      case kResetAny: {
        // Invalid counts of every magnitude, and the boundary.
        static const size_t kInvalid[] = {RCUPOOL_MAX_THREADS + 1,
                                          RCUPOOL_MAX_THREADS + 2, 1000,
                                          (size_t)1 << 32, SIZE_MAX - 1,
                                          SIZE_MAX};
        size_t n = arg < 128 ? arg % (kMaxFuzzThreads + 1)
                             : kInvalid[arg % (sizeof kInvalid /
                                               sizeof kInvalid[0])];
        Reset(n);
        break;
      }
      case kPin:
        if (pinned_[slot]) {
          FUZZ_CHECK(rcupool_pin(m_, &pins_[slot]) == -EBUSY);
        } else {
          FUZZ_CHECK(rcupool_pin(m_, &pins_[slot]) == 0);
          pinned_[slot] = true;
          pin_threads_[slot] = threads_;
          pin_generation_[slot] = generation_;
        }
        break;
      case kUnpin:
        if (InScope(slot)) break;  // misuse the library cannot survive
        if (pinned_[slot]) {
          rcupool_unpin(&pins_[slot]);
          pinned_[slot] = false;
        } else {
          // Unpin of an empty (never pinned or released) pin: a logged no-op.
          uint64_t w = warnings.load();
          rcupool_unpin(&pins_[slot]);
          FUZZ_CHECK(warnings.load() == w + 1);
        }
        break;
      case kScopeEnter:
        if (pinned_[slot] && scopes_.size() < RCUPOOL_SCOPE_MAX_DEPTH) {
          rcupool_scope_enter(&pins_[slot]);
          scopes_.push_back(slot);
        }
        break;
      case kScopeExit: {
        uint64_t w = warnings.load();
        rcupool_scope_exit();
        if (scopes_.empty()) {
          FUZZ_CHECK(warnings.load() == w + 1);
        } else {
          scopes_.pop_back();
        }
        break;
      }
      case kParallelize: {
        SumCtx c;
        FUZZ_CHECK(rcupool_parallelize_1d(m_, SumTask, &c, arg, 0) == 0);
        FUZZ_CHECK(SumIsRight(c, arg));
        break;
      }
      case kReadSection: {
        rcupool_read_lock();
        if (arg & 1) rcupool_read_lock();
        pthreadpool_t tp = rcupool_current(m_);
        FUZZ_CHECK(tp != nullptr);
        if (scopes_.empty())
          FUZZ_CHECK(pthreadpool_get_threads_count(tp) == threads_);
        FUZZ_CHECK(rcupool_barrier(m_) == -EDEADLK);
        FUZZ_CHECK(rcupool_destroy(m_) == -EDEADLK);
        SumCtx c;
        FUZZ_CHECK(rcupool_parallelize_1d(m_, SumTask, &c, arg, 0) == 0);
        FUZZ_CHECK(SumIsRight(c, arg));
        if (arg & 1) rcupool_read_unlock();
        rcupool_read_unlock();
        break;
      }
      case kStats:
        if (m_ == nullptr) {
          rcupool_stats_t s;
          FUZZ_CHECK(rcupool_get_stats(nullptr, &s) == -EINVAL);
        }
        break;  // Check() below does the rest
      case kBarrier:
        FUZZ_CHECK(rcupool_barrier(m_) == 0);
        CheckAfterBarrier();
        break;
      case kDestroy:
        if (PinnedCount() > 0) {
          FUZZ_CHECK(rcupool_destroy(m_) == -EBUSY);
        } else {
          FUZZ_CHECK(scopes_.empty());
          FUZZ_CHECK(rcupool_destroy(m_) == 0);
          m_ = nullptr;
        }
        break;
      case kResetInTask: {
        ResetInTaskCtx c;
        c.m = m_;
        c.threads = arg % (kMaxFuzzThreads + 1);
        FUZZ_CHECK(rcupool_parallelize_1d(m_, ResetInTask, &c, 1, 0) == 0);
        FUZZ_CHECK(c.runs.load() == 1);
        FUZZ_CHECK(c.result.load() == 0);
        size_t n = Expected(c.threads);
        if (n != threads_) {
          threads_ = n;
          generation_++;
        }
        break;
      }
      case kNestedParallelize: {
        NestedCtx c;
        c.m = m_;
        c.inner_range = arg % 17;
        FUZZ_CHECK(rcupool_parallelize_1d(m_, NestedTask, &c, 1 + arg % 9,
                                          0) == 0);
        FUZZ_CHECK(c.failures.load() == 0);
        break;
      }
    }
    Check();
  }
  // Let go of everything and hand the manager to the next input.
  while (!scopes_.empty()) {
    rcupool_scope_exit();
    scopes_.pop_back();
  }
  for (int i = 0; i < kPinSlots; i++)
    if (pinned_[i]) rcupool_unpin(&pins_[i]);
  for (int i = 0; i < kPinSlots; i++) pinned_[i] = false;
  Check();
  carried_manager = m_;
  carried_default_threads = default_threads_;
}

}  // namespace

void ApiFuzzDestroyCarriedManager() {
  if (carried_manager != nullptr && rcupool_destroy(carried_manager) != 0) {
    fprintf(stderr, "api_fuzz: the carried manager cannot be destroyed\n");
    abort();
  }
  carried_manager = nullptr;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static bool hooked = [] {
    rcupool_set_log(CountWarnings, nullptr);
    return true;
  }();
  (void)hooked;
  Harness h;
  h.Run(Bytes{data, size});
  return 0;
}
