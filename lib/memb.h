/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/memb.c's API, rcupool's registration of liburcu-memb
 * readers for the length of a section and its fork handlers (the memb
 * flavour only; lib/urcu_flavor.h calls them).
 */
#ifndef RCUPOOL_LIB_MEMB_H
#define RCUPOOL_LIB_MEMB_H

/* Depth of this thread's sections under a registration rcupool made
 * (lib/memb.c); 0 when the thread is not registered by rcupool. */
extern __thread unsigned rcupl_memb_owned_depth;
void rcupl_memb_register_for_section(void);
void rcupl_memb_unregister_after_section(void);

/* liburcu-memb has no fork hooks of its own for its registry; these are
 * rcupool's (lib/memb.c, MEMB-4), per copy of the library. */
void rcupl_memb_fork_prepare(void);
void rcupl_memb_fork_parent(void);
void rcupl_memb_fork_child(void);

#endif /* RCUPOOL_LIB_MEMB_H */
