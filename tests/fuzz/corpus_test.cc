// SPDX-License-Identifier: LGPL-2.1-or-later
// Replays the harness of api_fuzz.cc over the seed corpus in the repository
// and over inputs from a fixed-seed generator, under whatever compiler and
// sanitizer the test is built with (plain, asan, tsan). The harness aborts
// on the first difference from its model.
#include <dirent.h>
#include <stdio.h>

#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/fuzz/api_fuzz.h"

namespace {

std::vector<std::string> CorpusFiles() {
  std::vector<std::string> files;
  const char *dir = "tests/fuzz/corpus";
  if (DIR *d = opendir(dir)) {
    while (struct dirent *e = readdir(d))
      if (e->d_name[0] != '.') files.push_back(std::string(dir) + "/" + e->d_name);
    closedir(d);
  }
  return files;
}

}  // namespace

TEST(RcupoolFuzzCorpus, EverySeedInputMatchesTheModel) {
  std::vector<std::string> files = CorpusFiles();
  ASSERT_GE(files.size(), 10u) << "seed corpus not found in runfiles";
  for (const std::string &f : files) {
    std::ifstream in(f, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
    SCOPED_TRACE(f);
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
  }
  ApiFuzzDestroyCarriedManager();
}

TEST(RcupoolFuzzCorpus, GeneratedInputsMatchTheModel) {
  std::mt19937 rng(20240229);
  for (int i = 0; i < 60; i++) {
    std::vector<uint8_t> bytes(2 * (1 + rng() % 40));
    for (auto &b : bytes) b = static_cast<uint8_t>(rng());
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
  }
  ApiFuzzDestroyCarriedManager();
}
