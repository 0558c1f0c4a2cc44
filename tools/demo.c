/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * demo: rcupool's main job, with a real backend.
 *
 * Two executor threads run a model's method again and again: an XNNPACK
 * runtime (two fully-connected layers, 256 -> 512 -> 256, batch 64) plus one
 * kernel of the method's own (row sums of the output) through
 * rcupool_parallelize_1d(), both inside the method's scope, so both run on
 * the method's pool. Every output is checked against a double-precision
 * reference. Meanwhile a resetter thread changes the process's thread count
 * (1 up to --max-threads, repeats included). Between runs, an executor whose
 * method went stale refreshes it onto the current pool. A third executor
 * runs the same method at a fixed width (kFixedWidth threads) on a sized
 * pin (rcupool_xnn_runtime_create_sized): it never goes stale, never
 * refreshes, and its pool is the current one only while a reset has made
 * it so.
 *
 * Once a second: elapsed time, generation, current threads, pools alive,
 * kept pools, pools never current, pins, OS threads of the process, and
 * the widths alive (the current size, then each executor's pool size; "*"
 * marks the fixed-width executor's). At the end a summary; the
 * exit status is 0 only with no wrong output, one pool left alive and the
 * OS threads back to the current pool's plus the library's one.
 *
 *   bazel run //tools:demo [-- --seconds S] [--max-threads N] [--json]
 *                                [--unsafe]
 *
 * --unsafe first runs the same kind of method the unsafe way (raw XNNPACK
 * on a raw pthreadpool that each reset destroys and replaces) in a child
 * process, and reports how it ended: a hang killed after 5 s, a signal, or
 * an AddressSanitizer report (when built with --config=asan).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cpuinfo.h>
#include <rcupool/rcupool.h>
#include <rcupool/xnnpack.h>

#include "tools/child_process.h"
#include "tools/model/mlp.h"
#include "tools/os_threads.h"
#include "tools/reported_case.h"

/* The model's dimensions: the reported case's (tools/reported_case.h). */
enum {
  kBatch = REPORTED_BATCH,
  kIn = REPORTED_IN,
  kHidden = REPORTED_HIDDEN,
  kOut = REPORTED_OUT,
};
enum { kInputs = 4 };           /* inputs the executors cycle through */
enum { kExecutors = 3 };         /* the last one runs at a fixed width */
enum { kFixedWidth = 1 };
static const double kMaxError = 1e-4;
static const unsigned kResetPeriodMs = 150;
static const double kUnsafeTimeout = 5.0;

struct options {
  double seconds;
  size_t max_threads;
  bool json;
  bool unsafe;
};

/* Shared, read-only once the executors start. */
static mlp_t *model;
static float *inputs[kInputs];
static double *references[kInputs];
static double *reference_row_sums[kInputs];

static atomic_bool stop;
static atomic_ulong executions, wrong_outputs, refreshes, resets_requested;
static atomic_size_t os_threads_peak;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void note_os_threads(void) {
  size_t n = os_thread_count(), peak = atomic_load(&os_threads_peak);
  while (n > peak && !atomic_compare_exchange_weak(&os_threads_peak, &peak, n)) {
  }
}

/* --- an executor ---------------------------------------------------------- */

struct executor {
  pthread_t thread;
  int id;
  rcupool_t *m;
  xnn_subgraph_t sg;           /* kept for refresh */
  rcupool_xnn_runtime_t *rt;
  size_t fixed_width;          /* 0: follows the current pool */
  atomic_size_t width;         /* its pool's size, for the status line */
  float x[kBatch * kIn];
  float y[kBatch * kOut];
  double row_sums[kBatch];
  int error;                   /* first failure of a call, 0 if none */
};

/* The method's own kernel: row sums of the output, one row per item. */
static void row_sum(void *ctx, size_t row) {
  struct executor *e = ctx;
  double s = 0.0;
  for (size_t j = 0; j < kOut; j++) s += e->y[row * kOut + j];
  e->row_sums[row] = s;
}

static int setup(struct executor *e) {
  const struct xnn_external_value v[2] = {{MLP_INPUT_ID, e->x},
                                          {MLP_OUTPUT_ID, e->y}};
  return rcupool_xnn_runtime_setup(e->rt, 2, v);
}

static bool row_sums_match(const double *got, const double *want) {
  double worst = 0.0, scale = 0.0;
  for (size_t i = 0; i < kBatch; i++) {
    double d = fabs(got[i] - want[i]);
    if (isnan(d)) return false;
    if (d > worst) worst = d;
    if (fabs(want[i]) > scale) scale = fabs(want[i]);
  }
  return worst <= kMaxError * (scale > 0.0 ? scale : 1.0);
}

static void *executor_main(void *arg) {
  struct executor *e = arg;
  for (unsigned long run = 0; !atomic_load(&stop); run++) {
    if (rcupool_xnn_runtime_is_stale(e->rt)) {
      int err = rcupool_xnn_runtime_refresh(e->rt, e->sg);
      if (err == 0) err = setup(e);
      if (err != 0) {
        e->error = err;
        break;
      }
      atomic_fetch_add(&refreshes, 1);
      atomic_store(&e->width,
                   rcupool_pin_threads(rcupool_xnn_runtime_get_pin(e->rt)));
    }
    const size_t k = (run + (unsigned long)e->id) % kInputs;
    memcpy(e->x, inputs[k], sizeof e->x);
    for (size_t i = 0; i < kBatch * kOut; i++) e->y[i] = NAN;

    const rcupool_pin_t *pin = rcupool_xnn_runtime_get_pin(e->rt);
    rcupool_scope_enter(pin);
    int err = rcupool_xnn_runtime_invoke(e->rt);
    if (err == 0) err = rcupool_parallelize_1d(e->m, row_sum, e, kBatch, 0);
    rcupool_scope_exit();
    if (err != 0) {
      e->error = err;
      break;
    }
    bool ok = mlp_relative_error(e->y, references[k], kBatch * kOut) <
                  kMaxError &&
              row_sums_match(e->row_sums, reference_row_sums[k]) &&
              (e->fixed_width == 0 ||
               (rcupool_pin_threads(pin) == e->fixed_width &&
                pthreadpool_get_threads_count(rcupool_pin_pthreadpool(pin)) ==
                    e->fixed_width));
    if (!ok) {
      atomic_fetch_add(&wrong_outputs, 1);
      fprintf(stderr, "demo: executor %d: WRONG output on a pool of %zu "
              "threads (input %zu)\n", e->id, rcupool_pin_threads(pin), k);
    }
    atomic_fetch_add(&executions, 1);
  }
  return NULL;
}

/* --- the resetter --------------------------------------------------------- */

struct resetter {
  pthread_t thread;
  rcupool_t *m;
  size_t max_threads;
  int error;
};

static void *resetter_main(void *arg) {
  struct resetter *r = arg;
  uint32_t s = 0x9e3779b9u;
  while (!atomic_load(&stop)) {
    struct timespec nap = {0, (long)kResetPeriodMs * 1000000L};
    nanosleep(&nap, NULL);
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    size_t n = 1 + s % r->max_threads; /* repeats included */
    int err = rcupool_reset(r->m, n);
    if (err != 0) {
      fprintf(stderr, "demo: reset to %zu: %s\n", n, strerror(-err));
      r->error = err;
      break;
    }
    atomic_fetch_add(&resets_requested, 1);
    note_os_threads();
  }
  return NULL;
}

/* --- the unsafe way, in a child process ---------------------------------- */

/* The child's whole job (demo --unsafe-child): the reported case the
 * unsafe way. */
static int unsafe_child_main(void) {
  if (reported_model_create(&model) != 0) return 1;
  return mlp_run_unsafe_resets(model, REPORTED_FIRST_THREADS,
                               reported_resets, REPORTED_RESETS);
}

static void run_unsafe(FILE *out, child_result_t *r, char *what,
                       size_t n) {
  char self[] = "/proc/self/exe", flag[] = "--unsafe-child";
  char *argv[] = {self, flag, NULL};
  fprintf(out, "unsafe way: a child process loads the method on a raw "
          "%d-thread pthreadpool, then \"resets\" by destroying that pool and "
          "creating one of %zu threads, and invokes again (timeout %.0f s) "
          "...\n", REPORTED_FIRST_THREADS, reported_resets[0],
          kUnsafeTimeout);
  fflush(out);
  int err = child_run_program(argv, NULL, 1, kUnsafeTimeout, r);
  if (err != 0)
    snprintf(what, n, "could not start the child: %s", strerror(-err));
  else
    child_describe(r, what, n);
  fprintf(out, "unsafe way: %s\n\n", what);
  fflush(out);
}

/* --- options and data ---------------------------------------------------- */

static void usage(FILE *out) {
  fprintf(out,
          "usage: demo [--seconds S] [--max-threads N] [--json] [--unsafe]\n"
          "  --seconds S      run time (default 10)\n"
          "  --max-threads N  the resetter picks counts in 1..N (default: "
          "2x the cores)\n"
          "  --json           the summary as JSON on stdout (status lines go "
          "to stderr)\n"
          "  --unsafe         first show the unsafe way in a child process\n"
          "  -h, --help       this text\n");
}

/* 0: run with *o; 1: --help was asked for; -1: bad arguments. */
static int parse(int argc, char **argv, struct options *o) {
  for (int i = 1; i < argc; i++) {
    char *end = NULL;
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      return 1;
    } else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
      o->seconds = strtod(argv[++i], &end);
      if (*end != '\0' || !(o->seconds > 0) || o->seconds > 86400) return -1;
    } else if (strcmp(argv[i], "--max-threads") == 0 && i + 1 < argc) {
      long v = strtol(argv[++i], &end, 10);
      if (*end != '\0' || v < 1 || v > RCUPOOL_MAX_THREADS) return -1;
      o->max_threads = (size_t)v;
    } else if (strcmp(argv[i], "--json") == 0) {
      o->json = true;
    } else if (strcmp(argv[i], "--unsafe") == 0) {
      o->unsafe = true;
    } else {
      return -1;
    }
  }
  return 0;
}

