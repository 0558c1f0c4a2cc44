/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The manager's executor (include/rcupool/executor.h): a set of threads
 * that pools made by pthreadpool_create_v2() borrow, one parallel call at
 * a time. Built only against a pthreadpool with the executor API; with
 * any other rcupool_executor() answers -ENOTSUP.
 *
 * Invariants kept here:
 *   EXEC-1. A task given to schedule() runs exactly once, on a thread of
 *       the set: it is queued under e->lock and a thread takes it off the
 *       queue under that lock. The set's threads leave only when the set
 *       stops with an empty queue (rcupl_executor_forget(), once no pool
 *       of the manager is left), so a queued task is never dropped, and a
 *       pool's pthreadpool_destroy(), which waits for the tasks it
 *       scheduled, returns.
 *   EXEC-2. e->threads only grows while the set lives (under e->lock), and
 *       num_threads() reads it with one atomic load: a pool sized from it
 *       never counts a thread the set does not have.
 *   EXEC-3. One executor per manager, found through `executors` under
 *       executors_lock; a fork child has none of the set's threads, so
 *       its copy of every set is emptied by the child handler (its queue
 *       held tasks of the parent's pools only) and grows again on demand.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "die.h"
#include "executor.h"
#include "names.h"
#include "rcupool/rcupool.h"

#ifdef PTHREADPOOL_FLAG_DONT_SPIN_WORKERS /* the executor API's flag */

struct rcupl_task {
  void (*fn)(void *);
  void *arg;
  struct rcupl_task *next;
};

struct rcupl_executor {
  struct pthreadpool_executor api; /* what rcupool_executor() hands out */
  rcupool_t *m;
  pthread_mutex_t lock;
  pthread_cond_t work;
  struct rcupl_task *head, *tail, *spare; /* queue; nodes for reuse */
  size_t threads;                         /* EXEC-2 */
  bool stopping;
  pthread_t tids[RCUPOOL_MAX_THREADS];
  struct rcupl_executor *next; /* executors */
};

static pthread_mutex_t executors_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rcupl_executor *executors; /* EXEC-3 */
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static int rcupl_executor_num_threads(void *context) {
  struct rcupl_executor *e = context;
  return (int)__atomic_load_n(&e->threads, __ATOMIC_ACQUIRE); /* EXEC-2 */
}

static void rcupl_executor_schedule(void *context, void *arg,
                                    void (*fn)(void *)) {
  struct rcupl_executor *e = context;
  pthread_mutex_lock(&e->lock);
  struct rcupl_task *t = e->spare;
  if (t != NULL) {
    e->spare = t->next;
  } else if ((t = malloc(sizeof(*t))) == NULL) {
    /* pthreadpool counted this task as started and waits for it: there
     * is no way to refuse it. */
    rcupl_die("executor: no memory for a task of a pool's parallel call");
  }
  t->fn = fn;
  t->arg = arg;
  t->next = NULL;
  if (e->tail != NULL)
    e->tail->next = t;
  else
    e->head = t;
  e->tail = t;
  pthread_cond_signal(&e->work);
  pthread_mutex_unlock(&e->lock);
}

static void *rcupl_executor_thread(void *arg) {
  struct rcupl_executor *e = arg;
  rcupl_thread_set_name("rcupool-exec");
  pthread_mutex_lock(&e->lock);
  for (;;) {
    while (e->head == NULL && !e->stopping)
      pthread_cond_wait(&e->work, &e->lock);
    struct rcupl_task *t = e->head;
    if (t == NULL) break; /* stopping, and nothing left (EXEC-1) */
    e->head = t->next;
    if (e->head == NULL) e->tail = NULL;
    pthread_mutex_unlock(&e->lock);
    t->fn(t->arg);
    pthread_mutex_lock(&e->lock);
    t->next = e->spare;
    e->spare = t;
  }
  pthread_mutex_unlock(&e->lock);
  return NULL;
}

/* Starts threads until the set has `want` (at most RCUPOOL_MAX_THREADS).
 * 0, or -EAGAIN when a thread could not start (the set keeps those that
 * did). */
static int rcupl_executor_grow(struct rcupl_executor *e, size_t want) {
  if (want > RCUPOOL_MAX_THREADS) want = RCUPOOL_MAX_THREADS;
  int err = 0;
  pthread_mutex_lock(&e->lock);
  while (e->threads < want) {
    if (pthread_create(&e->tids[e->threads], NULL, rcupl_executor_thread, e) !=
        0) {
      err = -EAGAIN;
      break;
    }
    __atomic_store_n(&e->threads, e->threads + 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&e->lock);
  return err;
}

/* EXEC-3: the child's sets have no thread; their queues held the parent's
 * pools' tasks. Their nodes are the child's memory: kept for reuse. */
static void rcupl_executor_atfork_child(void) {
  pthread_mutex_init(&executors_lock, NULL);
  for (struct rcupl_executor *e = executors; e != NULL; e = e->next) {
    pthread_mutex_init(&e->lock, NULL);
    pthread_cond_init(&e->work, NULL);
    while (e->head != NULL) {
      struct rcupl_task *t = e->head;
      e->head = t->next;
      t->next = e->spare;
      e->spare = t;
    }
    e->tail = NULL;
    e->threads = 0;
  }
}

static void rcupl_executor_atfork_prepare(void) {
  pthread_mutex_lock(&executors_lock);
}

static void rcupl_executor_atfork_parent(void) {
  pthread_mutex_unlock(&executors_lock);
}

static void rcupl_executor_register_atfork(void) {
  pthread_atfork(rcupl_executor_atfork_prepare, rcupl_executor_atfork_parent,
                 rcupl_executor_atfork_child);
}

int rcupool_executor(rcupool_t *m, struct pthreadpool_executor **executor,
                     void **context) {
  if (m == NULL || executor == NULL || context == NULL) return -EINVAL;
  pthread_once(&atfork_once, rcupl_executor_register_atfork);
  pthread_mutex_lock(&executors_lock);
  struct rcupl_executor *e = executors;
  while (e != NULL && e->m != m) e = e->next;
  if (e == NULL) {
    e = calloc(1, sizeof(*e));
    if (e == NULL) {
      pthread_mutex_unlock(&executors_lock);
      return -ENOMEM;
    }
    e->api.num_threads = rcupl_executor_num_threads;
    e->api.schedule = rcupl_executor_schedule;
    e->m = m;
    pthread_mutex_init(&e->lock, NULL);
    pthread_cond_init(&e->work, NULL);
    e->next = executors;
    executors = e;
  }
  pthread_mutex_unlock(&executors_lock);
  /* Until rcupool's own pools are made on the set, it holds the threads
   * the manager's current width needs besides its caller. */
  size_t width = rcupool_threads(m);
  int err = rcupl_executor_grow(e, width > 1 ? width - 1 : 0);
  if (err != 0) return err;
  *executor = &e->api;
  *context = e;
  return 0;
}

void rcupl_executor_forget(rcupool_t *m) {
  pthread_mutex_lock(&executors_lock);
  struct rcupl_executor **link = &executors;
  while (*link != NULL && (*link)->m != m) link = &(*link)->next;
  struct rcupl_executor *e = *link;
  if (e != NULL) *link = e->next;
  pthread_mutex_unlock(&executors_lock);
  if (e == NULL) return;
  pthread_mutex_lock(&e->lock);
  e->stopping = true;
  pthread_cond_broadcast(&e->work);
  size_t n = e->threads;
  pthread_mutex_unlock(&e->lock);
  for (size_t i = 0; i < n; i++) pthread_join(e->tids[i], NULL);
  while (e->spare != NULL) {
    struct rcupl_task *t = e->spare;
    e->spare = t->next;
    free(t);
  }
  pthread_cond_destroy(&e->work);
  pthread_mutex_destroy(&e->lock);
  free(e);
}

#else /* a pthreadpool without the executor API: nothing to hand out */

int rcupool_executor(rcupool_t *m, struct pthreadpool_executor **executor,
                     void **context) {
  if (m == NULL || executor == NULL || context == NULL) return -EINVAL;
  return -ENOTSUP;
}

void rcupl_executor_forget(rcupool_t *m) { (void)m; }

#endif
