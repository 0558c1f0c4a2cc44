// A test extension using the ExecuTorch stand-in (extension.h). EXT_NAME
// names it. It holds no pin and enters no guard across calls, so it may be
// unloaded at any time.
#include "tests/compat/executorch/extension.h"

#include <atomic>

#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/extension/threadpool/threadpool_guard.h>

#ifndef EXT_NAME
#error "define EXT_NAME"
#endif

namespace {

namespace et = ::executorch::extension::threadpool;

const void *Threadpool() { return et::get_threadpool(); }
pthreadpool_t Pthreadpool() { return et::get_pthreadpool(); }
int Reset(uint32_t n) { return et::get_threadpool()->_unsafe_reset_threadpool(n); }
size_t ThreadCount() { return et::get_threadpool()->get_thread_count(); }
void Destroy() { et::get_threadpool()->_unsafe_destroy_threadpool(); }

int Sum(size_t range) {
  std::atomic<uint64_t> total{0}, calls{0};
  et::get_threadpool()->run(
      [&](size_t i) {
        total.fetch_add(3 * i + 1, std::memory_order_relaxed);
        calls.fetch_add(1, std::memory_order_relaxed);
      },
      range);
  uint64_t n = range;
  return calls.load() == n && total.load() == 3 * (n * (n - 1) / 2) + n ? 0
                                                                         : -1;
}

void SetNoPool(int enabled) { et::NoThreadPoolGuard::set_enabled(enabled != 0); }
int NoPool() { return et::NoThreadPoolGuard::is_enabled(); }

const et_ext_api_t kApi = {
    EXT_NAME, Threadpool, Pthreadpool, Reset, ThreadCount,
    Destroy,  Sum,        SetNoPool,   NoPool,
};

}  // namespace

extern "C" __attribute__((visibility("default"))) const et_ext_api_t *
et_ext_api(void) {
  return &kApi;
}
