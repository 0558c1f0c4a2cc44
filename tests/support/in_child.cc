// SPDX-License-Identifier: LGPL-2.1-or-later
#include "tests/support/in_child.h"

#include <stdlib.h>
#include <unistd.h>

#include <string>
#include <vector>

extern char **environ;

namespace rcupool_test {

static const char kChildEnv[] = "RCUPOOL_TEST_CHILD";

bool InChild() { return getenv(kChildEnv) != nullptr; }

child_result_t RerunThisTestInChild(int timeout_s) {
  child_result_t r{};
  r.signaled = 1;  // what a child that could not start reads as
  const ::testing::TestInfo *t =
      ::testing::UnitTest::GetInstance()->current_test_info();
  std::string filter =
      std::string("--gtest_filter=") + t->test_suite_name() + "." + t->name();
  // This binary's path (not /proc/self/exe itself, which valgrind refuses).
  char exe[4096];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len <= 0) {
    ADD_FAILURE() << "readlink /proc/self/exe";
    return r;
  }
  exe[len] = '\0';
  // The child's environment: ours, marked as a child, without the files
  // through which the test runner watches this process (the parent's own;
  // a child may also run as another user), and without the shard
  // variables: under them a child would filter its one test out as another
  // shard's and pass having run nothing.
  static const char *const kDrop[] = {
      "TEST_PREMATURE_EXIT_FILE", "XML_OUTPUT_FILE",  "GTEST_OUTPUT",
      "TEST_SHARD_STATUS_FILE",   "GTEST_SHARD_STATUS_FILE",
      "GTEST_SHARD_INDEX",        "GTEST_TOTAL_SHARDS",
      "TEST_SHARD_INDEX",         "TEST_TOTAL_SHARDS", kChildEnv};
  std::vector<std::string> env_text;
  for (char **e = environ; *e != nullptr; e++) {
    std::string kv = *e;
    std::string key = kv.substr(0, kv.find('='));
    bool keep = true;
    for (const char *d : kDrop)
      if (key == d) keep = false;
    if (keep) env_text.push_back(kv);
  }
  env_text.push_back(std::string(kChildEnv) + "=1");
  std::vector<char *> env;
  for (std::string &kv : env_text) env.push_back(&kv[0]);
  env.push_back(nullptr);
  // A foreign-architecture build run under qemu-user cannot exec itself:
  // RCUPOOL_TEST_EMULATOR (the emulator's absolute path) runs the copy
  // through it (tests/aarch64/run.sh; QEMU_LD_PREFIX passes on in env).
  char *emulator = getenv("RCUPOOL_TEST_EMULATOR");
  char *plain[] = {exe, &filter[0], nullptr};
  char *emulated[] = {emulator, exe, &filter[0], nullptr};
  char **argv = emulator != nullptr && *emulator != '\0' ? emulated : plain;
  int err = child_run_program(argv, env.data(), 0, timeout_s, &r);
  if (err != 0) {
    ADD_FAILURE() << "posix_spawn " << exe << ": " << strerror(-err);
    r.signaled = 1;
  }
  return r;
}

}  // namespace rcupool_test
