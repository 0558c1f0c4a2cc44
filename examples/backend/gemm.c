/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A kernel library that takes a raw pthreadpool_t and calls
 * pthreadpool_parallelize_*() itself (here a tiled matrix product), and
 * the method that loads it on rcupool (docs/backends.md): pin at load,
 * plan for the pinned pool's thread count, a scope per run, re-plan when
 * the pin is no longer current, unpin at unload. Another thread resets
 * the thread count every 3 ms while the method runs; every product is
 * checked exactly against a serial one (small integers: every sum is
 * exact in float). Exits 0 when every run was exact and the method
 * re-planned at least 3 times. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <pthreadpool.h>
#include <rcupool/rcupool.h>

enum { M = 48, N = 40, K = 32 };

/* --- the kernel library: knows pthreadpool, not rcupool --------------- */

struct gemm_plan {
  pthreadpool_t pool; /* not owned: the caller keeps it alive */
  size_t threads;     /* pthreadpool_get_threads_count(pool) */
  size_t tile_m;      /* rows a task computes */
  uint32_t flags;     /* PTHREADPOOL_FLAG_* for every call */
};

struct gemm_args {
  const float *a, *b; /* a: M x K, b: K x N, row-major */
  float *c;           /* M x N */
};

/* Plans for the pool's thread count: about two tiles of rows a thread. */
static void gemm_plan(struct gemm_plan *p, pthreadpool_t pool,
                      uint32_t flags) {
  p->pool = pool;
  p->threads = pthreadpool_get_threads_count(pool);
  p->tile_m = (M + 2 * p->threads - 1) / (2 * p->threads);
  p->flags = flags;
}

/* ThreadSanitizer does not see pthreadpool's own synchronisation when
 * pthreadpool is not built with it (Debian's is not): a kernel compiled with
 * -fsanitize=thread tells it the call's two edges, the caller's writes
 * before the tasks and the tasks' writes before the caller's return.
 * Nothing otherwise. */
#if defined(__SANITIZE_THREAD__)
#define GEMM_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define GEMM_TSAN 1
#endif
#endif
#if defined(GEMM_TSAN)
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define GEMM_TSAN_ACQUIRE(a) __tsan_acquire(a)
#define GEMM_TSAN_RELEASE(a) __tsan_release(a)
#else
#define GEMM_TSAN_ACQUIRE(a) ((void)(a))
#define GEMM_TSAN_RELEASE(a) ((void)(a))
#endif

static void gemm_tile(void *ctx, size_t i, size_t j, size_t rows,
                      size_t cols) {
  const struct gemm_args *g = ctx;
  GEMM_TSAN_ACQUIRE(ctx);
  for (size_t r = i; r < i + rows; r++)
    for (size_t col = j; col < j + cols; col++) {
      float sum = 0;
      for (size_t k = 0; k < K; k++) sum += g->a[r * K + k] * g->b[k * N + col];
      g->c[r * N + col] = sum;
    }
  GEMM_TSAN_RELEASE(g->c);
}

/* c = a b on the planned pool; returns when every tile is done. */
static void gemm_run(const struct gemm_plan *p, struct gemm_args *g) {
  GEMM_TSAN_RELEASE(g);
  pthreadpool_parallelize_2d_tile_2d(p->pool, gemm_tile, g, M, N, p->tile_m,
                                     N, p->flags);
  GEMM_TSAN_ACQUIRE(g->c);
}

/* --- the method: the kernel library loaded on rcupool ----------------- */

struct method {
  rcupool_t *m;
  rcupool_pin_t pin;     /* held from load to unload */
  struct gemm_plan plan; /* for the pinned pool */
  unsigned replans;
};

/* The flags rcupool's own calls pass under m's idle policy: a direct
 * pthreadpool call passes its own. */
static uint32_t idle_flags(rcupool_t *m) {
  if (rcupool_idle(m) != RCUPOOL_IDLE_YIELD) return 0;
#ifdef PTHREADPOOL_FLAG_DONT_SPIN_WORKERS
  return PTHREADPOOL_FLAG_YIELD_WORKERS | PTHREADPOOL_FLAG_DONT_SPIN_WORKERS;
#else
  return PTHREADPOOL_FLAG_YIELD_WORKERS;
#endif
}