static int make_data(void) {
  if (reported_model_create(&model) != 0) return -1;
  for (int k = 0; k < kInputs; k++) {
    inputs[k] = malloc(sizeof(float) * kBatch * kIn);
    references[k] = malloc(sizeof(double) * kBatch * kOut);
    reference_row_sums[k] = calloc(kBatch, sizeof(double));
    if (!inputs[k] || !references[k] || !reference_row_sums[k]) return -1;
    mlp_fill_input(model, 100 + (uint32_t)k, inputs[k]);
    mlp_reference(model, inputs[k], references[k]);
    for (size_t b = 0; b < kBatch; b++)
      for (size_t j = 0; j < kOut; j++)
        reference_row_sums[k][b] += references[k][b * kOut + j];
  }
  return 0;
}

/* --- the run ------------------------------------------------------------- */

/* Loads each executor's method: a subgraph and a runtime on the current
 * pool, or on a sized pin for the fixed-width one. Returns 0 or the
 * negative errno of the failing call. */
static int load_executors(rcupool_t *m, struct executor *ex) {
  for (int i = 0; i < kExecutors; i++) {
    ex[i].id = i;
    ex[i].m = m;
    ex[i].fixed_width = i == kExecutors - 1 ? kFixedWidth : 0;
    int err = mlp_subgraph(model, &ex[i].sg);
    if (err == 0 && ex[i].fixed_width != 0)
      err = rcupool_xnn_runtime_create_sized(m, ex[i].fixed_width, ex[i].sg,
                                             0, &ex[i].rt);
    else if (err == 0)
      err = rcupool_xnn_runtime_create(m, ex[i].sg, 0, &ex[i].rt);
    if (err == 0) err = setup(&ex[i]);
    if (err != 0) return err;
    atomic_store(&ex[i].width,
                 rcupool_pin_threads(rcupool_xnn_runtime_get_pin(ex[i].rt)));
  }
  return 0;
}

