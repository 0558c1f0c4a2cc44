/*
 * Reader registration for the memb flavour (compiled into every build; it is
 * empty unless RCUPOOL_URCU_MEMB is defined).
 *
 * Invariants:
 *   MEMB-1. rcupool trusts only liburcu-memb's own registration state
 *           (URCU_TLS(urcu_memb_reader).registered): a thread the
 *           application (or anyone) registered is never registered again.
 *   MEMB-2. A thread that is not registered when it enters its outermost
 *           read-side section is registered by rcupool for that section
 *           only and unregistered when the section ends
 *           (rp_memb_owned_depth counts the nesting). So between sections
 *           rcupool holds no registration: the application may register or
 *           unregister the thread itself, a thread may exit at any time
 *           outside a section, and a fork child inherits rcupool
 *           registrations only of threads that were inside a section.
 *   MEMB-3. Registration takes liburcu-memb's registry mutex: the first
 *           section of an unregistered thread is not async-signal-safe
 *           (README, "signal handlers").
 */
#include "urcu_flavor.h"

#if defined(RCUPOOL_URCU_MEMB)

__thread unsigned rp_memb_owned_depth;

void rp_memb_register_for_section(void) {
  urcu_memb_register_thread();
  rp_memb_owned_depth = 1;
}

void rp_memb_unregister_after_section(void) { urcu_memb_unregister_thread(); }

#endif
