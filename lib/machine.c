/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The machine seam: every file the library reads about the machine is
 * read as <root> + its real absolute path, where <root> is "" (the real
 * files) unless a test installed a fake tree (rcupl_machine_set_root,
 * testing.h). That covers the sysfs CPU tree (present, online, each
 * cpuN's topology, capacity, cpufreq, acpi_cppc and MIDR), the hybrid
 * lists /sys/devices/cpu_atom/cpus and cpu_core/cpus, /proc/self/cgroup
 * and the cgroup tree (lib/limits.c), and, under a fake root only, the
 * affinity mask (the Cpus_allowed_list line of <root>/proc/self/status).
 * cpuinfo reads the real machine: callers ask it only with the real root.
 *
 * Invariants kept here:
 *   MACHINE-1. The roots are written and copied under machine_lock, a
 *       leaf lock held for a copy only (never across a file read), so a
 *       reader always sees a whole root and fork() finds the lock free in
 *       the child (the fork handlers take it, FORK-2).
 *   MACHINE-2. Nothing read is trusted: each read is bounded by its
 *       buffer, lists are parsed whole or refused (CPUSET-1).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cpuset.h"
#include "fault.h"
#include "lock.h"
#include "machine.h"

static pthread_mutex_t machine_lock = PTHREAD_MUTEX_INITIALIZER;
static char machine_root[PATH_MAX]; /* "" : the real files */
static char cgroup_root[PATH_MAX];  /* "" : the machine root */

void rcupl_machine_set_root_only(const char *root) {
  rcupl_mutex_lock(&machine_lock);
  snprintf(machine_root, sizeof machine_root, "%s", root != NULL ? root : "");
  rcupl_mutex_unlock(&machine_lock);
}

void rcupl_machine_set_cgroup_root(const char *root) {
  rcupl_mutex_lock(&machine_lock);
  snprintf(cgroup_root, sizeof cgroup_root, "%s", root != NULL ? root : "");
  rcupl_mutex_unlock(&machine_lock);
}

void rcupl_machine_root(char *buf, size_t len) {
  rcupl_mutex_lock(&machine_lock);
  rcupl_hold_point(RCUPL_HOLD_MACHINE_LOCK);
  snprintf(buf, len, "%s", machine_root);
  rcupl_mutex_unlock(&machine_lock);
}

void rcupl_machine_cgroup_root(char *buf, size_t len) {
  rcupl_mutex_lock(&machine_lock);
  rcupl_hold_point(RCUPL_HOLD_MACHINE_LOCK);
  snprintf(buf, len, "%s", cgroup_root[0] != '\0' ? cgroup_root : machine_root);
  rcupl_mutex_unlock(&machine_lock);
}

bool rcupl_machine_read_file(const char *path, char *buf, size_t len) {
  if (len == 0) return false;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  size_t have = 0;
  while (have + 1 < len) {
    ssize_t got = read(fd, buf + have, len - 1 - have);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    have += (size_t)got;
  }
  close(fd);
  buf[have] = '\0';
  return true;
}

bool rcupl_machine_read(const char *root, const char *path, char *buf,
                        size_t len) {
  char full[RCUPL_MACHINE_PATH];
  if (len == 0 ||
      snprintf(full, sizeof full, "%s%s", root, path) >= (int)sizeof full ||
      !rcupl_machine_read_file(full, buf, len))
    return false;
  size_t have = strlen(buf);
  while (have > 0 && (buf[have - 1] == '\n' || buf[have - 1] == ' ' ||
                      buf[have - 1] == '\t'))
    buf[--have] = '\0';
  return have > 0;
}

bool rcupl_machine_cpus(const char *root, const char *path,
                        struct rcupl_cpuset *out) {
  char text[4096];
  memset(out, 0, sizeof *out);
  return rcupl_machine_read(root, path, text, sizeof text) &&
         rcupl_cpuset_parse(text, strlen(text), out);
}

bool rcupl_machine_mask(const char *root, struct rcupl_cpuset *out) {
  char status[16384];
  if (root[0] == '\0' ||
      !rcupl_machine_read(root, "/proc/self/status", status, sizeof status))
    return rcupl_cpuset_affinity(out);
  static const char key[] = "Cpus_allowed_list:";
  memset(out, 0, sizeof *out);
  for (char *line = status; line != NULL && *line != '\0';) {
    char *next = strchr(line, '\n');
    if (next != NULL) *next++ = '\0';
    if (strncmp(line, key, sizeof key - 1) == 0) {
      char *s = line + sizeof key - 1;
      while (*s == ' ' || *s == '\t') s++;
      return rcupl_cpuset_parse(s, strlen(s), out);
    }
    line = next;
  }
  return false; /* a status file without the line: unreadable */
}

bool rcupl_cpuset_online(struct rcupl_cpuset *out) {
  char root[PATH_MAX];
  rcupl_machine_root(root, sizeof root);
  return rcupl_machine_cpus(root, "/sys/devices/system/cpu/online", out);
}

void rcupl_machine_fork_prepare(void) { rcupl_mutex_lock(&machine_lock); }
void rcupl_machine_fork_parent(void) { rcupl_mutex_unlock(&machine_lock); }
void rcupl_machine_fork_child(void) { rcupl_mutex_unlock(&machine_lock); }
