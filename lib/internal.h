/*
 * Private: the manager's and the pool's structs, shared by lib/ only.
 *
 * Reference counting (the heart of the lifetime protocol)
 *
 *   pool->refs = pins
 *              + 1 while the manager holds the pool   ("manager reference":
 *                pool->managed; the current pool and the warm pools)
 *              + 1 per retire whose grace-period callback has not yet run
 *                                                     ("retire references")
 *              + RP_DISPATCH_REF per rcupool_parallelize_1d() dispatching
 *                on it                                ("dispatch references")
 *
 *   Dispatch references live in the high half of the same atomic word, so
 *   one load gives both counts exactly: rp_pool_counted_refs() (the low
 *   half) is what the one pin-count formula, rp_pool_pins_locked(), uses,
 *   and a dispatch never shows as a pin. Zero still means zero of all.
 *
 *   Every pool starts managed (rp_pool_create): the manager's reference is
 *   the current pool's, or a warm pool's (not current; kept for the next
 *   pin, scope or reset of its width). A pool started by rcupool_pin_sized()
 *   is never current until a reset reuses it (generation 0): its refs are
 *   its pins and the manager's. So a pin's last unpin never frees a managed
 *   pool: the pool turns warm (lib/warm.c).
 *
 *   A reset keeps the old pool managed (it turns warm) and adds a retire
 *   reference, which a grace-period callback drops. A reuse publishes a
 *   managed pool under m->lock and takes nothing: the manager's reference
 *   becomes the current one. The manager lets a pool go only under m->lock
 *   and only from refs == 1 exactly, its own reference alone (WARM-2: one
 *   compare-and-swap to 0, so no pin, retire or dispatch can be pending),
 *   or at destroy. The party that drops refs to zero, and only that party,
 *   frees the pool: the warm release (warm.c), a grace-period callback
 *   (already on the reclaim thread), or an unpin, a dispatch's own
 *   reference or destroy of a pool the manager no longer holds, which hand
 *   the pool to the reclaim thread (lib/reclaim.c). No other party may
 *   touch the pool after its own decrement. Pools are freed on the reclaim
 *   thread only (README guarantee 5).
 *
 * Locks (order: writer before lock)
 *   writer  serialises rcupool_reset(), rcupool_destroy(), the pool starts
 *           of rcupool_pin_sized() and the settle of a fork child's
 *           manager; held while a new pool's threads start; taken by
 *           fork's prepare handler (lib/fork.c, FORK-2). Never taken by
 *           readers, unpins or the reclaim thread.
 *   lock    protects the pool list, every pool's bookkeeping fields and the
 *           manager's counters. Held only for short, non-blocking work.
 *   Readers, unpin and rcupool_pin() take no lock (a pin in a fork child
 *   before the manager is settled settles it first, under writer).
 */
#ifndef RCUPOOL_LIB_INTERNAL_H
#define RCUPOOL_LIB_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rcupool/rcupool.h"
#include "tsan.h"
#include "urcu_flavor.h"

#include <urcu/list.h>

/* A unit of work for rcupool's reclaim thread (lib/reclaim.c): run after a
 * grace period that began after it was queued. Intrusive: no allocation. */
struct rp_work {
  struct rp_work *next;
  void (*fn)(struct rp_work *w);
};

#define RP_CACHELINE 64

/* pool->canary while the pool may be used; poisoned just before it is freed,
 * so a use after free is caught by tests even without a sanitizer. */
#define RP_POOL_CANARY UINT64_C(0x52435550504f4f4c)   /* "RCUPPOOL" */
#define RP_POOL_POISON UINT64_C(0xdeaddeaddeaddead)

struct rp_pool {
  /* Immutable from creation until the pool is freed. */
  uint64_t canary;
  pthreadpool_t tp;
  size_t threads;
  rcupool_t *manager;

  /* Written under manager->lock (atomically, as readers may load them). */
  uint64_t generation;       /* generation at which it last became current;
                                0 while it never was (a pool started for
                                rcupool_pin_sized(), see pin.c) */

  /* Under manager->lock only. */
  unsigned retires_pending;  /* queued retire callbacks, one ref each */
  bool managed;              /* the manager holds its reference (above) */
  uint64_t warm_since;       /* warm.c: when the last pass saw it in use
                                (CLOCK_MONOTONIC ns); 0: not seen yet */
  struct cds_list_head node; /* in manager->pools while alive */

