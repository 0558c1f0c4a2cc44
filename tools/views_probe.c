/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* newest-views probe (not built by any target): the costs of pools as
 * pthreadpool_create_v2 views over rcupool_executor() against pools that
 * own their threads, on the newest pthreadpool. Prototype numbers only. */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthreadpool.h>
#include <rcupool/rcupool.h>
#include <stdio.h>
#include <time.h>
static double now_ms(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
static double cpu_ms(void) { struct timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
static void nop(void *c, size_t i) { (void)c; (void)i; }
static void spin10(void *c, size_t i) { (void)c; (void)i; double a = now_ms(); while (now_ms() - a < 0.010) {} }
static int tasks(void) { int n = 0; DIR *d = opendir("/proc/self/task"); struct dirent *e; while ((e = readdir(d))) if (e->d_name[0] != '.') n++; closedir(d); return n; }
int main(void) {
  rcupool_options_t o = {0}; o.threads = 8; rcupool_t *m; rcupool_create(&o, &m);
  struct pthreadpool_executor *e; void *ctx;
  if (rcupool_executor(m, &e, &ctx) != 0) return 1;
  int base = tasks();
  for (int n = 4; n <= 8; n += 4) {
    const int R = 30; double own = 0, view = 0;
    for (int r = 0; r < R; r++) {
      double a = now_ms(); pthreadpool_t tp = pthreadpool_create(n); pthreadpool_parallelize_1d(tp, nop, NULL, n, 0); own += now_ms() - a; pthreadpool_destroy(tp);
      a = now_ms(); tp = pthreadpool_create_v2(e, ctx, n); pthreadpool_parallelize_1d(tp, nop, NULL, n, 0); view += now_ms() - a; pthreadpool_destroy(tp);
    }
    printf("new pool of %d + first call: own threads %.3f ms, view %.3f ms (mean of %d)\n", n, own / R, view / R, R);
  }
  pthreadpool_t w[4]; int widths[4] = {1, 2, 4, 8};
  int t0 = tasks();
  for (int i = 0; i < 4; i++) w[i] = pthreadpool_create(widths[i]);
  int owned = tasks() - t0;
  for (int i = 0; i < 4; i++) pthreadpool_destroy(w[i]);
  t0 = tasks();
  for (int i = 0; i < 4; i++) { w[i] = pthreadpool_create_v2(e, ctx, widths[i]); pthreadpool_parallelize_1d(w[i], nop, NULL, 64, 0); }
  printf("widths 1,2,4,8 alive: owned %d workers; views %d more (the set: %d threads, base %d)\n", owned, tasks() - t0, e->num_threads(ctx), base);
  for (int i = 0; i < 4; i++) pthreadpool_destroy(w[i]);
  pthreadpool_t raw = pthreadpool_create(2), view = pthreadpool_create_v2(e, ctx, 2);
  const int N = 2000;
  for (int k = 0; k < 2; k++) {
    size_t items = k == 0 ? 2 : 32; void (*fn)(void *, size_t) = k == 0 ? nop : spin10;
    double a = now_ms(); for (int r = 0; r < N / (k ? 10 : 1); r++) pthreadpool_parallelize_1d(raw, fn, NULL, items, 0); double tr = now_ms() - a;
    a = now_ms(); for (int r = 0; r < N / (k ? 10 : 1); r++) pthreadpool_parallelize_1d(view, fn, NULL, items, 0); double tv = now_ms() - a;
    printf("%s on 2: raw %.2f us, view %.2f us per call, ratio %.2f\n", k ? "32 x 10 us" : "tiny", tr * 1e3 / (N / (k ? 10 : 1)), tv * 1e3 / (N / (k ? 10 : 1)), tv / tr);
  }
  for (int k = 0; k < 3; k++) {
    pthreadpool_t tp = k == 0 ? raw : view; uint32_t fl = k == 2 ? PTHREADPOOL_FLAG_DONT_SPIN_WORKERS : 0;
    double sum = 0; for (int r = 0; r < 20; r++) { pthreadpool_parallelize_1d(tp, nop, NULL, 16, fl); double a = cpu_ms(); struct timespec s = {0, 50000000}; nanosleep(&s, NULL); sum += cpu_ms() - a; }
    printf("idle CPU in 50 ms after a tiny call: %s %.3f ms\n", k == 0 ? "raw" : k == 1 ? "view" : "view+DONT_SPIN", sum / 20);
  }
  pthreadpool_destroy(raw); pthreadpool_destroy(view);
  return 0;
}
