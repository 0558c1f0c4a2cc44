/*
 * The process-wide log hook.
 *
 * Invariants:
 *   L1. A hook runs with hook_lock held for reading, so rcupool_set_log()
 *       (which takes it for writing) returns only after every running call
 *       of the previous hook has returned; the previous ctx may then be
 *       freed by the caller.
 *   L2. Formatting happens on the caller's stack (no allocation), so the
 *       reclaim thread and the fork child can log.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

#include "internal.h"

static pthread_rwlock_t hook_lock = PTHREAD_RWLOCK_INITIALIZER;
static rcupool_log_fn hook_fn;    /* under hook_lock; NULL: default */
static void *hook_ctx;            /* under hook_lock */

static const char *const level_names[] = {"debug", "info", "warning", "error"};

static void rp_log_default(rcupool_log_level_t level, const char *message) {
  if (level >= RCUPOOL_LOG_WARN)
    fprintf(stderr, "rcupool: %s: %s\n", level_names[level], message);
}

void rp_log(rcupool_log_level_t level, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  rp_vlog(level, fmt, ap);
  va_end(ap);
}

void rcupool_log(rcupool_log_level_t level, const char *fmt, ...) {
  if ((unsigned)level > RCUPOOL_LOG_ERROR) level = RCUPOOL_LOG_ERROR;
  va_list ap;
  va_start(ap, fmt);
  rp_vlog(level, fmt, ap);
  va_end(ap);
}

void rp_vlog(rcupool_log_level_t level, const char *fmt, va_list ap) {
  char message[256];
  vsnprintf(message, sizeof message, fmt, ap);

  pthread_rwlock_rdlock(&hook_lock);
  if (hook_fn != NULL)
    hook_fn(hook_ctx, level, message);
  else
    rp_log_default(level, message);
  pthread_rwlock_unlock(&hook_lock);
}

void rcupool_set_log(rcupool_log_fn fn, void *ctx) {
  pthread_rwlock_wrlock(&hook_lock);
  hook_fn = fn;
  hook_ctx = ctx;
  pthread_rwlock_unlock(&hook_lock);
}
