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
#define RP_S1 size_t a
#define RP_S2 RP_S1, size_t b
#define RP_S3 RP_S2, size_t c
#define RP_S4 RP_S3, size_t d
#define RP_S5 RP_S4, size_t e
#define RP_S6 RP_S5, size_t f
#define RP_S7 RP_S6, size_t g
#define RP_S8 RP_S7, size_t h
#define RP_A1 a
#define RP_A2 RP_A1, b
#define RP_A3 RP_A2, c
#define RP_A4 RP_A3, d
#define RP_A5 RP_A4, e
#define RP_A6 RP_A5, f
#define RP_A7 RP_A6, g
#define RP_A8 RP_A7, h

#define RP_RECORDED(name, task_t, params, args)                              \
  extern "C" void name(pthreadpool_t pool, task_t task, void *ctx, params,   \
                       uint32_t flags) {                                     \
    using fn_t = void (*)(pthreadpool_t, task_t, void *, params, uint32_t);  \
    static fn_t real = reinterpret_cast<fn_t>(rcupool_test::Real(#name));    \
    rcupool_test::Record(pool, flags);                                       \
    real(pool, task, ctx, args, flags);                                      \
  }

RP_RECORDED(pthreadpool_parallelize_1d, pthreadpool_task_1d_t, RP_S1, RP_A1)
RP_RECORDED(pthreadpool_parallelize_1d_tile_1d, pthreadpool_task_1d_tile_1d_t,
            RP_S2, RP_A2)
RP_RECORDED(pthreadpool_parallelize_2d, pthreadpool_task_2d_t, RP_S2, RP_A2)
RP_RECORDED(pthreadpool_parallelize_2d_tile_1d, pthreadpool_task_2d_tile_1d_t,
            RP_S3, RP_A3)
RP_RECORDED(pthreadpool_parallelize_2d_tile_2d, pthreadpool_task_2d_tile_2d_t,
            RP_S4, RP_A4)
RP_RECORDED(pthreadpool_parallelize_3d, pthreadpool_task_3d_t, RP_S3, RP_A3)
RP_RECORDED(pthreadpool_parallelize_3d_tile_2d, pthreadpool_task_3d_tile_2d_t,
            RP_S5, RP_A5)
RP_RECORDED(pthreadpool_parallelize_4d, pthreadpool_task_4d_t, RP_S4, RP_A4)
RP_RECORDED(pthreadpool_parallelize_4d_tile_2d, pthreadpool_task_4d_tile_2d_t,
            RP_S6, RP_A6)
RP_RECORDED(pthreadpool_parallelize_5d, pthreadpool_task_5d_t, RP_S5, RP_A5)
RP_RECORDED(pthreadpool_parallelize_5d_tile_2d, pthreadpool_task_5d_tile_2d_t,
            RP_S7, RP_A7)
RP_RECORDED(pthreadpool_parallelize_6d_tile_2d, pthreadpool_task_6d_tile_2d_t,
            RP_S8, RP_A8)
