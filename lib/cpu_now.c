/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The CPU of the calling thread where the rseq area does not say it
 * (lib/cpu_now.h).
 *
 * Invariants kept here:
 *   CPU_NOW-1. rcupl_cpu_now_slow() never fails and never blocks: a
 *       sched_getcpu() that fails (no getcpu in an emulator) reads as CPU 0,
 *       which only puts every such thread's pins on one shard.
 */
#define _GNU_SOURCE
#include <sched.h>

#include "cpu_now.h"

unsigned rcupl_cpu_now_slow(void) {
  int cpu = sched_getcpu();
  return cpu < 0 ? 0u : (unsigned)cpu;
}
