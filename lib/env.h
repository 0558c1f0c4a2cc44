/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/env.c's API inside the library: the operator's environment
 * variables of the default manager (besides RCUPOOL_NUM_THREADS, cpus.c's),
 * for rcupool_default() and rcupool_describe().
 */
#ifndef RCUPOOL_LIB_ENV_H
#define RCUPOOL_LIB_ENV_H

#include "rcupool/rcupool.h"

/* RCUPOOL_LOG_LEVEL: sets the default sink's stderr level when valid.
 * Called by the default manager's first creation, before anything else it
 * logs. */
void rcupl_env_apply_log_level(void);

/* RCUPOOL_PLACEMENT: 1 and *out (normalised) for a placement that can be
 * placed now (rcupl_placement_can_place, logged at info); 0 when unset or
 * empty; -1, *out untouched, for a malformed one or one with no CPU in the
 * calling thread's mask and online (warned: ENV-2). Reads the mask and a
 * sysfs file: call without manager locks. */
int rcupl_env_placement(rcupool_placement_t *out);

/* RCUPOOL_FOLLOW: 1 and *out (RCUPOOL_FOLLOW_OFF for "0", _ON for "1",
 * logged at info); 0 when unset or empty; -1, *out untouched, for any
 * other value (warned: ENV-2). */
int rcupl_env_follow(rcupool_follow_t *out);

/* RCUPOOL_IDLE, RCUPOOL_WARM_MS and RCUPOOL_WARM_POOLS into *opts (each
 * field left as it is when its variable is unset, empty or invalid). */
void rcupl_env_default_options(rcupool_options_t *opts);

#endif /* RCUPOOL_LIB_ENV_H */
