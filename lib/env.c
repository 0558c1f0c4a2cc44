/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The operator's environment variables of the process-wide manager:
 * RCUPOOL_IDLE (the idle policy, as OMP_WAIT_POLICY), RCUPOOL_WARM_MS and
 * RCUPOOL_WARM_POOLS (warm widths), RCUPOOL_PLACEMENT and RCUPOOL_FOLLOW
 * (where its workers run, whether its default count follows the limits)
 * and RCUPOOL_LOG_LEVEL (what the default sink writes to stderr, as
 * OMP_DISPLAY_ENV shows what OpenMP chose). RCUPOOL_NUM_THREADS is
 * cpus.c's, RCUPOOL_CPU_CLASSES classes.c's.
 *
 * Invariants kept here:
 *   ENV-1. Read only by rcupool_default()'s first creation (default.c), once
 *       per process, never by rcupool_create(): a private manager is the
 *       program's own; and by rcupool_describe() (describe.c), which says
 *       what that creation would get, through these same functions. A
 *       variable unset or set to "" means the library's default, silently.
 *   ENV-2. Checked as RCUPOOL_NUM_THREADS is: blanks around the value are
 *       allowed, names compare without case; anything else is logged once
 *       at warning level (naming the variable, the value and what is
 *       accepted) and ignored, so the default applies. Never fatal.
 *   ENV-3. A valid value is logged at info level (debug for the log level
 *       itself), so the process says what the operator chose.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "env.h"
#include "log_internal.h"
#include "placement.h"
#include "plural.h"

/* The value without its surrounding blanks, in buf; NULL when unset or
 * empty (ENV-1). A value too long for buf is kept long enough to be
 * rejected. */
static const char *rcupl_env_text(const char *name, char *buf, size_t size) {
  const char *text = getenv(name);
  if (text == NULL || text[0] == '\0') return NULL;
  while (*text == ' ' || *text == '\t') text++;
  size_t n = strnlen(text, size);
  if (n == size) { /* too long for any valid value */
    buf[0] = '?';
    buf[1] = '\0';
    return buf;
  }
  memcpy(buf, text, n);
  buf[n] = '\0';
  while (n > 0 &&
         (buf[n - 1] == ' ' || buf[n - 1] == '\t' || buf[n - 1] == '\n'))
    buf[--n] = '\0';
  return buf;
}

/* 1 and *out for a decimal integer in [min, max]; 0 when unset or empty;
 * -1 (warned, ENV-2) otherwise. */
static int rcupl_env_uint(const char *name, unsigned long min,
                          unsigned long max, unsigned long *out) {
  char buf[40];
  const char *s = rcupl_env_text(name, buf, sizeof buf);
  if (s == NULL) return 0;
  char *end = NULL;
  errno = 0;
  unsigned long v = (*s >= '0' && *s <= '9') ? strtoul(s, &end, 10) : 0;
  if (end == NULL || *end != '\0' || errno != 0 || v < min || v > max) {
    rcupl_log(RCUPOOL_LOG_WARN,
              "%s=\"%.32s\" is not a number in %lu..%lu; "
              "ignored",
              name, getenv(name), min, max);
    return -1;
  }
  *out = v;
  return 1;
}

/* --- RCUPOOL_LOG_LEVEL ----------------------------------------------------- */

void rcupl_env_apply_log_level(void) {
  static const struct {
    const char *name;
    rcupool_log_level_t level;
  } names[] = {{"debug", RCUPOOL_LOG_DEBUG},
               {"info", RCUPOOL_LOG_INFO},
               {"warning", RCUPOOL_LOG_WARN},
               {"warn", RCUPOOL_LOG_WARN},
               {"error", RCUPOOL_LOG_ERROR}};
  char buf[16];
  const char *s = rcupl_env_text(RCUPOOL_ENV_LOG_LEVEL, buf, sizeof buf);
  if (s == NULL) return;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    if (strcasecmp(s, names[i].name) == 0) {
      rcupl_log_set_stderr_level(names[i].level);
      rcupl_log(RCUPOOL_LOG_DEBUG, "log: %s=%s: stderr from %s up",
                RCUPOOL_ENV_LOG_LEVEL, s, names[i].name);
      return;
    }
  }
  rcupl_log(RCUPOOL_LOG_WARN,
            "%s=\"%.32s\" is not one of debug, info, warning, error; ignored",
            RCUPOOL_ENV_LOG_LEVEL, getenv(RCUPOOL_ENV_LOG_LEVEL));
}

/* --- RCUPOOL_PLACEMENT, RCUPOOL_FOLLOW ------------------------------------ */