  /* Its threads did not survive fork(). Set once, by the fork child
   * handler (lib/fork.c), while it is the only thread of the child; never
   * changed after, so every later thread of that process reads it without
   * a lock (parallel.c dispatch, pool.c free) as well as under it. */
  bool fork_orphan;

  /* Used once, by the party that dropped refs to zero. */
  struct rp_work free_work;

  /* Atomic; on its own cache line: the only field pins write. */
  _Alignas(RP_CACHELINE) size_t refs;
  /* Atomic: set by a sized pin that found this pool (one store on the
   * line it has just written), cleared by warm.c's expiry pass. */
  unsigned char used;
};

/* A retire in flight: one per reset, so a pool reused and retired again
 * within one grace period has one callback queued per retire. */
struct rp_retire {
  struct rp_work work;
  struct rp_pool *pool;
};

struct rcupool_manager {
  /* RCU-published: stored with release under writer and lock, loaded with
   * acquire by readers. Never NULL between create and destroy. */
  struct rp_pool *current;
  uint64_t generation;     /* atomic; written under lock */
  size_t current_threads;  /* atomic; written under lock */

  pthread_mutex_t writer;
  pthread_mutex_t lock;

  /* Under lock. */
  struct cds_list_head pools; /* current + retired pools not yet freed */
  uint64_t resets;
  uint64_t reuses;
  uint64_t pools_created;
  uint64_t pools_freed;

  /* Immutable after create. The count of rcupool_reset(m, 0); 0: computed
   * by rp_cpus_thread_count() at each such reset (mask and quota of then). */
  size_t default_threads;
  /* Set once by rcupool_default() before it publishes the manager. */
  bool is_default;
  /* The idle policy as the flags every pthreadpool call made for m adds to
   * its own: PTHREADPOOL_FLAG_YIELD_WORKERS or 0 (lib/idle.c). Atomic,
   * relaxed: written by create and rcupool_set_idle(), read once by each
   * call as it starts (rp_idle_flags_of). */
  uint32_t idle_flags;
  /* Warm widths (lib/warm.c): how long a warm pool lives unused, in ns,
   * and how many warm pools at most. Atomic, relaxed: written by create
   * and rcupool_set_warm(), read by each expiry pass. */
  uint64_t warm_ns;
  uint32_t warm_max;

  /* Default manager only (lib/fork.c). fork_stale: set by the fork child
   * handler, which publishes `spare` (a 1-thread pool made in the parent)
   * as current; cleared only in reset.c (RESET-5): by any reset that
   * leaves a pool current (the settle's, of current_threads, included) and
   * by a settle that failed. Atomic. spare: under writer in the parent; consumed by the child
   * handler. */
  bool fork_stale;
  struct rp_pool *spare;

  /* On manager.c's list of every manager (MANAGER-6). */
  struct cds_list_head all;
};

/* Iterates over m's pools. Unlike cds_list_for_each_entry, never forms a
 * pool pointer from the list head itself (that would be a misaligned
 * struct pointer, which UBSan rightly rejects). */
#define rp_for_each_pool(p, m)                                              \
  for (struct cds_list_head *rp_it_ = (m)->pools.next;                      \
       rp_it_ != &(m)->pools &&                                             \
       ((p) = caa_container_of(rp_it_, struct rp_pool, node), 1);           \
       rp_it_ = rp_it_->next)

/* m->pools is also walked without m->lock, inside a read-side section, by a
 * sized pin looking for a live pool of its size (pin.c, SIZED-1). So the
 * writers, all under m->lock, link and unlink with the two calls below,
 * which store forward pointers with release; a reader follows them with
 * acquire (rp_for_each_pool_rcu). An unlinked node keeps its own forward
 * pointer, so a reader standing on it walks on, and its memory is freed
 * only after a grace period that began after the unlink (reclaim.c,
 * RECLAIM-9). Backward pointers are the writers' alone. */
static inline void rp_pools_add_locked(rcupool_t *m, struct rp_pool *p) {
  struct cds_list_head *head = &m->pools, *first = head->next;
  p->node.next = first;
  p->node.prev = head;
  first->prev = &p->node;
  __atomic_store_n(&head->next, &p->node, __ATOMIC_RELEASE);
}

static inline void rp_pools_del_locked(struct rp_pool *p) {
  struct cds_list_head *prev = p->node.prev, *next = p->node.next;
  next->prev = prev;
  __atomic_store_n(&prev->next, next, __ATOMIC_RELEASE);
}

