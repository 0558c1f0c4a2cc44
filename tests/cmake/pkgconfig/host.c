/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Loads two backend plugins with dlopen(RTLD_LOCAL) and checks that they
 * share one manager and one pool: both see the same rcupool_default(), a
 * reset made through one is what the other loads on, and both methods run
 * on the same pthreadpool_t. Links no rcupool itself:
 *   cc host.c -o host -ldl
 *   ./host ./libplugin_a.so ./libplugin_b.so      prints "host ok" */
#include <dlfcn.h>
#include <stdio.h>

#include "plugin.h"

static const plugin_api_t *open_plugin(const char *path) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) return fprintf(stderr, "dlopen %s: %s\n", path, dlerror()), NULL;
  const plugin_api_t *(*get)(void) =
      (const plugin_api_t *(*)(void))dlsym(h, "plugin_api");
  return get != NULL ? get() : NULL;
}

#define CHECK(cond)                                          \
  do {                                                       \
    if (!(cond)) {                                           \
      fprintf(stderr, "FAIL: %s (line %d)\n", #cond, __LINE__); \
      return 1;                                              \
    }                                                        \
  } while (0)

int main(int argc, char **argv) {
  if (argc != 3) return fprintf(stderr, "usage: host PLUGIN_A PLUGIN_B\n"), 2;
  const plugin_api_t *a = open_plugin(argv[1]), *b = open_plugin(argv[2]);
  CHECK(a != NULL && b != NULL);
  CHECK(a->manager() != NULL);
  CHECK(a->manager() == b->manager());  /* one manager */
  CHECK(a->reset(2) == 0);
  /* The default-size pool the reset replaced stays warm unless its width
   * was 2 (it depends on the machine): freed here, so one pool is alive. */
  CHECK(a->barrier() == 0);
  CHECK(a->pools_alive() == 1);
  CHECK(a->load() == 0);
  CHECK(b->load() == 0);                /* b loads on the pool a chose */
  CHECK(a->method_pool() == b->method_pool());  /* one pool */
  CHECK(a->pins() == 2 && b->pins() == 2);
  CHECK(a->pools_alive() == 1);
  CHECK(a->run() == 0 && b->run() == 0);
  CHECK(b->reset(3) == 0);              /* seen by a as well */
  CHECK(a->pools_alive() == 2 && b->pools_alive() == 2);
  CHECK(a->run() == 0 && b->run() == 0);
  a->unload();
  b->unload();
  CHECK(a->barrier() == 0);
  CHECK(b->pins() == 0 && b->pools_alive() == 1);
  printf("host ok: %s and %s share one manager and one pool\n", a->name, b->name);
  return 0;
}
