/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Helpers of the placement and follow tests: the workers of rcupool pools
// as /proc/self/task shows them, their Cpus_allowed_list, and the affinity
// of every thread of the process (what `taskset -a -p` does).
#ifndef RCUPOOL_TESTS_PLACEMENT_SUPPORT_H
#define RCUPOOL_TESTS_PLACEMENT_SUPPORT_H

#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <string>

namespace rcupool_test {

// The thread ids of /proc/self/task whose name starts with `prefix`.
inline std::set<pid_t> TasksNamed(const char *prefix) {
  std::set<pid_t> out;
  DIR *d = opendir("/proc/self/task");
  if (d == nullptr) return out;
  while (struct dirent *e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream comm(std::string("/proc/self/task/") + e->d_name + "/comm");
    std::string name;
    std::getline(comm, name);
    if (name.compare(0, strlen(prefix), prefix) == 0)
      out.insert((pid_t)atoi(e->d_name));
  }
  closedir(d);
  return out;
}

// The workers of rcupool's pools (named "rcupool-w<i>/<n>", lib/names.c).
inline std::set<pid_t> WorkerTids() { return TasksNamed("rcupool-w"); }

// The tids in `now` that are not in `before`.
inline std::set<pid_t> NewTids(const std::set<pid_t> &before,
                               const std::set<pid_t> &now) {
  std::set<pid_t> out;
  for (pid_t t : now)
    if (before.count(t) == 0) out.insert(t);
  return out;
}

// Cpus_allowed_list of one thread, from /proc/self/task/<tid>/status
// ("" when unreadable).
inline std::string CpusAllowedList(pid_t tid) {
  std::ifstream st("/proc/self/task/" + std::to_string(tid) + "/status");
  std::string line;
  while (std::getline(st, line))
    if (line.compare(0, 18, "Cpus_allowed_list:") == 0) {
      size_t i = 18;
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) i++;
      return line.substr(i);
    }
  return "";
}

// Sets the affinity of every thread of the process, as `taskset -a -p`
// does (a thread that starts meanwhile inherits its creator's). Returns
// false if a thread could not be set.
inline bool SetProcessAffinity(const cpu_set_t &set) {
  bool ok = true;
  for (int round = 0; round < 2; round++) { /* catch threads born meanwhile */
    DIR *d = opendir("/proc/self/task");
    if (d == nullptr) return false;
    while (struct dirent *e = readdir(d)) {
      if (e->d_name[0] == '.') continue;
      // ESRCH: the thread ended since the listing (a freed pool's worker).
      if (sched_setaffinity((pid_t)atoi(e->d_name), sizeof set, &set) != 0 &&
          errno != ESRCH)
        ok = false;
    }
    closedir(d);
  }
  return ok;
}

inline cpu_set_t CpuSetOf(std::initializer_list<int> cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) CPU_SET(c, &set);
  return set;
}

// The calling thread's mask holds exactly CPUs 0 and 1.
inline bool MaskIsCpus01() {
  cpu_set_t set;
  return sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) == 2 &&
         CPU_ISSET(0, &set) && CPU_ISSET(1, &set);
}

}  // namespace rcupool_test

#endif  // RCUPOOL_TESTS_PLACEMENT_SUPPORT_H
