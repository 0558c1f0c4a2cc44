/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A test extension (see extension.h). EXT_NAME names the module.
 *
 * Invariants:
 *   EXTENSION-1. Every pin this module takes lives in its own static storage
 *       and is released by method_unload() before the module is unloaded (the
 *       host does it); a pin is never left in memory that dlclose unmaps.
 *   EXTENSION-2. If log_forward() installed a hook, the destructor restores
 *       the default before the module's code is unmapped; rcupool_set_log()
 *       returns only after running calls of the hook have returned.
 */
#include "tests/shared/extension.h"

#include <stdatomic.h>

#ifndef EXT_NAME
#error "define EXT_NAME"
#endif

static rcupool_pin_t methods[EXT_MAX_METHODS];
static atomic_size_t log_lines;
static atomic_int hook_installed;

static rcupool_t *ext_manager(void) { return rcupool_default(); }

static pthreadpool_t ext_current(void) {
  rcupool_read_lock();
  pthreadpool_t tp = rcupool_current(rcupool_default());
  rcupool_read_unlock();
  return tp;
}

static int ext_reset(size_t threads) {
  return rcupool_reset(rcupool_default(), threads);
}

static size_t ext_threads(void) { return rcupool_threads(rcupool_default()); }

static uint64_t ext_generation(void) {
  return rcupool_generation(rcupool_default());
}

static int ext_barrier(void) { return rcupool_barrier(rcupool_default()); }

struct sum_ctx {
  atomic_uint_fast64_t total;
  atomic_uint_fast64_t calls;
};

static void sum_task(void *arg, size_t i) {
  struct sum_ctx *c = arg;
  atomic_fetch_add_explicit(&c->total, 3 * (uint64_t)i + 1,
                            memory_order_relaxed);
  atomic_fetch_add_explicit(&c->calls, 1, memory_order_relaxed);
}

static int sum_on(rcupool_t *m, size_t range) {
  struct sum_ctx c;
  atomic_init(&c.total, 0);
  atomic_init(&c.calls, 0);
  if (rcupool_parallelize_1d(m, sum_task, &c, range, 0) != 0) return -1;
  uint64_t n = range;
  uint64_t want = 3 * (n * (n - 1) / 2) + n;
  return (atomic_load(&c.total) == want && atomic_load(&c.calls) == n) ? 0
                                                                        : -1;
}

static int ext_sum(size_t range) { return sum_on(rcupool_default(), range); }

static int slot_ok(int slot) { return slot >= 0 && slot < EXT_MAX_METHODS; }

static int ext_method_load(int slot) {
  if (!slot_ok(slot)) return -1;
  return rcupool_pin(rcupool_default(), &methods[slot]);
}

static int ext_method_run(int slot, size_t range) {
  if (!slot_ok(slot) || rcupool_pin_pthreadpool(&methods[slot]) == NULL)
    return -1;
  rcupool_scope_enter(&methods[slot]);
  int rc = sum_on(rcupool_default(), range);
  rcupool_scope_exit();
  return rc;
}

static size_t ext_method_threads(int slot) {
  return slot_ok(slot) ? rcupool_pin_threads(&methods[slot]) : 0;
}

static pthreadpool_t ext_method_pool(int slot) {
  return slot_ok(slot) ? rcupool_pin_pthreadpool(&methods[slot]) : NULL;
}

static void ext_method_unload(int slot) {
  if (slot_ok(slot)) rcupool_unpin(&methods[slot]);
}

static void ext_log_hook(void *ctx, rcupool_log_level_t level,
                         const char *message) {
  (void)ctx;
  (void)level;
  (void)message;
  atomic_fetch_add_explicit(&log_lines, 1, memory_order_relaxed);
}

static void ext_log_forward(void) {
  rcupool_set_log(ext_log_hook, NULL);
  atomic_store(&hook_installed, 1);
}

static size_t ext_log_count(void) { return atomic_load(&log_lines); }

/* EXTENSION-2: runs at dlclose (and at exit), while this module is still
 * mapped. */
__attribute__((destructor)) static void ext_unload(void) {
  if (atomic_load(&hook_installed)) rcupool_set_log(NULL, NULL);
}

static const ext_api_t api = {
    .name = EXT_NAME,
    .manager = ext_manager,
    .current = ext_current,
    .reset = ext_reset,
    .threads = ext_threads,
    .generation = ext_generation,
    .barrier = ext_barrier,
    .sum = ext_sum,
    .method_load = ext_method_load,
    .method_run = ext_method_run,
    .method_threads = ext_method_threads,
    .method_pool = ext_method_pool,
    .method_unload = ext_method_unload,
    .log_forward = ext_log_forward,
    .log_count = ext_log_count,
};

__attribute__((visibility("default"))) const ext_api_t *ext_api(void) {
  return &api;
}
