/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/env.c's API inside the library: the operator's environment
 * variables of the default manager (besides RCUPOOL_NUM_THREADS, cpus.c's).
 */
#ifndef RCUPOOL_LIB_ENV_H
#define RCUPOOL_LIB_ENV_H

#include "rcupool/rcupool.h"

/* RCUPOOL_LOG_LEVEL: sets the default sink's stderr level when valid.
 * Called by the default manager's first creation, before anything else it
 * logs. */
void rcupl_env_apply_log_level(void);

/* RCUPOOL_IDLE, RCUPOOL_WARM_MS and RCUPOOL_WARM_POOLS into *opts (each
 * field left as it is when its variable is unset, empty or invalid). */
void rcupl_env_default_options(rcupool_options_t *opts);

#endif /* RCUPOOL_LIB_ENV_H */
