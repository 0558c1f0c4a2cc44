/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcupool/placement.h: core classes and where a pool's workers run.
 *
 * Part of <rcupool/rcupool.h>, which includes it: include that. The calls
 * that take a manager or a pin are in manager.h (rcupool_options_t's
 * placement, rcupool_get_placement) and pin.h (rcupool_pin_placed).
 * docs/placement.md has the whole story and the measurements.
 */
#ifndef RCUPOOL_PLACEMENT_H
#define RCUPOOL_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rcupool/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Environment variables: RCUPOOL_CPU_CLASSES overrides the detected
 * classes ("0-3:efficiency,4-7:performance"; read by each computation of
 * the classes: the first call that needs them, and each time the CPUs
 * present change, rcupool_cpu_class()); RCUPOOL_PLACEMENT is the default manager's
 * placement (rcupool_placement_parse() syntax); RCUPOOL_FOLLOW=0 stops the
 * default manager following the CPU limits (follow.h, rcupool_follow_t).
 * A malformed value is logged at warning level and ignored. */
#define RCUPOOL_ENV_CPU_CLASSES "RCUPOOL_CPU_CLASSES"
#define RCUPOOL_ENV_PLACEMENT "RCUPOOL_PLACEMENT"
#define RCUPOOL_ENV_FOLLOW "RCUPOOL_FOLLOW"

/* CPUs numbered at or above this are outside every class and placement. */
#define RCUPOOL_PLACEMENT_MAX_CPUS 1024

/* A CPU's class. Where every CPU is alike there is one class,
 * performance. */
typedef enum rcupool_cpu_class {
  RCUPOOL_CLASS_NONE = 0, /* no such CPU (not present) */
  RCUPOOL_CLASS_PERFORMANCE = 1,
  RCUPOOL_CLASS_EFFICIENCY = 2,
} rcupool_cpu_class_t;

/* Where a pool's worker threads may run. */
typedef enum rcupool_place {
  /* The OS decides (no binding): the library's default, see
   * docs/placement.md for the evidence. */
  RCUPOOL_PLACE_NONE = 0,
  /* The performance CPUs of the affinity mask; where the mask holds none,
   * every CPU of the mask (logged at info level). */
  RCUPOOL_PLACE_PERFORMANCE = 1,
  /* The efficiency CPUs of the mask; where the mask holds none (a machine
   * of one class, say), every CPU of the mask (logged at info level). */
  RCUPOOL_PLACE_EFFICIENCY = 2,
  /* The CPUs of `cpus` that are in the mask and online; CPUs outside them
   * are dropped (logged at warning level), and a set with none left is
   * -EINVAL from the call that starts the pool (of 2 threads or more: a
   * 1-thread pool has no worker to place, and is never refused). */
  RCUPOOL_PLACE_CPUS = 3,
} rcupool_place_t;

/*
 * A placement: a policy, strict or not, and the CPUs of RCUPOOL_PLACE_CPUS.
 * Zero-initialised it is RCUPOOL_PLACE_NONE. Not strict: every worker may
 * run on any CPU of the placement's set. Strict: one CPU a worker, the
 * k-th worker on the set's k-th CPU (round robin when there are more
 * workers than CPUs).
 *
 * The mask is the affinity mask of the thread that starts the pool, when
 * it starts. Workers are bound once, when the pool starts; the thread that
 * calls a parallel function is never bound by rcupool: it runs its share
 * of the work where it is (docs/placement.md, "The calling thread").
 *
 * A pool's identity is (width, placement): two placements are the same
 * when policy and strict are equal and, for RCUPOOL_PLACE_CPUS, the CPU
 * sets are equal (cpus is ignored for the other policies, strict for
 * RCUPOOL_PLACE_NONE, which binds nothing).
 */
typedef struct rcupool_placement {
  rcupool_place_t policy;
  bool strict;
  /* RCUPOOL_PLACE_CPUS: bit (cpu % 64) of cpus[cpu / 64]. */
  uint64_t cpus[RCUPOOL_PLACEMENT_MAX_CPUS / 64];
} rcupool_placement_t;

/*
 * Parses a placement from text: "none", "performance", "efficiency", or a
 * CPU list ("0-3,6"), each optionally followed by ":strict"
 * ("performance:strict", "0-1:strict"). Blanks around the text are
 * ignored and the names compare without case ("Performance:STRICT"), as
 * for every environment variable (docs/environment.md). This is
 * RCUPOOL_PLACEMENT's syntax, and Python's.
 * Returns: 0 and fills *out, or -EINVAL when text or out is NULL or the
 *   text is not a placement (*out unchanged; nothing logged).
 * Threads: any.
 * Blocks: no.
 * Lifetime: no pointers kept.
 */
RCUPOOL_API int rcupool_placement_parse(const char *text,
                                        rcupool_placement_t *out);

/*
 * Writes a placement as rcupool_placement_parse() reads it.
 * Returns: the length of the whole text (as snprintf: a result >= size
 *   means it was cut short; buf is NUL-terminated when size > 0), or
 *   -EINVAL when pl is NULL or not a valid placement, or buf is NULL with
 *   size > 0.
 * Threads: any.
 * Blocks: no.
 * Lifetime: no pointers kept.
 */
RCUPOOL_API int rcupool_placement_format(const rcupool_placement_t *pl,
                                         char *buf, size_t size);

/*
 * The class of one CPU, as detected (cpuinfo; sysfs cpu_capacity,
 * acpi_cppc/highest_perf, cpufreq/cpuinfo_max_freq) or as
 * RCUPOOL_CPU_CLASSES says. The classes are computed at the first call
 * that needs them, and again when a look at the CPUs online (the default
 * count's: rcupool_create() or rcupool_reset() with 0, a follow check,
 * rcupool_describe()) finds the CPUs present changed, as when a CPU is
 * hot-added; each computation is logged at info level. A CPU added since
 * the last such look has no class yet.
 * Returns: the class; RCUPOOL_CLASS_NONE for a CPU that is not present.
 * Threads: any.
 * Blocks: the first call of the process reads a few sysfs files.
 * Lifetime: no pointers kept.
 */
RCUPOOL_API rcupool_cpu_class_t rcupool_cpu_class(unsigned cpu);

/*
 * Describes what a pool would get in this process, now: the CPU classes
 * and where they came from, the calling thread's affinity mask, the CPUs
 * online, the cgroup CPU quota, the default size and its reason, and the
 * default manager's placement and follow setting (from the environment,
 * without creating the default manager). Several lines of text, each
 * "key: value". The rcupool_info tool (tools/rcupool_info.c) prints it.
 * Returns: the length of the whole text (as snprintf), or -EINVAL when buf
 *   is NULL with size > 0.
 * Threads: any.
 * Blocks: reads a few sysfs, procfs and cgroup files.
 * Lifetime: no pointers kept.
 */
RCUPOOL_API int rcupool_describe(char *buf, size_t size);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RCUPOOL_PLACEMENT_H */
