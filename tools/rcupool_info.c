/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcupool_info: prints what a pool of this process would get: the CPU
 * classes and their source, the affinity mask, the CPUs online, the cgroup
 * CPU quota, the default size and its reason, and the default manager's
 * placement and follow setting (rcupool_describe()). It starts no pool.
 * Run it under the limits to look at: `taskset -c 0 rcupool_info`,
 * `RCUPOOL_CPU_CLASSES=0:efficiency,1:performance rcupool_info`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rcupool/rcupool.h>

static void usage(FILE *f) {
  fprintf(f,
          "usage: rcupool_info\n"
          "Prints the CPU classes, the affinity mask, the CPUs online, the\n"
          "cgroup CPU quota and the default size (with its reason) that\n"
          "rcupool would use in this process, from the environment\n"
          "(RCUPOOL_NUM_THREADS, RCUPOOL_CPU_CLASSES, RCUPOOL_PLACEMENT,\n"
          "RCUPOOL_FOLLOW). Warnings about malformed values go to stderr.\n");
}

int main(int argc, char **argv) {
  if (argc > 1) {
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
      usage(stdout);
      return 0;
    }
    fprintf(stderr, "rcupool_info: unknown argument \"%s\"\n", argv[1]);
    usage(stderr);
    return 2;
  }
  /* One call: each reads the environment as rcupool_default() would, and
   * logs its warnings (to stderr) again. A second only if the text did not
   * fit. */
  size_t size = 1 << 16;
  char *text = malloc(size);
  if (text == NULL) return 1;
  int n = rcupool_describe(text, size);
  if (n >= 0 && (size_t)n >= size) {
    char *more = realloc(text, (size_t)n + 1);
    if (more == NULL) {
      free(text);
      return 1;
    }
    text = more;
    n = rcupool_describe(text, (size_t)n + 1);
  }
  if (n < 0) {
    free(text);
    return 1;
  }
  fputs(text, stdout);
  free(text);
  return 0;
}