int rcupl_env_placement(rcupool_placement_t *out) {
  char buf[4200]; /* the longest CPU list of RCUPOOL_PLACEMENT_MAX_CPUS */
  const char *s = rcupl_env_text(RCUPOOL_ENV_PLACEMENT, buf, sizeof buf);
  if (s == NULL) return 0;
  rcupool_placement_t pl;
  if (rcupool_placement_parse(s, &pl) != 0 || rcupl_placement_check(&pl) != 0) {
    rcupl_log(RCUPOOL_LOG_WARN,
              "%s=\"%.64s\" is not a placement (none, performance, "
              "efficiency or a CPU list, each with an optional \":strict\"); "
              "ignored",
              RCUPOOL_ENV_PLACEMENT, getenv(RCUPOOL_ENV_PLACEMENT));
    return -1;
  }
  rcupl_placement_normalise(&pl);
  /* Well formed but of no use here: the manager's every pool of a worker
   * or more would be refused (PLACE-2). Ignored as a malformed one is. */
  if (!rcupl_placement_can_place(&pl)) {
    rcupl_log(RCUPOOL_LOG_WARN,
              "%s=\"%.64s\" has no CPU in the affinity mask and online; "
              "ignored",
              RCUPOOL_ENV_PLACEMENT, getenv(RCUPOOL_ENV_PLACEMENT));
    return -1;
  }
  char text[64];
  rcupool_placement_format(&pl, text, sizeof text);
  rcupl_log(RCUPOOL_LOG_INFO, "default: placement %s (%s)", text,
            RCUPOOL_ENV_PLACEMENT);
  *out = pl;
  return 1;
}

int rcupl_env_follow(rcupool_follow_t *out) {
  char buf[16];
  const char *s = rcupl_env_text(RCUPOOL_ENV_FOLLOW, buf, sizeof buf);
  if (s == NULL) return 0;
  if (strcmp(s, "0") != 0 && strcmp(s, "1") != 0) {
    rcupl_log(RCUPOOL_LOG_WARN, "%s=\"%.32s\" is not 0 or 1; ignored",
              RCUPOOL_ENV_FOLLOW, getenv(RCUPOOL_ENV_FOLLOW));
    return -1;
  }
  const bool on = s[0] == '1';
  rcupl_log(RCUPOOL_LOG_INFO, "default: %s the CPU limits (%s=%s)",
            on ? "follows" : "does not follow", RCUPOOL_ENV_FOLLOW, s);
  *out = on ? RCUPOOL_FOLLOW_ON : RCUPOOL_FOLLOW_OFF;
  return 1;
}

/* --- RCUPOOL_IDLE, RCUPOOL_WARM_MS, RCUPOOL_WARM_POOLS -------------------- */

void rcupl_env_default_options(rcupool_options_t *opts) {
  char buf[16];
  const char *s = rcupl_env_text(RCUPOOL_ENV_IDLE, buf, sizeof buf);
  if (s != NULL) {
    if (strcasecmp(s, "spin") == 0 || strcasecmp(s, "yield") == 0) {
      opts->idle =
          strcasecmp(s, "spin") == 0 ? RCUPOOL_IDLE_SPIN : RCUPOOL_IDLE_YIELD;
      rcupl_log(RCUPOOL_LOG_INFO, "default: idle policy %s (%s)",
                opts->idle == RCUPOOL_IDLE_SPIN ? "spin" : "yield",
                RCUPOOL_ENV_IDLE);
    } else {
      rcupl_log(RCUPOOL_LOG_WARN, "%s=\"%.32s\" is not spin or yield; ignored",
                RCUPOOL_ENV_IDLE, getenv(RCUPOOL_ENV_IDLE));
    }
  }
  unsigned long v;
  if (rcupl_env_uint(RCUPOOL_ENV_WARM_MS, 1, RCUPOOL_WARM_MS_MAX, &v) == 1) {
    opts->warm_ms = (uint32_t)v;
    rcupl_log(RCUPOOL_LOG_INFO, "default: warm widths linger %lu ms (%s)", v,
              RCUPOOL_ENV_WARM_MS);
  }
  if (rcupl_env_uint(RCUPOOL_ENV_WARM_POOLS, 0, RCUPOOL_WARM_NONE - 1u, &v) ==
      1) {
    /* 0 here is "none": the options' 0 is the library's default. */
    opts->warm_pools = v == 0 ? RCUPOOL_WARM_NONE : (uint32_t)v;
    rcupl_log(RCUPOOL_LOG_INFO, "default: at most %lu warm %s (%s)", v,
              rcupl_plural(v, "width", "widths"), RCUPOOL_ENV_WARM_POOLS);
  }
}