#define rp_for_each_pool_rcu(p, m)                                          \
  for (struct cds_list_head *rp_it_ =                                       \
           __atomic_load_n(&(m)->pools.next, __ATOMIC_ACQUIRE);             \
       rp_it_ != &(m)->pools &&                                             \
       ((p) = caa_container_of(rp_it_, struct rp_pool, node), 1);           \
       rp_it_ = __atomic_load_n(&rp_it_->next, __ATOMIC_ACQUIRE))

/* --- lock.c: the library's locks ----------------------------------------- */

/* Every pthread mutex and condition-variable call of lib/ goes through
 * these: a failure dies with the caller's file and line (rp_die), and the
 * calling thread counts the rcupool locks it holds, so the log never runs
 * a hook while one is held (log.c, LOG-1). */
extern __thread unsigned rp_locks_held;
void rp_lock_failed(const char *file, int line, const char *what, int err)
    __attribute__((noreturn, cold));
#define rp_mutex_lock(mu) rp_mutex_lock_at((mu), __FILE__, __LINE__)
#define rp_mutex_unlock(mu) rp_mutex_unlock_at((mu), __FILE__, __LINE__)
#define rp_cond_wait(cv, mu) rp_cond_wait_at((cv), (mu), __FILE__, __LINE__)
static inline void rp_mutex_lock_at(pthread_mutex_t *mu, const char *file,
                                    int line) {
  int err = pthread_mutex_lock(mu);
  if (__builtin_expect(err != 0, 0))
    rp_lock_failed(file, line, "pthread_mutex_lock", err);
  rp_locks_held++;
}
static inline void rp_mutex_unlock_at(pthread_mutex_t *mu, const char *file,
                                      int line) {
  rp_locks_held--;
  int err = pthread_mutex_unlock(mu);
  if (__builtin_expect(err != 0, 0))
    rp_lock_failed(file, line, "pthread_mutex_unlock", err);
}
static inline void rp_cond_wait_at(pthread_cond_t *cv, pthread_mutex_t *mu,
                                   const char *file, int line) {
  int err = pthread_cond_wait(cv, mu);
  if (__builtin_expect(err != 0, 0))
    rp_lock_failed(file, line, "pthread_cond_wait", err);
}

/* A condition wait of at most `ns` nanoseconds (on CLOCK_REALTIME, which
 * pthread_cond_t uses by default: only the span matters here). A timeout
 * is not a failure. */
#define rp_cond_wait_ns(cv, mu, ns) \
  rp_cond_wait_ns_at((cv), (mu), (ns), __FILE__, __LINE__)
void rp_cond_wait_ns_at(pthread_cond_t *cv, pthread_mutex_t *mu, uint64_t ns,
                        const char *file, int line);

/* --- log.c ---------------------------------------------------------------- */

/* Hands the queued log records to the hook, on the calling thread, when it
 * may run user code there (LOG-1: no rcupool lock held, not a library
 * thread, not in a task or a read-side section); otherwise they wait for
 * the next such call. Called at the end of every public call that can log.
 * One relaxed load when nothing is queued. */
extern size_t rp_log_pending;
void rp_log_deliver_slow(void);
static inline void rp_log_deliver(void) {
  if (__builtin_expect(__atomic_load_n(&rp_log_pending, __ATOMIC_RELAXED) != 0,
                       0))
    rp_log_deliver_slow();
}

/* Records lost to a full queue since the process started (LOG-2). */
uint64_t rp_log_dropped(void);

/* Fork handlers' part of log.c (LOG-7): prepare takes the queue's lock
 * (last of all), parent and child release it (first). */
void rp_log_fork_prepare(void);
void rp_log_fork_parent(void);
void rp_log_fork_child(void);

/* The library's own logging; rcupool_log() is the public twin that other
 * components (lib/xnnpack, users' extensions) call. Which errors are
 * logged, and at which level: LOG-5 in log.c. */
void rp_log(rcupool_log_level_t level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* --- die.c ---------------------------------------------------------------- */

/* The one fatal-error path (DIE-1): writes "rcupool: FILE:LINE: reason" to
 * stderr (reason printf-style, no allocation, no lock, no log hook: also
 * safe in a fork handler) and aborts. For broken invariants and for misuse
 * the API documents as an abort. */
#define rp_die(...) rp_die_at(__FILE__, __LINE__, __VA_ARGS__)
_Noreturn void rp_die_at(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), cold));

