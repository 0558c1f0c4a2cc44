/* SPDX-License-Identifier: LGPL-2.1-or-later */
// A flag of the benchmark program itself (not Google Benchmark's), taken out
// of argv before benchmark::Initialize() sees it (churn_bench's
// --timeline_out, python_bench's --python_path).
//
//   const char *out = rcupool_bench::TakeFlag(&argc, argv, "--timeline_out=");
#ifndef RCUPOOL_BENCHMARKS_OWN_FLAG_H
#define RCUPOOL_BENCHMARKS_OWN_FLAG_H

#include <cstring>

namespace rcupool_bench {

// Removes every "<prefix>VALUE" argument from argv (argv[*argc] stays
// nullptr) and returns the last VALUE, a pointer into argv's storage, or
// nullptr when there was none.
inline const char *TakeFlag(int *argc, char **argv, const char *prefix) {
  const size_t len = std::strlen(prefix);
  const char *value = nullptr;
  int kept = 0;
  for (int i = 0; i < *argc; i++) {
    if (std::strncmp(argv[i], prefix, len) == 0)
      value = argv[i] + len;
    else
      argv[kept++] = argv[i];
  }
  argv[kept] = nullptr;
  *argc = kept;
  return value;
}

}  // namespace rcupool_bench

#endif  // RCUPOOL_BENCHMARKS_OWN_FLAG_H
