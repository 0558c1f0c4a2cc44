/*
 * Reader registration for the memb flavour (compiled into every build; it is
 * empty unless RCUPOOL_URCU_MEMB is defined).
 *
 * Invariants:
 *   R1. A thread is registered with liburcu-memb before its first read-side
 *       section, by the thread itself (rp_rcu_reader_ready()).
 *   R2. A registered thread is unregistered when it exits, by the destructor
 *       of a pthread key whose value is non-NULL exactly while registered.
 *       A thread must not exit inside a read-side section (a contract of
 *       every flavour), so the destructor never runs inside one.
 */
#include "urcu_flavor.h"

#if defined(RCUPOOL_URCU_MEMB)

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

__thread int rp_rcu_reader_registered;

static pthread_key_t rp_reader_key;
static pthread_once_t rp_reader_key_once = PTHREAD_ONCE_INIT;

static void rp_reader_exit(void *unused) {
  (void)unused;
  urcu_memb_unregister_thread();
  rp_rcu_reader_registered = 0;
}

static void rp_reader_key_create(void) {
  if (pthread_key_create(&rp_reader_key, rp_reader_exit) != 0) {
    fprintf(stderr, "rcupool: cannot create the reader key\n");
    abort();
  }
}

void rp_rcu_reader_register_slow(void) {
  pthread_once(&rp_reader_key_once, rp_reader_key_create);
  urcu_memb_register_thread();
  rp_rcu_reader_registered = 1;
  /* Any non-NULL value makes the destructor run at thread exit. */
  pthread_setspecific(rp_reader_key, (void *)1);
}

#endif
