/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one fatal path, and the one writer of the library's own lines to
 * stderr (the log's default sink, lib/log.c, writes through it too).
 *
 * Invariants kept here:
 *   DIE-1. rcupl_die() (die.h) is the library's one fatal path: broken
 *          invariants and the misuses the API documents as an abort. It
 *          writes "rcupool: FILE:LINE: reason" to stderr with write(2),
 *          formatted on the stack, and aborts; it takes no lock and calls
 *          no hook, so it may run anywhere (a fork handler, with any lock
 *          held). This file calls no other file of lib/.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "die.h"
#include "rcupool/rcupool.h"

void rcupl_write_stderr(const char *text, size_t len) {
  for (size_t done = 0; done < len;) {
    ssize_t w = write(2, text + done, len - done);
    if (w <= 0) break;
    done += (size_t)w;
  }
}

void rcupl_die_at(const char *file, int line, const char *fmt, ...) {
  char message[512];
  int n = snprintf(message, sizeof message, "rcupool: %s:%d: ", file, line);
  if (n < 0) n = 0;
  if ((size_t)n >= sizeof message) n = sizeof message - 1;
  va_list ap;
  va_start(ap, fmt);
  int r = vsnprintf(message + n, sizeof message - (size_t)n, fmt, ap);
  va_end(ap);
  size_t len = (size_t)n + (r > 0 ? (size_t)r : 0);
  if (len > sizeof message - 2) len = sizeof message - 2;
  message[len++] = '\n';
  rcupl_write_stderr(message, len);
  abort();
}
