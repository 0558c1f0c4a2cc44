/*
 * The process-wide manager and its default size (cpuinfo, environment).
 * Its life across fork() is lib/fork.c's.
 *
 * Invariants kept here:
 *   D1. At most one default manager exists per process: it is created under
 *       default_lock and published once; it is never destroyed.
 *   D2. A failed first creation leaves no manager and no threads behind; a
 *       later call tries again.
 *   D3. The fork handlers are registered (rp_fork_register, once per copy
 *       of the library) before the first manager is created, and the
 *       prepare handler takes default_lock first: a fork never catches the
 *       first creation half-way, the child never inherits default_lock
 *       held by another thread, and the manager pointer cannot change
 *       between prepare and the parent/child handler.
 *   D4. No message is logged with default_lock held (it is deferred).
 */
#include <cpuinfo.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static pthread_mutex_t default_lock = PTHREAD_MUTEX_INITIALIZER;
static rcupool_t *default_manager; /* published once with release */

size_t rp_default_thread_count(void) {
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

/* Parses RCUPOOL_NUM_THREADS: a decimal count in 1..RCUPOOL_MAX_THREADS,
 * optionally surrounded by blanks. Returns 0 when unset or invalid (logged). */
static size_t rp_env_thread_count(void) {
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

/* --- the default manager ------------------------------------------------- */

rcupool_t *rcupool_default(void) {
  rcupool_t *m = __atomic_load_n(&default_manager, __ATOMIC_ACQUIRE);
  if (__builtin_expect(m != NULL, 1)) return m;

  rp_fork_register();
  struct rp_log_deferred deferred;
  pthread_mutex_lock(&default_lock);
  rp_log_defer_begin(&deferred);
  m = default_manager;
  if (m == NULL) {
    size_t threads = rp_env_thread_count();
    if (threads == 0) threads = rp_default_thread_count();
    rcupool_options_t opts = {.threads = threads};
    int err = rcupool_create(&opts, &m);
    if (err != 0) {
      m = NULL;
      rp_log(RCUPOOL_LOG_ERROR, "default: cannot create the manager (%d)",
             err);
    } else {
      m->is_default = true;
      __atomic_store_n(&default_manager, m, __ATOMIC_RELEASE);
      rp_log(RCUPOOL_LOG_DEBUG, "default: manager %p with %zu threads (%s)",
             (void *)m, threads, RP_URCU_FLAVOR_NAME);
    }
  }
  pthread_mutex_unlock(&default_lock);
  rp_log_defer_end(&deferred);
  return m;
}

rcupool_t *rp_default_peek(void) {
  return __atomic_load_n(&default_manager, __ATOMIC_ACQUIRE);
}

void rp_default_fork_prepare(void) { pthread_mutex_lock(&default_lock); }

void rp_default_fork_parent(void) { pthread_mutex_unlock(&default_lock); }

void rp_default_fork_child(void) {
  /* Taken by this very thread in prepare. */
  pthread_mutex_unlock(&default_lock);
}
