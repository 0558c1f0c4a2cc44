/* The address whose release/acquire stands for a grace period under TSAN
 * (see tsan.h). Empty in other builds. */
#include "tsan.h"

#if defined(RP_TSAN)
char rp_tsan_gp_token;
#endif
