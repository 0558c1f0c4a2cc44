/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/die.c's API, the one fatal path.
 */
#ifndef RCUPOOL_LIB_DIE_H
#define RCUPOOL_LIB_DIE_H

#include <stddef.h>

/* The one fatal-error path (DIE-1): writes "rcupool: FILE:LINE: reason" to
 * stderr (reason printf-style, no allocation, no lock, no log hook: also
 * safe in a fork handler) and aborts. For broken invariants and for misuse
 * the API documents as an abort. */
#define rcupl_die(...) rcupl_die_at(__FILE__, __LINE__, __VA_ARGS__)
_Noreturn void rcupl_die_at(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), cold));

/* Writes len bytes of text to stderr with write(2), whole unless it fails. */
void rcupl_write_stderr(const char *text, size_t len);

#endif /* RCUPOOL_LIB_DIE_H */
