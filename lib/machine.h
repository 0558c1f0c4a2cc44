/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/machine.c's API, the one root every file about the machine
 * is read under (the sysfs CPU tree, the cgroup files, the mask of a fake
 * machine), and the CPU sets read through it.
 */
#ifndef RCUPOOL_LIB_MACHINE_H
#define RCUPOOL_LIB_MACHINE_H

#include <stdbool.h>
#include <stddef.h>

#include "cpuset.h"

/* Room for a root (PATH_MAX) and the longest path the library appends. */
#define RCUPL_MACHINE_PATH 4200

/* Installs the machine root ("" or NULL: the real files); the cgroup files
 * follow it unless rcupl_machine_set_cgroup_root() named their own. */
void rcupl_machine_set_root_only(const char *root);
/* Installs a root for the cgroup files alone (NULL or "": the machine's). */
void rcupl_machine_set_cgroup_root(const char *root);

/* Copies the machine root ("" : the real files) into buf[len]; the cgroup
 * variant the root the cgroup files are read under. Take a lock briefly
 * (a leaf, MACHINE-1). */
void rcupl_machine_root(char *buf, size_t len);
void rcupl_machine_cgroup_root(char *buf, size_t len);

/* Reads up to len - 1 bytes of the file at path (as given: the caller put
 * the root in front) into buf, NUL-terminated, as they are (an empty file
 * gives ""). False when it cannot be opened. */
bool rcupl_machine_read_file(const char *path, char *buf, size_t len);
/* Reads root + path (path absolute, e.g. "/sys/devices/cpu_atom/cpus")
 * into buf[len], NUL-terminated, trailing blanks and newlines cut. False
 * when it cannot be opened or is empty. */
bool rcupl_machine_read(const char *root, const char *path, char *buf,
                        size_t len);
/* A CPU list file under root (present, online, core_cpus_list...); false
 * when missing or malformed. */
bool rcupl_machine_cpus(const char *root, const char *path,
                        struct rcupl_cpuset *out);
/* The affinity mask as the machine under root shows it: with the real
 * root, the calling thread's (sched_getaffinity); under a fake root, the
 * Cpus_allowed_list line of root/proc/self/status, or the real mask where
 * the fake tree has no such file. False if unreadable. */
bool rcupl_machine_mask(const char *root, struct rcupl_cpuset *out);

/* The CPUs online (/sys/devices/system/cpu/online under the machine root);
 * false if unreadable. */
bool rcupl_cpuset_online(struct rcupl_cpuset *out);

/* fork (lib/fork.c, FORK-2): prepare takes machine_lock (a leaf lock, held
 * for a copy of a root), parent and child release it. */
void rcupl_machine_fork_prepare(void);
void rcupl_machine_fork_parent(void);
void rcupl_machine_fork_child(void);

#endif /* RCUPOOL_LIB_MACHINE_H */
