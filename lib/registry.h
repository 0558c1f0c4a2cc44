/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private, header only: the registry of a manager's pools, m->pools (the
 * current pool and the retired ones not yet freed): walking it, and
 * linking and unlinking a pool under m->lock. Below the manager, the
 * reclaim thread and the warm pass, which all walk or edit it. The
 * macros name m->pools, so their callers include manager_internal.h for
 * the manager struct.
 */
#ifndef RCUPOOL_LIB_REGISTRY_H
#define RCUPOOL_LIB_REGISTRY_H

#include "pool.h"

#include <urcu/list.h>

/* Iterates over m's pools. Unlike cds_list_for_each_entry, never forms a
 * pool pointer from the list head itself (that would be a misaligned
 * struct pointer, which UBSan rightly rejects). */
#define rcupl_for_each_pool(p, m)                                       \
  for (struct cds_list_head *rcupl_it_ = (m)->pools.next;               \
       rcupl_it_ != &(m)->pools &&                                      \
       ((p) = caa_container_of(rcupl_it_, struct rcupl_pool, node), 1); \
       rcupl_it_ = rcupl_it_->next)

/* m->pools (the list head; rcupl_pools_add_locked(&m->pools, p)) is also
 * walked without m->lock, inside a read-side section, by a
 * sized pin looking for a live pool of its size (pin.c, SIZED-1). So the
 * writers, all under m->lock, link and unlink with the two calls below,
 * which store forward pointers with release; a reader follows them with
 * acquire (rcupl_for_each_pool_rcu). An unlinked node keeps its own forward
 * pointer, so a reader standing on it walks on, and its memory is freed
 * only after a grace period that began after the unlink (reclaim.c,
 * RECLAIM-7). Backward pointers are the writers' alone. */
static inline void rcupl_pools_add_locked(struct cds_list_head *head,
                                          struct rcupl_pool *p) {
  struct cds_list_head *first = head->next;
  p->node.next = first;
  p->node.prev = head;
  first->prev = &p->node;
  __atomic_store_n(&head->next, &p->node, __ATOMIC_RELEASE);
}

static inline void rcupl_pools_del_locked(struct rcupl_pool *p) {
  struct cds_list_head *prev = p->node.prev, *next = p->node.next;
  next->prev = prev;
  __atomic_store_n(&prev->next, next, __ATOMIC_RELEASE);
}

#define rcupl_for_each_pool_rcu(p, m)                                   \
  for (struct cds_list_head *rcupl_it_ =                                \
           __atomic_load_n(&(m)->pools.next, __ATOMIC_ACQUIRE);         \
       rcupl_it_ != &(m)->pools &&                                      \
       ((p) = caa_container_of(rcupl_it_, struct rcupl_pool, node), 1); \
       rcupl_it_ = __atomic_load_n(&rcupl_it_->next, __ATOMIC_ACQUIRE))

#endif /* RCUPOOL_LIB_REGISTRY_H */
