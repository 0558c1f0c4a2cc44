/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The version of the library at run time (rcupool_version(),
 * rcupool_version_number()), from the header's RCUPOOL_VERSION_* macros as
 * this library was compiled with them.
 *
 * Invariants kept here:
 *   VERSION-1. Both functions return constants: the string is static
 *       storage, the same pointer on every call, built by the preprocessor;
 *       nothing is computed or allocated at run time.
 *   VERSION-2. The number orders as the versions do: minor and patch are
 *       below 100 (asserted at build time).
 */
#include <rcupool/rcupool.h>

_Static_assert(RCUPOOL_VERSION_MINOR >= 0 && RCUPOOL_VERSION_MINOR < 100,
               "RCUPOOL_VERSION_NUMBER needs a minor version below 100");
_Static_assert(RCUPOOL_VERSION_PATCH >= 0 && RCUPOOL_VERSION_PATCH < 100,
               "RCUPOOL_VERSION_NUMBER needs a patch version below 100");

#define RCUPL_STR_(x) #x
#define RCUPL_STR(x) RCUPL_STR_(x)

const char *rcupool_version(void) {
  return RCUPL_STR(RCUPOOL_VERSION_MAJOR) "." RCUPL_STR(
      RCUPOOL_VERSION_MINOR) "." RCUPL_STR(RCUPOOL_VERSION_PATCH);
}

int rcupool_version_number(void) { return RCUPOOL_VERSION_NUMBER; }