/* Writes len bytes of text to stderr with write(2), whole unless it fails. */
void rp_write_stderr(const char *text, size_t len);

/* --- pool.c: the pool object -------------------------------------------- */

/* Creates a pool of `threads` threads, managed, with refs = 1 (the
 * manager's reference; a sized pin adds its own pin before it lists the
 * pool), not yet on m->pools. Returns 0, -ENOMEM or -EAGAIN; logs nothing
 * (its callers do, LOG-5). */
int rp_pool_create(rcupool_t *m, size_t threads, struct rp_pool **out);

/* Takes a reference unless refs is zero. Returns false if the pool is dying. */
static inline bool rp_pool_tryget(struct rp_pool *p) {
  size_t refs = __atomic_load_n(&p->refs, __ATOMIC_RELAXED);
  do {
    if (refs == 0) return false;
  } while (!__atomic_compare_exchange_n(&p->refs, &refs, refs + 1, true,
                                        __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
  return true;
}

/* The one test of the searches for a pool of a size (a reset's reuse,
 * RESET-2; a sized pin's, SIZED-1): p has `threads` threads, did not lose
 * them to fork(), and a reference was taken (it is not dying). */
static inline bool rp_pool_tryget_sized(struct rp_pool *p, size_t threads) {
  return p->threads == threads && !p->fork_orphan && rp_pool_tryget(p);
}

/* Drops one reference; true if it was the last. Inline: unpin's path. */
void rp_pool_put_underflow(struct rp_pool *p) __attribute__((noreturn));
static inline bool rp_pool_put(struct rp_pool *p) {
  /* acq_rel: every holder's use of the pool happens before the free. */
  size_t old = __atomic_fetch_sub(&p->refs, 1, __ATOMIC_ACQ_REL);
  if (__builtin_expect(old == 0, 0)) rp_pool_put_underflow(p);
  return old == 1;
}

/* One dispatch reference (see the top of this file). Taken only where the
 * pool cannot be at zero (inside a read-side section on the current pool,
 * or on a pool the caller's scope pin holds); put returns true if it was
 * the pool's last reference: the caller then hands it to the reclaim
 * thread (rp_reclaim_free_later) and touches it no more. */
#define RP_DISPATCH_REF ((size_t)1 << 32)
void rp_pool_get_dispatch(struct rp_pool *p);
bool rp_pool_put_dispatch(struct rp_pool *p);

/* Joins the pool's threads (or keeps a fork orphan's pthreadpool, POOL-5).
 * Called only on the reclaim thread (reclaim.c), with no lock held, by the
 * party that dropped refs to zero, after it unlinked the pool. */
void rp_pool_stop(struct rp_pool *p);

/* Poisons the canary and frees the memory of a stopped pool. Called only
 * on the reclaim thread, a grace period after the unlink (RECLAIM-9), or
 * by a fork child's queue for one (rp_reclaim_fork_child). */
void rp_pool_free(struct rp_pool *p);

/* Aborts with a message if p's canary is not intact. */
void rp_pool_check(const struct rp_pool *p, const char *where);

static inline size_t rp_pool_refs(const struct rp_pool *p) {
  return __atomic_load_n(&p->refs, __ATOMIC_ACQUIRE);
}

/* refs without the dispatch references: pins + current + retires. */
static inline size_t rp_pool_counted_refs(const struct rp_pool *p) {
  return rp_pool_refs(p) & (RP_DISPATCH_REF - 1);
}

/* The pins held on p (MANAGER-3): refs - 1 if managed - retires_pending,
 * without the dispatch references; 0 for a dying pool (refs 0). Call with
 * p->manager->lock held, where "managed" and retires_pending cannot move. */
static inline size_t rp_pool_pins_locked(const struct rp_pool *p) {
  size_t base = p->retires_pending + (p->managed ? 1 : 0);
  size_t refs = rp_pool_counted_refs(p);
  return refs > base ? refs - base : 0;
}

/* --- reclaim.c: grace-period callbacks and freeing ------------------------ */

/* Queues the retire callback of rec (call after publishing a new pool). */
void rp_reclaim_retire(struct rp_retire *rec);

/* Hands a pool whose refs reached zero to the reclaim thread. Never blocks
 * for long, never frees on the calling thread. */
void rp_reclaim_free_later(struct rp_pool *p);

/* Waits until every item queued before the call has run, then, unless m
 * is NULL, until no pool of m is waiting for a free already decided (a
 * hand-over still in flight on another thread). -EAGAIN when the reclaim
 * thread is absent and cannot be started (RECLAIM-10), else 0. */
int rp_reclaim_drain(rcupool_t *m);

/* Starts the reclaim thread if it is absent: 0, or -EAGAIN (RECLAIM-10). */
int rp_reclaim_ensure_thread(void);

/* The library's one way to wait for a grace period (RECLAIM-11). */
void rp_reclaim_synchronize(void);


/* True where a call that waits for the reclaim thread (barrier, destroy)
 * would wait for itself: inside a read-side section (the grace period
 * waits for it), inside a task or on any worker of an rcupool pool (a free
 * joins that pool's workers), or on the reclaim thread. Such a call
 * returns -EDEADLK (RECLAIM-8). */
bool rp_reclaim_would_wait_for_self(void);

/* fork (lib/fork.c, RECLAIM-7, -11, -12): hold marks a fork pending and,
 * if `wait`, waits out a running callback batch (no lock held after); gate_* take and
 * release the grace-period gate (memb; child(false): bp re-initialises
 * it); prepare takes the queue lock;
 * parent clears the pending fork and releases it; child re-initialises the
 * queue's condition variables, marks the thread absent (it starts again
 * on the next need) and queues again a batch whose grace period had not
 * ended. */
void rp_reclaim_fork_hold(bool wait);
void rp_reclaim_fork_gate_prepare(void);
void rp_reclaim_fork_gate_parent(void);
void rp_reclaim_fork_gate_child(bool taken);
void rp_reclaim_fork_prepare(void);
void rp_reclaim_fork_parent(void);
void rp_reclaim_fork_child(void);
/* Child handler only: queues a free without waking or starting anything;
 * adopt queues it only if it is not queued already (the hand-over of a
 * pool whose refs reached zero was cut by fork). */
void rp_reclaim_free_later_quiet(struct rp_pool *p);
void rp_reclaim_fork_child_adopt(struct rp_pool *p);

/* Wakes the reclaim thread for a warm pass (lib/warm.c) at `due`
 * (rp_now_ns() clock; 0: now), starting it if absent. Never call with a
 * manager's lock held (FORK-2's order puts rq.mu first). */
void rp_reclaim_warm_kick(uint64_t due);

/* --- warm.c: warm widths ---------------------------------------------------- */

/* CLOCK_MONOTONIC in ns. */
uint64_t rp_now_ns(void);

/* A sized pin found p: it was used (WARM-3). */
static inline void rp_warm_note_use(struct rp_pool *p) {
  if (!__atomic_load_n(&p->used, __ATOMIC_RELAXED))
    __atomic_store_n(&p->used, 1, __ATOMIC_RELAXED);
}

/* Lets the manager's reference of p go if it is the only one (WARM-2): a
 * compare-and-swap of refs from 1 to 0. On success p is dying and the
 * caller owns it: it hands it to the reclaim thread once it holds no
 * manager lock (rp_warm_free). Call with p->manager->lock held, on a
 * managed pool that is not current. */
bool rp_warm_release_locked(struct rp_pool *p);

/* Chains released pools through free_work.next (caller's list) and hands
 * them all to the reclaim thread. */
void rp_warm_chain(struct rp_work **chain, struct rp_pool *p);
void rp_warm_free(struct rp_work *chain);

/* The expiry pass over every manager (the reclaim thread's): releases the
 * warm pools unused for their manager's warm_ms and those beyond its
 * warm_pools, and returns when the next pass is due (0: no pool is warm or
 * pinned off current, none is needed). */
uint64_t rp_warm_pass_all(void);

/* The same pass over m alone (barrier: all = false) or every warm pool of m
 * (trim: all = true). Returns the number released. No lock held. */
size_t rp_warm_pass(rcupool_t *m, bool all);

/* Stores the options' warm values in m (0: defaults). False, nothing
 * stored, when warm_ms > RCUPOOL_WARM_MS_MAX. */
bool rp_warm_set(rcupool_t *m, uint32_t warm_ms, uint32_t warm_pools);

/* --- read.c --------------------------------------------------------------- */

/* True inside a read-side section of the calling thread. */
bool rp_read_ongoing(void);
/* The same without registering the thread with liburcu (fork handlers). */
bool rp_read_ongoing_quiet(void);

/* rcupool_read_lock()/unlock() for the library's own use: direct calls,
 * never through the PLT of the shared library. */
void rp_read_lock(void);
void rp_read_unlock(void);

/* Inside one read-side section, inlined into the caller: the current pool
 * of m with a reference taken for a pin (pin.c, PIN-1) and its generation
 * in *gen; when threads is not 0 and the current pool has another size,
 * NULL and nothing taken. A count of 0 before the reference is fatal: a
 * pool reached from a section holds its current or retire reference. */
static inline struct rp_pool *rp_read_get_current(rcupool_t *m, size_t threads,
                                                  uint64_t *gen) {
  size_t refs_before = 1;
  rp_rcu_read_lock();
  struct rp_pool *p = __atomic_load_n(&m->current, __ATOMIC_ACQUIRE);
  if (threads != 0 && p->threads != threads) {
    p = NULL;
  } else {
    refs_before = __atomic_fetch_add(&p->refs, 1, __ATOMIC_RELAXED);
    *gen = __atomic_load_n(&p->generation, __ATOMIC_RELAXED);
  }
  RP_TSAN_GP_RELEASE();
  rp_rcu_read_unlock();
  if (__builtin_expect(refs_before == 0, 0))
    rp_die("pin: pool %p reached from a section at refs 0", (void *)p);
  return p;
}

/* --- worker.c: task depth and the workers of rcupool's pools -------------- */

/* True on a thread that is running a task dispatched by rcupool, or that is
 * a worker thread of any rcupool pool (whoever dispatched its task). */
bool rp_in_task(void);

/* task(ctx, i) for every i in [begin, end), on the calling thread, which
 * is in a task meanwhile (WORKER-1). */
void rp_task_run(pthreadpool_task_1d_t task, void *ctx, size_t begin,
                 size_t end);

/* Records p's worker threads as workers of an rcupool pool and names them
 * (called once by rp_pool_create on a new pool, on the creating thread). */
void rp_worker_census(struct rp_pool *p);

/* The reclaim thread marks itself once, as it starts (lib/reclaim.c); true
 * on that thread only (WORKER-3). */
void rp_worker_mark_reclaim_thread(void);
bool rp_worker_on_reclaim_thread(void);

/* --- parallel.c ----------------------------------------------------------- */

/* The pool the calling thread holds a dispatch reference on (at most one:
 * a nested call runs inline and takes none), or NULL. */
const struct rp_pool *rp_parallel_dispatching(void);

/* --- idle.c: the idle policy ---------------------------------------------- */

/* The flags a policy adds to m's pthreadpool calls (RCUPOOL_IDLE_DEFAULT:
 * the library's policy) in *flags; false, *flags untouched, when idle is
 * not a value of rcupool_idle_t. */
bool rp_idle_flags(rcupool_idle_t idle, uint32_t *flags);

/* What every pthreadpool call made for m ORs into its flags. */
static inline uint32_t rp_idle_flags_of(const rcupool_t *m) {
  return __atomic_load_n(&m->idle_flags, __ATOMIC_RELAXED);
}

/* --- names.c: thread names ------------------------------------------------- */

/* Names the calling thread (pthread_setname_np; Linux keeps 15 bytes:
 * longer names are cut). The reclaim thread is "rcupool-reclaim". */
void rp_thread_set_name(const char *name);

/* Names the calling thread as worker `index` of a pool of `threads`
 * threads: "rcupool-w3/8", or "rcupool-100/101" where the "w" would not
 * fit. */
void rp_thread_name_worker(size_t index, size_t threads);

/* --- fault.c: failure injection ------------------------------------------- */

enum rp_fault_site {
  RP_FAULT_ALLOC = 0,         /* any allocation of the library */
  RP_FAULT_POOL_CREATE = 1,   /* pthreadpool_create() */
  RP_FAULT_RECLAIM_THREAD = 2, /* the reclaim thread's pthread_create() */
};

/* Returns true when the test hook asks this call to fail. */
bool rp_fault(enum rp_fault_site site);

/* --- cpus.c: how many threads the default is ----------------------------- */

/* The default thread count, computed now: performance cores in the calling
 * thread's affinity mask, capped by the cgroup CPU quota, in
 * 1..RCUPOOL_MAX_THREADS (cpus.c says how). Logs how it was chosen (info
 * when that changed). Reads a few small files: call without manager locks. */
size_t rp_cpus_thread_count(void);

/* RCUPOOL_NUM_THREADS when it holds a count in 1..RCUPOOL_MAX_THREADS,
 * else 0 (an invalid value is logged). Read by rcupool_default() only. */
size_t rp_cpus_env_thread_count(void);

/* --- limits.c: the library's maximum, the cgroup quota, room for threads -- */

/* 0 when threads is at most RCUPOOL_MAX_THREADS; else -EINVAL, logged at
 * error level as "<call>: N threads is above the maximum" (LIMITS-3). */
int rp_limits_check_threads(const char *call, size_t threads);

/* The CPU quota of the process's cgroup in CPUs, 0 for none (LIMITS-1),
 * read now under the installed cgroup root. Reads a few small files: call
 * without manager locks. */
size_t rp_limits_cpu_quota(void);

/* The root the cgroup files are read under (NULL or "": the real ones);
 * the test hook rp_cpus_set_cgroup_root() sets it. */
void rp_limits_set_cgroup_root(const char *root);

/* True when `threads` more threads were just seen to start (LIMITS-2):
 * before a pool of threads + 1 threads starts. */
bool rp_limits_threads_can_start(size_t threads);

/* --- manager.c ------------------------------------------------------------ */

/* The count 0 stands for in rcupool_reset() and rcupool_pin_sized(): the
 * one m was created with, else the default computed now (mask and quota
 * of the calling thread: may read files, so call without m's locks). */
size_t rp_manager_default_threads(const rcupool_t *m);

/* Publishes p as m's current pool (MANAGER-5): the next generation, stored
 * in p before p is published (release), then m->generation and
 * m->current_threads (`threads`: p->threads, except in a fork child, where
 * it stays the size the manager will settle at); a pool not yet on
 * m->pools (`is_new`) is listed and counted as created; a publish that
 * replaces a pool counts as a reset. The caller keeps the old pool's
 * reference (reset.c retires it, fork.c drops it). Call with m->lock held
 * and m->writer held (or, in the fork child handler, as the only thread).
 * Returns the new generation. */
uint64_t rp_manager_publish_locked(rcupool_t *m, struct rp_pool *p,
                                   bool is_new, size_t threads);

/* Fork handlers' part of manager.c (MANAGER-6): prepare takes the list's
 * lock and then every manager's lock; parent releases them; child calls
 * each(m) for every manager, then releases m's lock, then the list's. */
void rp_managers_fork_prepare(void);
void rp_managers_fork_parent(void);
void rp_managers_fork_child(void (*each)(rcupool_t *m));

/* Calls fn(m, ctx) for every listed manager, under the list's lock
 * (MANAGER-6): the warm pass's way to every manager. */
void rp_managers_each(void (*fn)(rcupool_t *m, void *ctx), void *ctx);

/* --- reset.c -------------------------------------------------------------- */

/* In a fork child, gives the default manager a pool of its size on the
 * first call that needs one (parallelize outside a scope, pin; a reset
 * settles by itself): RESET-5, FORK-5. Elsewhere one acquire load. Never
 * call with m's locks held. */
void rp_reset_settle_fork(rcupool_t *m);
static inline void rp_fork_settle(rcupool_t *m) {
  if (__builtin_expect(__atomic_load_n(&m->fork_stale, __ATOMIC_ACQUIRE), 0))
    rp_reset_settle_fork(m);
}

/* --- default.c ------------------------------------------------------------ */

/* The default manager pointer, or NULL before it exists (fork handlers). */
rcupool_t *rp_default_peek(void);
/* Fork handlers' part of default.c: prepare takes default_lock (FORK-2),
 * parent and child release it. */
void rp_default_fork_prepare(void);
void rp_default_fork_parent(void);
void rp_default_fork_child(void);

/* --- fork.c ---------------------------------------------------------------- */

/* Registers the fork handlers once per copy of the library. */
void rp_fork_register(void);

/* The layout rcupool/inline.h reads (see there). */
#include <stddef.h>
_Static_assert(offsetof(struct rcupool_manager, current) == 0, "inline.h layout");
_Static_assert(offsetof(struct rp_pool, canary) == 0, "inline.h layout");
_Static_assert(offsetof(struct rp_pool, tp) == sizeof(uint64_t),
               "inline.h layout");

#endif /* RCUPOOL_LIB_INTERNAL_H */
