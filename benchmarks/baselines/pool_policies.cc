// SPDX-License-Identifier: LGPL-2.1-or-later
// Baselines: the two reset policies runtimes use today (see baselines.h).
#include <cerrno>

#include "benchmarks/baselines/baselines.h"

namespace rcupool_bench {
namespace {

class KeepForever final : public PoolPolicy {
 public:
  explicit KeepForever(size_t threads) {
    current_.tp = pthreadpool_create(threads);
  }
  ~KeepForever() override {
    for (auto &p : kept_) pthreadpool_destroy(p.tp);
    pthreadpool_destroy(current_.tp);
  }
  int Reset(size_t threads) override {
    pthreadpool_t next = pthreadpool_create(threads);
    if (next == nullptr) return -EAGAIN;
    std::lock_guard<std::mutex> g(mu_);
    if (current_.sticky)
      kept_.push_back(current_);  // somebody may still use it: never freed
    else
      pthreadpool_destroy(current_.tp);
    current_ = Pool{next, false};
    return 0;
  }
  pthreadpool_t Load() override {
    std::lock_guard<std::mutex> g(mu_);
    current_.sticky = true;
    return current_.tp;
  }
  void Drop(pthreadpool_t) override {}  // it cannot know who else holds it
  size_t PoolsAlive() override {
    std::lock_guard<std::mutex> g(mu_);
    return kept_.size() + 1;
  }

 private:
  struct Pool {
    pthreadpool_t tp = nullptr;
    bool sticky = false;
  };
  std::mutex mu_;
  Pool current_;
  std::vector<Pool> kept_;
};

class DestroyOnReset final : public PoolPolicy {
 public:
  explicit DestroyOnReset(size_t threads) : tp_(pthreadpool_create(threads)) {}
  ~DestroyOnReset() override { pthreadpool_destroy(tp_); }
  int Reset(size_t threads) override {
    std::lock_guard<std::mutex> g(mu_);
    pthreadpool_destroy(tp_);  // a holder of tp_ now has a dangling pointer
    tp_ = pthreadpool_create(threads);
    return tp_ != nullptr ? 0 : -EAGAIN;
  }
  pthreadpool_t Load() override {
    std::lock_guard<std::mutex> g(mu_);
    return tp_;
  }
  void Drop(pthreadpool_t) override {}
  size_t PoolsAlive() override { return 1; }

 private:
  std::mutex mu_;
  pthreadpool_t tp_;
};

}  // namespace

std::unique_ptr<PoolPolicy> MakeKeepForeverPolicy(size_t threads) {
  return std::make_unique<KeepForever>(threads);
}

std::unique_ptr<PoolPolicy> MakeDestroyOnResetPolicy(size_t threads) {
  return std::make_unique<DestroyOnReset>(threads);
}

}  // namespace rcupool_bench