static void print_banner(FILE *status, const struct options *o,
                         const rcupool_stats_t *s0) {
  fprintf(status,
          "rcupool demo: %d executors run an XNNPACK method (FC %d-%d-%d, "
          "batch %d) plus a row-sum kernel through rcupool_parallelize_1d, "
          "checking every output; %d follow the current pool and one runs "
          "at a fixed width of %d (a sized pin); a resetter sets the thread "
          "count to a count in 1..%zu every %u ms; %.0f s.\n",
          kExecutors, kIn, kHidden, kOut, kBatch, kExecutors - 1,
          kFixedWidth, o->max_threads, kResetPeriodMs, o->seconds);
  fprintf(status,
          "default pool before the first reset: %zu threads (affinity mask, "
          "cgroup quota or RCUPOOL_NUM_THREADS; docs/default-size.md)\n",
          s0->threads);
  fprintf(status, "%7s %5s %7s %11s %4s %5s %4s %10s %10s %6s  %s\n", "time",
          "gen", "threads", "pools alive", "kept", "never", "pins",
          "os threads", "executions", "wrong", "widths alive");
}

static void print_status(FILE *status, rcupool_t *m,
                         const struct executor *ex, double elapsed) {
  rcupool_stats_t s;
  rcupool_get_stats(m, &s);
  size_t threads_now = os_thread_count();
  note_os_threads();
  /* Widths alive: the current size, then each executor's pool. */
  char widths[96];
  int len = snprintf(widths, sizeof widths, "current %zu |", s.threads);
  for (int i = 0; i < kExecutors && len > 0 && (size_t)len < sizeof widths;
       i++)
    len += snprintf(widths + len, sizeof widths - (size_t)len, " %zu%s",
                    atomic_load(&ex[i].width),
                    ex[i].fixed_width != 0 ? "*" : "");
  fprintf(status,
          "%6.1fs %5llu %7zu %11zu %4zu %5zu %4zu %10zu %10lu %6lu  %s\n",
          elapsed, (unsigned long long)s.generation, s.threads,
          s.pools_alive, s.pools_kept, s.pools_never_current, s.pins,
          threads_now, atomic_load(&executions), atomic_load(&wrong_outputs),
          widths);
}

