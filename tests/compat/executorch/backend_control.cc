// SPDX-License-Identifier: LGPL-2.1-or-later
// The sample backend through the reset sequence (sequence.h), in a process
// of its own, for backend_test to run as a child:
//
//   backend_control --pinned   the pool taken with get_pinned_pthreadpool()
//                              at load (expected: exit 0)
//   backend_control --raw      the pool taken with get_pthreadpool() at load
//                              and kept (the documented hazard: expected to
//                              hang, crash, or be reported by a sanitizer)
//
// Between a reset and the next execution, a user's program does other
// work, and rcupool frees a retired pool that nobody pinned once it has
// stayed unused for the manager's warm_ms (1 s by default; it is kept warm
// until then). The control calls _unsafe_destroy_threadpool() there (in
// both modes), which frees it at once (rcupool_trim()), so the raw backend
// deterministically invokes on a freed pool (ASan reports it; without ASan
// it hangs). Without it the raw backend runs on the warm pool for a while,
// then fails the same way once the pool goes under it.
//
// Progress goes to stderr, one line per execution ("run K correct"), so the
// parent can tell where a child stopped. Exit status 0 when every
// execution returned correct outputs.
#include <cstdio>
#include <cstring>

#include <executorch/extension/threadpool/threadpool.h>

#include "tests/compat/executorch/sample_backend.h"
#include "tests/compat/executorch/sequence.h"

namespace et = ::executorch::extension::threadpool;

int main(int argc, char **argv) {
  bool raw = argc == 2 && std::strcmp(argv[1], "--raw") == 0;
  bool pinned = argc == 2 && std::strcmp(argv[1], "--pinned") == 0;
  if (!raw && !pinned) {
    std::fprintf(stderr, "usage: backend_control --raw|--pinned\n");
    return 2;
  }
  et::ThreadPool *tp = et::get_threadpool();
  if (tp == nullptr || !tp->_unsafe_reset_threadpool(et_sample::kLoadThreads))
    return 1;
  et_sample::Model model(64, 256, 512, 256, 11);
  auto method = et_sample::Method::Load(
      model, raw ? et_sample::PoolAtLoad::kRaw : et_sample::PoolAtLoad::kPinned);
  if (method == nullptr) return 1;
  int wrong = 0;
  auto execute = [&](int k) {
    double err = method->Execute();
    bool ok = err < et_sample::kMaxRelativeError;
    std::fprintf(stderr, "run %d %s (error %.3g)\n", k,
                 ok ? "correct" : "WRONG", err);
    std::fflush(stderr);
    if (!ok) wrong++;
  };
  execute(0);
  int k = 1;
  for (uint32_t n : et_sample::ResetSequence()) {
    if (!tp->_unsafe_reset_threadpool(n)) wrong++;
    tp->_unsafe_destroy_threadpool();
    execute(k++);
  }
  method.reset();
  tp->_unsafe_destroy_threadpool();
  std::fprintf(stderr, "%s: %d executions, %s\n", raw ? "raw" : "pinned", k,
               wrong ? "WRONG outputs" : "all outputs correct");
  return wrong != 0;
}
