/*
 * How many threads the default is: the count a pool gets when nobody named
 * one (cpuinfo), and the RCUPOOL_NUM_THREADS override.
 *
 * Invariants kept here:
 *   CPUS-1. Every count returned is in 1..RCUPOOL_MAX_THREADS.
 *   CPUS-2. RCUPOOL_NUM_THREADS is read only by rp_cpus_env_thread_count();
 *           an invalid value is logged and reads as "unset" (0).
 */
#include <cpuinfo.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"

size_t rp_cpus_thread_count(void) {
  if (cpuinfo_initialize()) {
    uint32_t cores = cpuinfo_get_cores_count();
    const struct cpuinfo_core *all = cpuinfo_get_cores();
    if (cores > 0 && all != NULL) {
      /* Performance cores: those with the highest frequency. Where the
       * frequency is unknown (0, common on x86), every core counts. */
      uint64_t top = 0;
      for (uint32_t i = 0; i < cores; i++)
        if (all[i].frequency > top) top = all[i].frequency;
      size_t n = 0;
      for (uint32_t i = 0; i < cores; i++)
        if (all[i].frequency == top) n++;
      if (n > RCUPOOL_MAX_THREADS) n = RCUPOOL_MAX_THREADS;
      if (n > 0) return n;
    }
  }
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  rp_log(RCUPOOL_LOG_WARN,
         "cpuinfo could not count cores; using %ld online processors", online);
  if (online < 1) return 1;
  return online > RCUPOOL_MAX_THREADS ? RCUPOOL_MAX_THREADS : (size_t)online;
}

size_t rp_cpus_env_thread_count(void) {
  const char *text = getenv(RCUPOOL_ENV_NUM_THREADS);
  if (text == NULL) return 0;
  const char *s = text;
  while (*s == ' ' || *s == '\t') s++;
  char *end = NULL;
  errno = 0;
  long v = (*s >= '0' && *s <= '9') ? strtol(s, &end, 10) : -1;
  if (end != NULL)
    while (*end == ' ' || *end == '\t' || *end == '\n') end++;
  if (v < 1 || v > RCUPOOL_MAX_THREADS || errno != 0 || end == NULL ||
      *end != '\0') {
    rp_log(RCUPOOL_LOG_WARN,
           "%s=\"%.32s\" is not a thread count in 1..%d; ignored",
           RCUPOOL_ENV_NUM_THREADS, text, RCUPOOL_MAX_THREADS);
    return 0;
  }
  return (size_t)v;
}