static void sleep_until(double until) {
  for (double t; (t = now()) < until;) {
    double left = until - t;
    struct timespec nap = {(time_t)left,
                           (long)((left - (double)(time_t)left) * 1e9)};
    nanosleep(&nap, NULL);
  }
}

/* Runs the executors and the resetter for `seconds`, a status line a
 * second; then stops them, frees the methods and returns how many stopped
 * on a failed call. */
static int run(FILE *status, rcupool_t *m, struct executor *ex,
               const struct options *o) {
  const double start = now();
  for (int i = 0; i < kExecutors; i++)
    pthread_create(&ex[i].thread, NULL, executor_main, &ex[i]);
  struct resetter r = {.m = m, .max_threads = o->max_threads};
  pthread_create(&r.thread, NULL, resetter_main, &r);
  for (int tick = 1;; tick++) {
    sleep_until(start + (tick < o->seconds ? tick : o->seconds));
    print_status(status, m, ex, now() - start);
    if (now() - start >= o->seconds - 1e-3) break;
  }
  atomic_store(&stop, true);
  pthread_join(r.thread, NULL);
  int call_errors = r.error != 0;
  for (int i = 0; i < kExecutors; i++) {
    pthread_join(ex[i].thread, NULL);
    if (ex[i].error != 0) {
      fprintf(stderr, "demo: executor %d stopped: %s\n", i,
              strerror(-ex[i].error));
      call_errors++;
    }
    rcupool_xnn_runtime_destroy(ex[i].rt);
    xnn_delete_subgraph(ex[i].sg);
  }
  return call_errors;
}

