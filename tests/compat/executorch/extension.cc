// SPDX-License-Identifier: LGPL-2.1-or-later
// A test extension using the ExecuTorch stand-in (extension.h). EXT_NAME
// names it. It holds no pin and enters no guard across calls, so it may be
// unloaded at any time.
#include "tests/compat/executorch/extension.h"

#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/extension/threadpool/threadpool_guard.h>

#include "tests/compat/executorch/run_sum.h"

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

int Sum(size_t range) { return et_test::RunSumIsRight(range) ? 0 : -1; }

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
