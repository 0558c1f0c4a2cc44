/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The interface of two test extensions that both use the ExecuTorch
 * stand-in (standing for two Python modules of one runtime, each built
 * against <executorch/extension/threadpool/threadpool.h>). The host
 * dlopen()s each with RTLD_LOCAL and reaches this table through
 * dlsym(handle, "et_ext_api"). The host links neither rcupool nor the
 * stand-in: whatever the process runs comes from what the extensions load.
 */
#ifndef RCUPOOL_TESTS_COMPAT_EXECUTORCH_EXTENSION_H
#define RCUPOOL_TESTS_COMPAT_EXECUTORCH_EXTENSION_H

#include <stddef.h>
#include <stdint.h>

#include <pthreadpool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct et_ext_api {
  const char *name;
  /* get_threadpool() as this extension sees it. */
  const void *(*threadpool)(void);
  /* get_pthreadpool() on the calling thread. */
  pthreadpool_t (*pthreadpool)(void);
  /* get_threadpool()->_unsafe_reset_threadpool(n): 1 for true, 0 for false. */
  int (*reset)(uint32_t threads);
  size_t (*thread_count)(void);
  /* get_threadpool()->_unsafe_destroy_threadpool(). */
  void (*destroy)(void);
  /* A parallel sum through run(): 0 when every index ran once. */
  int (*sum)(size_t range);
  /* NoThreadPoolGuard::set_enabled / is_enabled on the calling thread. */
  void (*set_no_pool)(int enabled);
  int (*no_pool)(void);
} et_ext_api_t;

/* Exported by every extension. */
const et_ext_api_t *et_ext_api(void);

#ifdef __cplusplus
}
#endif

#endif /* RCUPOOL_TESTS_COMPAT_EXECUTORCH_EXTENSION_H */