/* --- the verdict ---------------------------------------------------------- */

struct outcome {
  rcupool_stats_t s0, s;       /* before the run; after it and a trim */
  int trimmed;                 /* warm pools rcupool_trim() freed at the end */
  size_t others_at_start;      /* OS threads that are not the pool's */
  bool reclaim_started_here;   /* the run started the reclaim thread */
  size_t expected, final_threads;
  unsigned long wrong;
  int call_errors;
  bool pass;
};

/* After the run: the OS threads must come back to the others at start,
 * the library's reclaim thread (rcupool's own, one per copy of the
 * library, started by the first retire) and the current pool's workers; waits up to 2 s for the
 * freed pools' threads to exit. */
static void judge(rcupool_t *m, struct outcome *r) {
  /* The widths used stay warm for a while; a process going quiet frees
   * them at once (a barrier, then every warm pool, then their joins). */
  r->trimmed = rcupool_trim(m);
  rcupool_get_stats(m, &r->s);
  r->reclaim_started_here =
      r->s0.resets == 0 && r->s0.pools_freed == 0 && r->s.resets > 0;
  r->expected = r->others_at_start + (r->reclaim_started_here ? 1 : 0) +
                (r->s.threads - 1);
  r->final_threads = os_thread_count();
  for (int i = 0; i < 200 && r->final_threads != r->expected; i++) {
    struct timespec nap = {0, 10 * 1000 * 1000};
    nanosleep(&nap, NULL);
    r->final_threads = os_thread_count();
  }
  r->wrong = atomic_load(&wrong_outputs);
  r->pass = r->wrong == 0 && r->call_errors == 0 && r->trimmed >= 0 &&
            r->s.pools_alive == 1 &&
            r->s.pins == 0 && r->final_threads == r->expected &&
            atomic_load(&executions) > 0;
}

static void print_json(const struct options *o, const struct outcome *r,
                       const child_result_t *unsafe,
                       const char *unsafe_what) {
  printf("{\"seconds\": %.1f, \"executors\": %d, \"fixed_width\": %d, "
         "\"max_threads\": %zu, "
         "\"executions\": %lu, \"wrong_outputs\": %lu, "
         "\"call_errors\": %d, \"refreshes\": %lu, "
         "\"resets_requested\": %lu, \"resets\": %llu, \"reuses\": %llu, "
         "\"pools_created\": %llu, \"pools_freed\": %llu, "
         "\"pools_alive\": %zu, \"threads\": %zu, "
         "\"os_threads_peak\": %zu, \"os_threads_final\": %zu, "
         "\"os_threads_expected\": %zu",
         o->seconds, kExecutors, kFixedWidth, o->max_threads,
         atomic_load(&executions), r->wrong, r->call_errors,
         atomic_load(&refreshes), atomic_load(&resets_requested),
         (unsigned long long)(r->s.resets - r->s0.resets),
         (unsigned long long)(r->s.reuses - r->s0.reuses),
         (unsigned long long)r->s.pools_created,
         (unsigned long long)r->s.pools_freed, r->s.pools_alive,
         r->s.threads, atomic_load(&os_threads_peak), r->final_threads,
         r->expected);
  if (o->unsafe)
    printf(", \"unsafe\": {\"timed_out\": %s, \"signal\": %d, "
           "\"exit_code\": %d, \"asan_use_after_free\": %s, "
           "\"survived\": %s, \"what\": \"%s\"}",
           unsafe->timed_out ? "true" : "false",
           unsafe->signaled ? unsafe->term_signal : 0,
           unsafe->exited ? unsafe->exit_code : -1,
           unsafe->asan_use_after_free ? "true" : "false",
           unsafe->exited && unsafe->exit_code == 0 ? "true" : "false",
           unsafe_what);
  printf(", \"pass\": %s}\n", r->pass ? "true" : "false");
}

