/*
 * The process-wide log hook, the library's logging rule and its one fatal
 * path.
 *
 * Invariants:
 *   LOG-1. A hook runs with hook_lock held for reading, so rcupool_set_log()
 *          (which takes it for writing) returns only after every running
 *          call of the previous hook has returned; the previous ctx may then
 *          be freed by the caller.
 *   LOG-2. Formatting happens on the caller's stack (no allocation).
 *   LOG-3. The hook is never called with an rcupool lock held: code that
 *          logs while holding one defers its messages into a buffer on its
 *          own stack (rp_log_defer_begin/end) and hands them to the hook
 *          after unlocking. So a hook may call any rcupool function but
 *          rcupool_set_log() (on the reclaim thread, barrier is -EDEADLK).
 *   LOG-4. No hook call happens in a fork handler. In the child, hook_lock
 *          is re-initialised (a parent thread may have been inside a hook)
 *          by the child handler, so the child logs normally once the
 *          handlers returned; hook_fn/hook_ctx are one pair published
 *          together, so the child sees either the old or the new pair.
 *   LOG-5. The rule for errors. A public call that returns a negative
 *          errno logs why, once, where it decides to return it, before it
 *          returns: at error level, except -EBUSY (a refusal that changes
 *          nothing and that the caller resolves by letting go of a pin),
 *          at warning level. The one exception is -EINVAL for a NULL
 *          argument, which is not logged (the return says it all, and the
 *          NULL checks of the fast paths stay one branch). Calls that
 *          cannot return an error but ignore a misuse (unpin of an empty
 *          pin, scope exit with none entered) log it at warning level.
 *   LOG-6. The one fatal path is rp_die() (internal.h): broken invariants
 *          and the misuses the API documents as an abort. It writes
 *          "rcupool: FILE:LINE: reason" to stderr with write(2), formatted
 *          on the stack, and aborts; it takes no lock and calls no hook, so
 *          it may run anywhere (a fork handler, with any lock held).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

struct rp_hook {
  rcupool_log_fn fn;
  void *ctx;
};

static pthread_rwlock_t hook_lock = PTHREAD_RWLOCK_INITIALIZER;
/* Two slots; `hook` points at the one in use (NULL: default). Written under
 * hook_lock held for writing. */
static struct rp_hook hook_slots[2];
static struct rp_hook *hook;

static __thread struct rp_log_deferred *deferred_to;

static const char *const level_names[] = {"debug", "info", "warning", "error"};

static void rp_log_default(rcupool_log_level_t level, const char *message) {
  if (level >= RCUPOOL_LOG_WARN)
    fprintf(stderr, "rcupool: %s: %s\n", level_names[level], message);
}

static void rp_vlog(rcupool_log_level_t level, const char *fmt,
                    va_list ap) __attribute__((format(printf, 2, 0)));

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

static void rp_log_emit(rcupool_log_level_t level, const char *message) {
  pthread_rwlock_rdlock(&hook_lock);
  struct rp_hook *h = __atomic_load_n(&hook, __ATOMIC_ACQUIRE);
  if (h != NULL)
    h->fn(h->ctx, level, message);
  else
    rp_log_default(level, message);
  pthread_rwlock_unlock(&hook_lock);
}

static void rp_vlog(rcupool_log_level_t level, const char *fmt,
                    va_list ap) {
  struct rp_log_deferred *d = deferred_to;
  if (d != NULL) {
    if (d->count == sizeof d->level / sizeof d->level[0]) {
      d->dropped++;
      return;
    }
    d->level[d->count] = level;
    vsnprintf(d->text[d->count], sizeof d->text[0], fmt, ap);
    d->count++;
    return;
  }
  char message[256];
  vsnprintf(message, sizeof message, fmt, ap);
  rp_log_emit(level, message);
}

void rp_log_defer_begin(struct rp_log_deferred *buf) {
  buf->count = 0;
  buf->dropped = 0;
  /* Nested: the outermost buffer collects everything. */
  if (deferred_to == NULL) deferred_to = buf;
}

void rp_log_defer_end(struct rp_log_deferred *buf) {
  if (deferred_to != buf) return; /* nested: the outer end emits */
  deferred_to = NULL;
  for (unsigned i = 0; i < buf->count; i++)
    rp_log_emit(buf->level[i], buf->text[i]);
  if (buf->dropped != 0)
    rp_log(RCUPOOL_LOG_WARN, "%u log messages dropped (deferred under a lock)",
           buf->dropped);
}

void rcupool_set_log(rcupool_log_fn fn, void *ctx) {
  pthread_rwlock_wrlock(&hook_lock);
  if (fn == NULL) {
    __atomic_store_n(&hook, NULL, __ATOMIC_RELEASE);
  } else {
    struct rp_hook *next = hook == &hook_slots[0] ? &hook_slots[1]
                                                  : &hook_slots[0];
    next->fn = fn;
    next->ctx = ctx;
    __atomic_store_n(&hook, next, __ATOMIC_RELEASE);
  }
  pthread_rwlock_unlock(&hook_lock);
}

void rp_log_fork_child(void) {
  pthread_rwlock_init(&hook_lock, NULL);
  deferred_to = NULL;
}

void rp_die_at(const char *file, int line, const char *fmt, ...) {
  char message[512];
  int n = snprintf(message, sizeof message, "rcupool: %s:%d: ", file, line);
  if (n < 0) n = 0;
  if ((size_t)n >= sizeof message) n = sizeof message - 1;
  va_list ap;
  va_start(ap, fmt);
  int r = vsnprintf(message + n, sizeof message - (size_t)n, fmt, ap);
  va_end(ap);
  size_t len = (size_t)n + (r > 0 ? (size_t)r : 0);
  if (len > sizeof message - 2) len = sizeof message - 2;
  message[len++] = '\n';
  for (size_t done = 0; done < len;) {
    ssize_t w = write(2, message + done, len - done);
    if (w <= 0) break;
    done += (size_t)w;
  }
  abort();
}
