/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rcupool built against the newest Debian set, seen from outside its tree
 * (tests/newest/run.sh builds it through pkg-config against the install):
 *   one_pthreadpool DEPS_PREFIX
 * runs an XNNPACK method on rcupool's pool (Debian 12's XNNPACK, which
 * needs libpthreadpool.so.0), then walks the loaded objects: exactly one
 * pthreadpool, the one in DEPS_PREFIX/lib, the newer one (it has
 * pthreadpool_create_v2), and only the system's libcpuinfo.so.0 (the
 * newer cpuinfo is inside librcupool, hidden). Prints "one pthreadpool ok"
 * and what it found; exits 1 with the reason otherwise. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

#include "tests/cmake/pkgconfig/tiny_model.h"

typedef struct loaded {
  int pthreadpools, cpuinfos;
  char pthreadpool[512], cpuinfo[512];
} loaded_t;

static int visit(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  loaded_t *l = arg;
  const char *base = strrchr(info->dlpi_name, '/');
  base = base != NULL ? base + 1 : info->dlpi_name;
  if (strncmp(base, "libpthreadpool.so", 17) == 0) {
    l->pthreadpools++;
    snprintf(l->pthreadpool, sizeof l->pthreadpool, "%s", info->dlpi_name);
  } else if (strncmp(base, "libcpuinfo.so", 13) == 0) {
    l->cpuinfos++;
    snprintf(l->cpuinfo, sizeof l->cpuinfo, "%s", info->dlpi_name);
  }
  return 0;
}

int main(int argc, char **argv) {
  static tiny_t t;
  if (argc != 2) return fprintf(stderr, "usage: one_pthreadpool DEPS_PREFIX\n"), 2;
  rcupool_t *m = rcupool_default();
  if (m == NULL || rcupool_reset(m, 2) != 0) return fprintf(stderr, "reset\n"), 1;
  tiny_fill(&t);
  int err = tiny_load(&t, m);
  if (err != 0) return fprintf(stderr, "load: %d\n", err), 1;
  if ((err = tiny_run(&t)) != 0) return fprintf(stderr, "run: %d\n", err), 1;
  tiny_unload(&t);

  loaded_t l = {0};
  dl_iterate_phdr(visit, &l);
  char want[512];
  snprintf(want, sizeof want, "%s/lib/", argv[1]);
  printf("pthreadpool: %d loaded, %s\ncpuinfo: %d loaded, %s\n", l.pthreadpools, l.pthreadpool,
         l.cpuinfos, l.cpuinfo);
  if (l.pthreadpools != 1) return fprintf(stderr, "not one pthreadpool\n"), 1;
  if (strncmp(l.pthreadpool, want, strlen(want)) != 0)
    return fprintf(stderr, "the pthreadpool is not the one in %s\n", want), 1;
  if (dlsym(RTLD_DEFAULT, "pthreadpool_create_v2") == NULL)
    return fprintf(stderr, "the pthreadpool has no executor API\n"), 1;
  if (l.cpuinfos != 1 || strncmp(l.cpuinfo, want, strlen(want)) == 0)
    return fprintf(stderr, "expected the system's libcpuinfo.so.0 only (XNNPACK's)\n"), 1;
  printf("one pthreadpool ok: an XNNPACK method ran on rcupool's pool\n");
  return 0;
}
