// SPDX-License-Identifier: LGPL-2.1-or-later
#include "tests/shared/host.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <string>
#include <thread>

#include <gtest/gtest.h>

namespace rcupool_host {

const char kLibrary[] = "lib/shared/librcupool.so.0";
const char kBindings[] = "tests/shared/libext_bindings.so";
const char kTraining[] = "tests/shared/libext_training.so";
const char kBindingsStatic[] = "tests/shared/libext_bindings_static.so";
const char kTrainingStatic[] = "tests/shared/libext_training_static.so";
const char kCheckTool[] = "tools/check_one_definer";
const char kPublicHeader[] = "include/rcupool/rcupool.h";
const char kInlineHeader[] = "include/rcupool/inline.h";

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

}  // namespace rcupool_host
