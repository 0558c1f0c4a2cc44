/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The list of every manager of the process: how fork's handlers and the
 * warm pass reach managers they were not handed.
 *
 * Invariants kept here:
 *   MANAGERS-1. Every manager between create and destroy is on `managers`
 *       (under managers_mu), so fork's handlers reach every manager's
 *       pools, not only the default's (lib/fork.c, FORK-4). A manager is
 *       listed before rcupool_create() returns it and unlisted before
 *       rcupool_destroy() frees it (lib/manager.c).
 */
#include <pthread.h>

#include "fault.h"
#include "lock.h"
#include "manager_state.h"
#include "managers.h"
#include "rcupool/rcupool.h"

static pthread_mutex_t managers_mu = PTHREAD_MUTEX_INITIALIZER;
static CDS_LIST_HEAD(managers); /* MANAGERS-1, through rcupool_manager.all */

void rcupl_managers_add(rcupool_t *m) {
  rcupl_mutex_lock(&managers_mu);
  rcupl_hold_point(RCUPL_HOLD_MANAGERS_MU);
  cds_list_add(&m->all, &managers);
  rcupl_mutex_unlock(&managers_mu);
}

void rcupl_managers_remove(rcupool_t *m) {
  rcupl_mutex_lock(&managers_mu);
  cds_list_del(&m->all);
  rcupl_mutex_unlock(&managers_mu);
}

void rcupl_managers_fork_prepare(void) {
  rcupl_mutex_lock(&managers_mu);
  for (struct cds_list_head *it = managers.next; it != &managers; it = it->next)
    rcupl_mutex_lock(&caa_container_of(it, struct rcupool_manager, all)->lock);
}

void rcupl_managers_fork_parent(void) {
  for (struct cds_list_head *it = managers.next; it != &managers; it = it->next)
    rcupl_mutex_unlock(
        &caa_container_of(it, struct rcupool_manager, all)->lock);
  rcupl_mutex_unlock(&managers_mu);
}

void rcupl_managers_each(void (*fn)(rcupool_t *m, void *ctx), void *ctx) {
  rcupl_mutex_lock(&managers_mu);
  for (struct cds_list_head *it = managers.next; it != &managers; it = it->next)
    fn(caa_container_of(it, struct rcupool_manager, all), ctx);
  rcupl_mutex_unlock(&managers_mu);
}

void rcupl_managers_fork_child(void (*each)(rcupool_t *m)) {
  for (struct cds_list_head *it = managers.next; it != &managers;
       it = it->next) {
    rcupool_t *m = caa_container_of(it, struct rcupool_manager, all);
    each(m);
    rcupl_mutex_unlock(&m->lock);
  }
  rcupl_mutex_unlock(&managers_mu);
}