static void print_summary(const struct options *o, const struct outcome *r,
                          const char *unsafe_what) {
  const rcupool_stats_t *s = &r->s;
  printf("\nsummary: %lu executions, %lu wrong outputs, %lu refreshes of "
         "stale methods (the fixed-width executor never refreshes)\n",
         atomic_load(&executions), r->wrong, atomic_load(&refreshes));
  printf("         %lu resets requested, %llu changed the pool, of which "
         "%llu reused a pool still alive\n",
         atomic_load(&resets_requested),
         (unsigned long long)(s->resets - r->s0.resets),
         (unsigned long long)(s->reuses - r->s0.reuses));
  printf("         pools created %llu, freed %llu (%d of them warm, freed by "
         "rcupool_trim at the end), alive %zu (the current one, %zu "
         "thread%s)\n",
         (unsigned long long)s->pools_created,
         (unsigned long long)s->pools_freed, r->trimmed, s->pools_alive,
         s->threads, s->threads == 1 ? "" : "s");
  printf("         OS threads: peak %zu, final %zu (expected %zu: %zu at "
         "start besides the pool's workers%s, + %zu pool worker%s)\n",
         atomic_load(&os_threads_peak), r->final_threads, r->expected,
         r->others_at_start,
         r->reclaim_started_here ? ", + the library's reclaim thread" : "",
         s->threads - 1, s->threads == 2 ? "" : "s");
  if (o->unsafe)
    printf("         unsafe way (child process): %s\n", unsafe_what);
  printf("%s\n", r->pass ? "PASS" : "FAIL");
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc == 2 && strcmp(argv[1], "--unsafe-child") == 0)
    return unsafe_child_main();
  struct options o = {.seconds = 10.0};
  int parsed = parse(argc, argv, &o);
  if (parsed != 0) {
    usage(parsed > 0 ? stdout : stderr);
    return parsed > 0 ? 0 : 2;
  }
  if (o.max_threads == 0) {
    size_t cores = cpuinfo_initialize() ? cpuinfo_get_cores_count() : 1;
    o.max_threads = cores >= 1 ? 2 * cores : 2;
  }
  FILE *status = o.json ? stderr : stdout;
  if (make_data() != 0) {
    fprintf(stderr, "demo: out of memory\n");
    return 1;
  }
  child_result_t unsafe = {0};
  char unsafe_what[256] = "";
  if (o.unsafe) run_unsafe(status, &unsafe, unsafe_what, sizeof unsafe_what);

  rcupool_t *m = rcupool_default();
  if (m == NULL || xnn_initialize(NULL) != xnn_status_success) {
    fprintf(stderr, "demo: rcupool or XNNPACK failed to start\n");
    return 1;
  }
  struct outcome r = {0};
  rcupool_get_stats(m, &r.s0);
  atomic_store(&os_threads_peak, os_thread_count());
  /* The process's threads that are not the pool's: main, any sanitizer
   * thread, and the reclaim thread if the library has started it. */
  r.others_at_start = os_thread_count() - (r.s0.threads - 1);

  struct executor *ex = calloc(kExecutors, sizeof *ex);
  if (ex == NULL) return 1;
  int err = load_executors(m, ex);
  if (err != 0) {
    fprintf(stderr, "demo: loading the method: %s\n", strerror(-err));
    return 1;
  }
  print_banner(status, &o, &r.s0);
  r.call_errors = run(status, m, ex, &o);
  free(ex);
  judge(m, &r);
  if (o.json)
    print_json(&o, &r, &unsafe, unsafe_what);
  else
    print_summary(&o, &r, unsafe_what);
  return r.pass ? 0 : 1;
}
