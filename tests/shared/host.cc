#include "tests/shared/host.h"

#include <dlfcn.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

extern char **environ;

namespace rcupool_host {

const char kLibrary[] = "lib/shared/librcupool.so.0";
const char kBindings[] = "tests/shared/libext_bindings.so";
const char kTraining[] = "tests/shared/libext_training.so";
const char kBindingsStatic[] = "tests/shared/libext_bindings_static.so";
const char kTrainingStatic[] = "tests/shared/libext_training_static.so";
const char kCheckTool[] = "tools/check_one_definer";
const char kPublicHeader[] = "include/rcupool/rcupool.h";
const char kInlineHeader[] = "include/rcupool/inline.h";

static const char kChildEnv[] = "RCUPOOL_HOST_TEST_CHILD";

size_t BaselineThreadCount() {
  std::thread([] {}).join();
  return OsThreadCount();
}

void Open(const char *path, Extension *out) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(h, nullptr) << "dlopen " << path << ": " << dlerror();
  auto get = reinterpret_cast<const ext_api_t *(*)(void)>(dlsym(h, "ext_api"));
  ASSERT_NE(get, nullptr) << "dlsym ext_api in " << path;
  out->handle = h;
  out->api = get();
}

bool IsLoaded(const char *path) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  if (h == nullptr) return false;
  dlclose(h);
  return true;
}

int RunCommand(const std::string &command, std::string *output) {
  output->clear();
  FILE *p = popen(command.c_str(), "r");
  if (p == nullptr) return -1;
  char buf[512];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) output->append(buf, n);
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

bool InChild() { return getenv(kChildEnv) != nullptr; }

ChildResult RunThisTestInChild(int timeout_s) {
  ChildResult r;
  const ::testing::TestInfo *t =
      ::testing::UnitTest::GetInstance()->current_test_info();
  std::string filter =
      std::string("--gtest_filter=") + t->test_suite_name() + "." + t->name();
  char exe[4096];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len <= 0) {
    ADD_FAILURE() << "readlink /proc/self/exe";
    return r;
  }
  exe[len] = '\0';
  // The child's environment: ours, marked as a child, without the files
  // through which the test runner watches this process (the parent's own),
  // and without the shard variables: under them a child would filter its
  // one test out as another shard's and pass having run nothing.
  std::vector<std::string> env_text;
  for (char **e = environ; *e != nullptr; e++) {
    std::string kv = *e;
    std::string key = kv.substr(0, kv.find('='));
    if (key == "TEST_PREMATURE_EXIT_FILE" || key == "XML_OUTPUT_FILE" ||
        key == "GTEST_OUTPUT" || key == "TEST_SHARD_STATUS_FILE" ||
        key == "GTEST_SHARD_INDEX" || key == "GTEST_TOTAL_SHARDS" ||
        key == "TEST_SHARD_INDEX" || key == "TEST_TOTAL_SHARDS" ||
        key == kChildEnv)
      continue;
    env_text.push_back(kv);
  }
  env_text.push_back(std::string(kChildEnv) + "=1");
  std::vector<char *> env;
  for (std::string &kv : env_text) env.push_back(&kv[0]);
  env.push_back(nullptr);
  char *argv[] = {exe, const_cast<char *>(filter.c_str()), nullptr};
  pid_t pid;
  int err = posix_spawn(&pid, exe, nullptr, nullptr, argv, env.data());
  if (err != 0) {
    ADD_FAILURE() << "posix_spawn: " << err;
    return r;
  }
  int st = 0;
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  for (;;) {
    pid_t w = waitpid(pid, &st, WNOHANG);
    if (w == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      r.hung = true;
      kill(pid, SIGKILL);
      waitpid(pid, &st, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  r.exited = WIFEXITED(st);
  r.status = r.exited ? WEXITSTATUS(st) : -1;
  r.signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
  return r;
}

}  // namespace rcupool_host
