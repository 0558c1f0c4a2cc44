/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The interface of the test extensions: shared objects that stand for a
 * Python bindings module and a training module of one ML runtime. Each uses
 * rcupool_default() the way such a module does: it resets the thread count,
 * runs parallel work, loads "methods" that pin the pool, and (the bindings
 * module) forwards the library's log to its own logger.
 *
 * The host dlopen()s an extension with RTLD_LOCAL and reaches this table
 * through dlsym(handle, "ext_api"). Built twice: linking librcupool.so
 * (one manager per process) and linking the static library (a private
 * manager per extension: the control).
 *
 * Rules an extension follows so it can be dlclose'd (see docs/building.md):
 *   - it releases every pin it holds and leaves every scope before unload;
 *   - it restores the log hook if it installed one, in its destructor;
 *   - it registers nothing else with the library (no callback of its code
 *     can run after unload: grace-period callbacks and fork handlers belong
 *     to librcupool.so, which is never unloaded).
 */
#ifndef RCUPOOL_TESTS_SHARED_EXTENSION_H
#define RCUPOOL_TESTS_SHARED_EXTENSION_H

#include <stddef.h>
#include <stdint.h>

#include <rcupool/rcupool.h>

#ifdef __cplusplus
extern "C" {
#endif

#define EXT_MAX_METHODS 4

typedef struct ext_api {
  const char *name;
  /* rcupool_default() as this extension sees it. */
  rcupool_t *(*manager)(void);
  /* The current pthreadpool_t, read inside a section; for comparison only. */
  pthreadpool_t (*current)(void);
  int (*reset)(size_t threads);
  size_t (*threads)(void);
  uint64_t (*generation)(void);
  int (*barrier)(void);
  /* Parallel sum of f(i) = 3i + 1 over [0, range) on the current pool:
   * 0 when every index ran once and the total is right, else -1. */
  int (*sum)(size_t range);
  /* A method: load pins the current pool into slot; run does a parallel
   * sum inside the pin's scope (0 if right); unload unpins. */
  int (*method_load)(int slot);
  int (*method_run)(int slot, size_t range);
  size_t (*method_threads)(int slot);
  pthreadpool_t (*method_pool)(int slot);
  void (*method_unload)(int slot);
  /* Forwards the library's log to this extension's counter. */
  void (*log_forward)(void);
  size_t (*log_count)(void);
} ext_api_t;

/* Exported by every extension. */
const ext_api_t *ext_api(void);

#ifdef __cplusplus
}
#endif

#endif /* RCUPOOL_TESTS_SHARED_EXTENSION_H */