static int method_load(struct method *me, rcupool_t *m) {
  me->m = m;
  int err = rcupool_pin(m, &me->pin);          /* pin at load */
  if (err != 0) return err;
  gemm_plan(&me->plan, rcupool_pin_pthreadpool(&me->pin), idle_flags(m));
  return 0;                                    /* planned for the pinned pool */
}

static int method_replan(struct method *me) {
  rcupool_pin_t fresh = {0};
  int err = rcupool_pin(me->m, &fresh);        /* the current pool first */
  if (err != 0) return err;                    /* the old pin still holds */
  rcupool_unpin(&me->pin);                     /* then let the old one go */
  me->pin = fresh;                             /* no scope uses it: may move */
  gemm_plan(&me->plan, rcupool_pin_pthreadpool(&me->pin), idle_flags(me->m));
  me->replans++;
  return 0;
}

static void scale(void *ctx, size_t i) { ((float *)ctx)[i] *= 2.0f; }

static int method_run(struct method *me, struct gemm_args *g) {
  int err = 0;
  if (!rcupool_pin_is_current(&me->pin))       /* a reset since the plan */
    err = method_replan(me);
  if (err != 0) return err;
  rcupool_scope_enter(&me->pin);               /* a scope per run */
  gemm_run(&me->plan, g);                      /* direct: the pin holds the pool */
  err = rcupool_parallelize_1d(me->m, scale, g->c, M * N, 0); /* same pool */
  rcupool_scope_exit();
  return err;
}

static void method_unload(struct method *me) {
  rcupool_unpin(&me->pin);                     /* unpin at unload */
}

/* --- the application: a method run while another thread resets ------- */

static atomic_bool stop;

static void *resetter(void *arg) {
  rcupool_t *m = arg;
  const struct timespec every = {0, 3000000};
  for (size_t n = 1; !atomic_load(&stop); n = n % 4 + 1) {
    if (rcupool_reset(m, n) != 0) return (void *)1;
    nanosleep(&every, NULL);
  }
  return NULL;
}

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(void) {
  static float a[M * K], b[K * N], c[M * N], want[M * N];
  for (size_t i = 0; i < M * K; i++) a[i] = (float)((int)(i % 7) - 3);
  for (size_t i = 0; i < K * N; i++) b[i] = (float)((int)(i * 5 % 11) - 5);
  for (size_t r = 0; r < M; r++)
    for (size_t col = 0; col < N; col++) {
      double sum = 0;
      for (size_t k = 0; k < K; k++) sum += (double)a[r * K + k] * b[k * N + col];
      want[r * N + col] = (float)(2 * sum);
    }

  rcupool_t *m = rcupool_default();
  struct method me = {0};
  if (m == NULL || rcupool_reset(m, 2) != 0 || method_load(&me, m) != 0) return 1;
  pthread_t t;
  if (pthread_create(&t, NULL, resetter, m) != 0) return 1;
  struct gemm_args g = {a, b, c};
  unsigned runs = 0, wrong = 0, planned_for[5] = {0};
  int err = 0;
  double start = seconds();
  while (err == 0 && seconds() - start < 20 &&
         (seconds() - start < 0.3 || me.replans < 3)) {
    err = method_run(&me, &g);
    runs++;
    if (me.plan.threads != rcupool_pin_threads(&me.pin)) wrong++;
    planned_for[me.plan.threads <= 4 ? me.plan.threads : 0]++;
    for (size_t i = 0; i < M * N; i++)
      if (c[i] != want[i]) {
        wrong++;
        break;
      }
  }
  atomic_store(&stop, true);
  void *reset_failed;
  pthread_join(t, &reset_failed);
  method_unload(&me);
  printf("gemm %dx%dx%d: %u runs, %u wrong, %u re-plans under resets every 3 ms; "
         "runs planned for 1/2/3/4 threads: %u/%u/%u/%u\n",
         M, N, K, runs, wrong, me.replans, planned_for[1], planned_for[2],
         planned_for[3], planned_for[4]);
  return err == 0 && reset_failed == NULL && wrong == 0 && me.replans >= 3 ? 0 : 1;
}
