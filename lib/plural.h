/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private, header only: the noun that follows a count in the library's messages, chosen
 * by the count ("1 thread", "2 threads"). Every count of a message in lib/
 * is followed by its noun chosen so (tests/docs:log_plurals_test reads
 * lib/'s strings).
 */
#ifndef RCUPOOL_LIB_PLURAL_H
#define RCUPOOL_LIB_PLURAL_H

#include <stdint.h>

/* `one` when n is 1, else `many`. */
static inline const char *rcupl_plural(uint64_t n, const char *one,
                                       const char *many) {
  return n == 1 ? one : many;
}

/* rcupl_plural(n, "thread", "threads"), the most common noun. */
static inline const char *rcupl_threads_noun(uint64_t n) {
  return rcupl_plural(n, "thread", "threads");
}

#endif /* RCUPOOL_LIB_PLURAL_H */
