/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Private to lib/compat/executorch: the per-thread context that the guards
// set and every call of the stand-in reads (see threadpool.h, "Thread-local
// context"). Not exported from librcupool_executorch.so.
#ifndef RCUPOOL_LIB_COMPAT_EXECUTORCH_CONTEXT_H
#define RCUPOOL_LIB_COMPAT_EXECUTORCH_CONTEXT_H

#include <rcupool/rcupool.h>

namespace rcupool_et {

struct Context {
  // A NoThreadPoolGuard (or set_enabled(true)) is the innermost setting.
  bool no_pool = false;
  // The innermost pool guard's pin (UseNThreads / UsePinned), else nullptr.
  // Owned by that guard (or by the PinnedPthreadpool it was given).
  const rcupool_pin_t *pin = nullptr;
};

// The calling thread's context. Never blocks, never allocates.
Context &ThisThread();

// The process's manager, rcupool_default(), with ExecuTorch's default rule
// applied once (ETTP-4, threadpool.cc): every logical processor of the
// mask, or the performance cores when built with
// EXECUTORCH_THREADPOOL_USE_PERFORMANCE_CORES. nullptr only when the
// manager cannot be created (out of memory). The first call may reset the
// default manager (a few files read, threads started); later calls are an
// atomic load and a static's guard.
rcupool_t *Manager();

}  // namespace rcupool_et

#endif  // RCUPOOL_LIB_COMPAT_EXECUTORCH_CONTEXT_H
