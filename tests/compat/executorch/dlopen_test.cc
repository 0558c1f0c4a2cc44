// SPDX-License-Identifier: LGPL-2.1-or-later
// Two extensions that both use the ExecuTorch stand-in, dlopen'ed with
// RTLD_LOCAL into a host that links neither rcupool nor the stand-in: one
// object defines get_threadpool() (librcupool_executorch.so.0), one defines
// rcupool_default() (librcupool.so.0); both extensions see one ThreadPool,
// one pool and one per-thread guard context, and a reset through one is
// seen by the other.
#include <dlfcn.h>
#include <unistd.h>

#include <string>

#include <gtest/gtest.h>

#include "tests/compat/executorch/extension.h"
#include "tests/shared/host.h"

namespace {

using rcupool_host::BaselineThreadCount;
using rcupool_host::IsLoaded;
using rcupool_host::RunCommand;
using rcupool_host::WaitForOsThreadCount;

const char kStandIn[] = "lib/compat/executorch/librcupool_executorch.so.0";
const char kBindings[] = "tests/compat/executorch/libet_ext_bindings.so";
const char kTraining[] = "tests/compat/executorch/libet_ext_training.so";
// executorch::extension::threadpool::get_threadpool()
const char kGetThreadpool[] = "_ZN10executorch9extension10threadpool14get_threadpoolEv";
constexpr int kChildTimeoutS = 120;

const et_ext_api_t *Open(const char *path) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  EXPECT_NE(h, nullptr) << "dlopen " << path << ": " << dlerror();
  if (h == nullptr) return nullptr;
  auto get =
      reinterpret_cast<const et_ext_api_t *(*)(void)>(dlsym(h, "et_ext_api"));
  EXPECT_NE(get, nullptr) << "dlsym et_ext_api in " << path;
  return get != nullptr ? get() : nullptr;
}

// The definers of `symbol` among the given paths, as check_one_definer
// prints them; its exit status in *rc.
std::string Definers(const std::string &symbol, const std::string &paths,
                     int *rc) {
  std::string out;
  *rc = RunCommand(std::string(rcupool_host::kCheckTool) + " --symbol " +
                       symbol + " " + paths + " 2>&1",
                   &out);
  return out;
}

size_t DefinerLines(const std::string &out) {
  size_t lines = 0;
  for (size_t at = out.find("definer: "); at != std::string::npos;
       at = out.find("definer: ", at + 1))
    lines++;
  return lines;
}

TEST(StandInDlopen, OneGetThreadpoolDefinerAndOneRcupoolDefiner) {
  char self[4096];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  ASSERT_GT(len, 0);
  self[len] = '\0';
  const std::string paths = std::string("lib/compat/executorch lib/shared ") +
                            kBindings + " " + kTraining + " " + self;
  int rc = -1;
  std::string out = Definers(kGetThreadpool, paths, &rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(DefinerLines(out), 1u) << out;
  EXPECT_NE(out.find(std::string("definer: ") + kStandIn + "\n"),
            std::string::npos)
      << out;
  out = Definers("rcupool_default", paths, &rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(DefinerLines(out), 1u) << out;
  EXPECT_NE(out.find("definer: lib/shared/librcupool.so.0\n"),
            std::string::npos)
      << out;
  // The extensions only reference get_threadpool().
  std::string nm;
  ASSERT_EQ(RunCommand(std::string("nm -D ") + kBindings, &nm), 0);
  EXPECT_NE(nm.find(std::string("U ") + kGetThreadpool), std::string::npos)
      << nm;
}

TEST(StandInDlopen, TwoExtensionsSeeOneThreadPoolOnePoolAndEachOthersReset) {
  RCUPOOL_RUN_IN_CHILD(kChildTimeoutS);
  const size_t base = BaselineThreadCount();
  const et_ext_api_t *a = Open(kBindings);
  const et_ext_api_t *b = Open(kTraining);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(IsLoaded(kStandIn));
  ASSERT_NE(a->threadpool(), nullptr);
  EXPECT_EQ(a->threadpool(), b->threadpool());
  EXPECT_EQ(a->pthreadpool(), b->pthreadpool());

  // A reset through one is seen by the other.
  ASSERT_EQ(a->reset(3), 1);
  EXPECT_EQ(b->thread_count(), 3u);
  EXPECT_EQ(b->pthreadpool(), a->pthreadpool());
  EXPECT_EQ(b->sum(1000), 0);
  ASSERT_EQ(b->reset(4), 1);
  EXPECT_EQ(a->thread_count(), 4u);
  EXPECT_EQ(a->pthreadpool(), b->pthreadpool());
  EXPECT_EQ(a->sum(1000), 0);

  // One per-thread guard context: a guard set through one extension holds
  // for calls through the other on the same thread.
  a->set_no_pool(1);
  EXPECT_EQ(b->no_pool(), 1);
  EXPECT_EQ(b->pthreadpool(), nullptr);
  a->set_no_pool(0);
  EXPECT_NE(b->pthreadpool(), nullptr);

  // One pool: after a destroy, the 4-thread pool's 3 workers plus the
  // library's one reclaim thread.
  b->destroy();
  EXPECT_EQ(WaitForOsThreadCount(base + 3 + 1), base + 3 + 1);
}

}  // namespace
