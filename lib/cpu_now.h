/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private, header only: the CPU the calling thread runs on, for the pin
 * count's shards (lib/pool.h). A hint, not a claim: the thread may move to
 * another CPU right after the read, so whatever is indexed by it is
 * written with atomic operations all the same; it only has to be right
 * most of the time for two threads on two CPUs to write two cache lines.
 *
 * Where glibc registered restartable sequences (2.35 and later, unless
 * the glibc.pthread.rseq tunable is 0), the kernel keeps the current CPU
 * in the thread's rseq area: one load from thread-local memory, no call.
 * Otherwise (an older libc, a tunable, an emulator that does not
 * implement rseq) sched_getcpu(), and CPU 0 if that fails. Any thread,
 * never blocks.
 */
#ifndef RCUPOOL_LIB_CPU_NOW_H
#define RCUPOOL_LIB_CPU_NOW_H

#if defined(__has_include)
#if __has_include(<sys/rseq.h>)
#include <sys/rseq.h>
#if defined(RSEQ_SIG)
#define RCUPL_HAVE_RSEQ_AREA 1
#endif
#endif
#endif

/* sched_getcpu(), or 0 if it fails (lib/cpu_now.c, out of line: it
 * needs _GNU_SOURCE, which a header cannot define for its includer). */
unsigned rcupl_cpu_now_slow(void);

static inline unsigned rcupl_cpu_now(void) {
#if defined(RCUPL_HAVE_RSEQ_AREA)
  if (__builtin_expect(__rseq_size != 0, 1)) {
    const struct rseq *area =
        (const struct rseq *)((char *)__builtin_thread_pointer() +
                              __rseq_offset);
    /* Negative (unregistered, registration failed) reads as huge. */
    unsigned cpu = __atomic_load_n(&area->cpu_id, __ATOMIC_RELAXED);
    if (__builtin_expect((int)cpu >= 0, 1)) return cpu;
  }
#endif
  return rcupl_cpu_now_slow();
}

#endif /* RCUPOOL_LIB_CPU_NOW_H */
