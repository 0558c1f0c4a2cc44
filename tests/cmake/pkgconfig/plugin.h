/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Two plugins of one runtime that use rcupool's XNNPACK backend, built
 * outside any build system:
 *   cc -shared -fPIC -DPLUGIN_NAME='"a"' plugin.c -o libplugin_a.so \
 *      $(pkg-config --cflags --libs rcupool-xnnpack) -lm \
 *      -Wl,-rpath,$(pkg-config --variable=libdir rcupool)
 * and dlopen'ed (RTLD_LOCAL) by host.c, which links no rcupool itself. */
#ifndef PLUGIN_H
#define PLUGIN_H

#include <stddef.h>
#include <stdint.h>

typedef struct plugin_api {
  const char *name;
  const void *(*manager)(void); /* rcupool_default() as this plugin sees it */
  int (*reset)(size_t threads);
  int (*load)(void);            /* an XNNPACK method on the current pool */
  const void *(*method_pool)(void); /* the pthreadpool_t it runs on */
  int (*run)(void);             /* 0 when the output matches the reference */
  void (*unload)(void);
  size_t (*pins)(void);         /* stats: pins on the manager */
  size_t (*pools_alive)(void);
  int (*barrier)(void);
} plugin_api_t;

const plugin_api_t *plugin_api(void);

#endif
