/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: every private header of lib/, for the files of lib/ that include
 * them all.
 *
 * Names: the public API is rcupool_* and RCUPOOL_*; everything private to
 * lib/ is rcupl_* (functions, types, variables: a static link of the
 * archive puts them beside the application's own symbols, so the prefix is
 * one no other library uses) and RCUPL_* (macros). The shared library
 * exports rcupool_* only (lib/shared/rcupool.map).
 *
 * One concept a header, each beside its code:
 *
 *   pool.h              the pool struct, its reference count (what the
 *                       references are) and lib/pool.c
 *   manager_internal.h  the manager struct, its locks and pool list, and
 *                       lib/manager.c
 *   reclaim.h           the reclaim thread's unit of work and API
 *                       (lib/reclaim.c, reclaim_fork.c, barrier.c)
 *   warm.h              warm widths (lib/warm.c)
 *   read_internal.h     the library's read side (lib/read.c)
 *   lock.h  log_internal.h  die.h  worker.h  parallel.h  idle.h  names.h
 *   fault.h  cpus.h  limits_internal.h  reset.h  default.h  fork.h
 *                       the API of the .c file of lib/ of the same name
 *   tsan.h  urcu_flavor.h  the TSAN annotations, the liburcu flavour
 *
 * A header is named after its .c file, with "_internal" where that name is
 * a public header's (include/rcupool/) or a system header's.
 */
#ifndef RCUPOOL_LIB_INTERNAL_H
#define RCUPOOL_LIB_INTERNAL_H

#include "rcupool/rcupool.h"
#include "tsan.h"
#include "urcu_flavor.h"

#include "cpus.h"
#include "default.h"
#include "die.h"
#include "env.h"
#include "fault.h"
#include "fork.h"
#include "idle.h"
#include "limits_internal.h"
#include "lock.h"
#include "log_internal.h"
#include "manager_internal.h"
#include "names.h"
#include "parallel.h"
#include "pool.h"
#include "read_internal.h"
#include "reclaim.h"
#include "reset.h"
#include "warm.h"
#include "worker.h"

#endif /* RCUPOOL_LIB_INTERNAL_H */
