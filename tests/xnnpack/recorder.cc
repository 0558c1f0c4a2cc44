// SPDX-License-Identifier: LGPL-2.1-or-later
#include "tests/xnnpack/recorder.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace rcupool_test {
namespace {
std::mutex mu;
std::vector<pthreadpool_t> *calls = new std::vector<pthreadpool_t>;
std::vector<uint32_t> *call_flags = new std::vector<uint32_t>;

void Record(pthreadpool_t pool, uint32_t flags) {
  std::lock_guard<std::mutex> g(mu);
  calls->push_back(pool);
  call_flags->push_back(flags);
}

void *Real(const char *name) {
  void *f = dlsym(RTLD_NEXT, name);
  if (f == nullptr) {
    std::fprintf(stderr, "recorder: %s not found in libpthreadpool\n", name);
    std::abort();
  }
  return f;
}
}  // namespace

void ClearPoolRecord() {
  std::lock_guard<std::mutex> g(mu);
  calls->clear();
  call_flags->clear();
}

std::vector<pthreadpool_t> RecordedPools() {
  std::lock_guard<std::mutex> g(mu);
  return *calls;
}

std::vector<uint32_t> RecordedFlags() {
  std::lock_guard<std::mutex> g(mu);
  return *call_flags;
}

std::set<pthreadpool_t> RecordedPoolSet() {
  auto v = RecordedPools();
  return std::set<pthreadpool_t>(v.begin(), v.end());
}

}  // namespace rcupool_test

// Parameter and argument lists of n size_t (ranges and tiles).
#define RCUPL_S1 size_t a
#define RCUPL_S2 RCUPL_S1, size_t b
#define RCUPL_S3 RCUPL_S2, size_t c
#define RCUPL_S4 RCUPL_S3, size_t d
#define RCUPL_S5 RCUPL_S4, size_t e
#define RCUPL_S6 RCUPL_S5, size_t f
#define RCUPL_S7 RCUPL_S6, size_t g
#define RCUPL_S8 RCUPL_S7, size_t h
#define RCUPL_A1 a
#define RCUPL_A2 RCUPL_A1, b
#define RCUPL_A3 RCUPL_A2, c
#define RCUPL_A4 RCUPL_A3, d
#define RCUPL_A5 RCUPL_A4, e
#define RCUPL_A6 RCUPL_A5, f
#define RCUPL_A7 RCUPL_A6, g
#define RCUPL_A8 RCUPL_A7, h

#define RCUPL_RECORDED(name, task_t, params, args)                              \
  extern "C" void name(pthreadpool_t pool, task_t task, void *ctx, params,   \
                       uint32_t flags) {                                     \
    using fn_t = void (*)(pthreadpool_t, task_t, void *, params, uint32_t);  \
    static fn_t real = reinterpret_cast<fn_t>(rcupool_test::Real(#name));    \
    rcupool_test::Record(pool, flags);                                       \
    real(pool, task, ctx, args, flags);                                      \
  }

RCUPL_RECORDED(pthreadpool_parallelize_1d, pthreadpool_task_1d_t, RCUPL_S1, RCUPL_A1)
RCUPL_RECORDED(pthreadpool_parallelize_1d_tile_1d, pthreadpool_task_1d_tile_1d_t,
            RCUPL_S2, RCUPL_A2)
RCUPL_RECORDED(pthreadpool_parallelize_2d, pthreadpool_task_2d_t, RCUPL_S2, RCUPL_A2)
RCUPL_RECORDED(pthreadpool_parallelize_2d_tile_1d, pthreadpool_task_2d_tile_1d_t,
            RCUPL_S3, RCUPL_A3)
RCUPL_RECORDED(pthreadpool_parallelize_2d_tile_2d, pthreadpool_task_2d_tile_2d_t,
            RCUPL_S4, RCUPL_A4)
RCUPL_RECORDED(pthreadpool_parallelize_3d, pthreadpool_task_3d_t, RCUPL_S3, RCUPL_A3)
RCUPL_RECORDED(pthreadpool_parallelize_3d_tile_2d, pthreadpool_task_3d_tile_2d_t,
            RCUPL_S5, RCUPL_A5)
RCUPL_RECORDED(pthreadpool_parallelize_4d, pthreadpool_task_4d_t, RCUPL_S4, RCUPL_A4)
RCUPL_RECORDED(pthreadpool_parallelize_4d_tile_2d, pthreadpool_task_4d_tile_2d_t,
            RCUPL_S6, RCUPL_A6)
RCUPL_RECORDED(pthreadpool_parallelize_5d, pthreadpool_task_5d_t, RCUPL_S5, RCUPL_A5)
RCUPL_RECORDED(pthreadpool_parallelize_5d_tile_2d, pthreadpool_task_5d_tile_2d_t,
            RCUPL_S7, RCUPL_A7)
RCUPL_RECORDED(pthreadpool_parallelize_6d_tile_2d, pthreadpool_task_6d_tile_2d_t,
            RCUPL_S8, RCUPL_A8)
