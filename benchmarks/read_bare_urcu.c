/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The limit of the read path: liburcu's own read-side section, inlined into
 * the caller (_LGPL_SOURCE), of the flavour rcupool is built with
 * (//lib/deps:urcu). Each section does the work of rcupool_current():
 * dereference the published object and load the pool pointer from it.
 *
 * C, not C++: liburcu's per-thread reader state is a C++11 thread_local in
 * C++ translation units, whose access goes through a TLS wrapper check; a C
 * caller gets the plain initial-exec access, the true limit.
 * Inlining liburcu's LGPL fast path here is the point of the measurement;
 * nothing shipped is built from this file.
 */
#define _LGPL_SOURCE
#if defined(RCUPOOL_URCU_MEMB)
#include <urcu/urcu-memb.h>
#define BARE_READ_LOCK urcu_memb_read_lock
#define BARE_READ_UNLOCK urcu_memb_read_unlock
#define BARE_REGISTER urcu_memb_register_thread
#define BARE_UNREGISTER urcu_memb_unregister_thread
#else
#include <urcu/urcu-bp.h>
#define BARE_READ_LOCK urcu_bp_read_lock
#define BARE_READ_UNLOCK urcu_bp_read_unlock
#define BARE_REGISTER() ((void)0)
#define BARE_UNREGISTER() ((void)0)
#endif

#include "benchmarks/read_bare_urcu.h"

struct published {
  pthreadpool_t tp;
};

static struct published object;
static struct published *published;

void bare_urcu_publish(pthreadpool_t tp) {
  object.tp = tp;
  rcu_assign_pointer(published, &object);
}

void bare_urcu_thread_begin(void) { BARE_REGISTER(); }
void bare_urcu_thread_end(void) { BARE_UNREGISTER(); }

/* The same section split into three calls that the compiler may not inline,
 * the shape of rcupool's read API (read_lock, current, read_unlock). */
__attribute__((noinline)) void bare_urcu_call_lock(void) { BARE_READ_LOCK(); }
__attribute__((noinline)) pthreadpool_t bare_urcu_call_current(void) {
  return rcu_dereference(published)->tp;
}
__attribute__((noinline)) void bare_urcu_call_unlock(void) {
  BARE_READ_UNLOCK();
}

void bare_urcu_reads_three_calls(size_t n) {
  for (size_t i = 0; i < n; i++) {
    bare_urcu_call_lock();
    pthreadpool_t tp = bare_urcu_call_current();
    __asm__ volatile("" : : "r,m"(tp) : "memory");
    bare_urcu_call_unlock();
  }
}

void bare_urcu_reads(size_t n) {
  for (size_t i = 0; i < n; i++) {
    BARE_READ_LOCK();
    struct published *p = rcu_dereference(published);
    pthreadpool_t tp = p->tp;
    /* Keep the load, as benchmark::DoNotOptimize does. */
    __asm__ volatile("" : : "r,m"(tp) : "memory");
    BARE_READ_UNLOCK();
  }
}
