/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/idle.c's API, the idle policy.
 */
#ifndef RCUPOOL_LIB_IDLE_H
#define RCUPOOL_LIB_IDLE_H

#include <stdbool.h>
#include <stdint.h>

#include "manager_state.h"
#include "rcupool/rcupool.h"

/* The flags a policy adds to m's pthreadpool calls (RCUPOOL_IDLE_DEFAULT:
 * the library's policy) in *flags; false, *flags untouched, when idle is
 * not a value of rcupool_idle_t. */
bool rcupl_idle_flags(rcupool_idle_t idle, uint32_t *flags);

/* What every pthreadpool call made for m ORs into its flags. */
static inline uint32_t rcupl_idle_flags_of(const rcupool_t *m) {
  return __atomic_load_n(&m->idle_flags, __ATOMIC_RELAXED);
}

#endif /* RCUPOOL_LIB_IDLE_H */
