/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The address whose release/acquire stands for a grace period under TSAN
 * (see tsan.h). Empty in other builds. */
#include "tsan.h"

#if defined(RCUPL_TSAN)
char rcupl_tsan_gp_token;
#endif
