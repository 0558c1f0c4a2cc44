// SPDX-License-Identifier: LGPL-2.1-or-later
// What the shared library's ELF headers promise: a versioned SONAME, only
// the public rcupool_* functions in its dynamic symbol table, never
// unloaded; and extensions that find it through an $ORIGIN RUNPATH. The
// same for the XNNPACK backend's shared library, which needs the core's and
// defines none of its functions.
//
// Every export of the three libraries (with the ExecuTorch stand-in's)
// carries its version node (lib/shared/*.map, threadpool.map).
//
// RCUPOOL_ELF_LIBRARY, RCUPOOL_ELF_XNNPACK_LIBRARY and
// RCUPOOL_ELF_EXECUTORCH_LIBRARY, when set, name other builds of the
// libraries to check (tests/cmake runs this program on the CMake-built
// ones).
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <rcupool/rcupool.h>

#include "tests/shared/host.h"

namespace rcupool_host {
namespace {

const char kXnnpackLibrary[] = "lib/shared/librcupool_xnnpack.so.0";
const char kXnnpackHeader[] = "include/rcupool/xnnpack.h";
const char kExecutorchLibrary[] =
    "lib/compat/executorch/librcupool_executorch.so.0";

std::string FromEnv(const char *name, const char *fallback) {
  const char *v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : fallback;
}
std::string Library() { return FromEnv("RCUPOOL_ELF_LIBRARY", kLibrary); }
std::string XnnpackLibrary() {
  return FromEnv("RCUPOOL_ELF_XNNPACK_LIBRARY", kXnnpackLibrary);
}
std::string ExecutorchLibrary() {
  return FromEnv("RCUPOOL_ELF_EXECUTORCH_LIBRARY", kExecutorchLibrary);
}

std::string Tool(const std::string &command) {
  std::string out;
  EXPECT_EQ(RunCommand(command, &out), 0) << command;
  return out;
}

// Names of the dynamic symbols `file` defines and exports: the lines of
// nm -D --defined-only whose type letter is upper case (global or weak).
// A lower-case letter is a LOCAL entry that no other object can bind to;
// the memb flavour's build leaves one (a hidden TLS variable). An "A"
// (absolute) entry is a version node's own name, not an export.
// With keep_version, names keep nm's "@@VERSION" (or "@VERSION") suffix.
std::set<std::string> DefinedDynamicSymbols(const std::string &file,
                                            bool keep_version = false) {
  std::istringstream in(Tool(std::string("nm -D --defined-only ") + file));
  std::set<std::string> names;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string value, type, name;
    if (!(fields >> value >> type >> name)) continue;
    if (type.size() != 1 ||
        !std::isupper(static_cast<unsigned char>(type[0])) || type == "A")
      continue;
    names.insert(keep_version ? name : name.substr(0, name.find('@')));
  }
  return names;
}

// Every function the given public headers declare with RCUPOOL_API; with
// follow, also those of the rcupool headers they include (rcupool.h
// includes one per concept).
std::set<std::string> ApiOf(std::initializer_list<const char *> headers,
                            bool follow = false) {
  std::set<std::string> names;
  std::vector<std::string> todo(headers.begin(), headers.end());
  std::set<std::string> seen;
  while (!todo.empty()) {
    std::string header = todo.back();
    todo.pop_back();
    if (!seen.insert(header).second) continue;
    std::ifstream in(header);
    EXPECT_TRUE(in.good()) << "cannot read " << header;
    std::stringstream text;
    text << in.rdbuf();
    std::string s = text.str();
    std::regex decl(R"(RCUPOOL_API\s+[^;(]*?\b(rcupool_\w+)\s*\()");
    for (std::sregex_iterator it(s.begin(), s.end(), decl), end; it != end;
         ++it)
      names.insert((*it)[1]);
    if (!follow) continue;
    std::regex include(R"(#include <(rcupool/\w+\.h)>)");
    for (std::sregex_iterator it(s.begin(), s.end(), include), end; it != end;
         ++it)
      todo.push_back("include/" + (*it)[1].str());
  }
  return names;
}

// Every function the public headers of librcupool declare with RCUPOOL_API.
std::set<std::string> PublicApi() {
  return ApiOf({kPublicHeader, kInlineHeader}, true);
}

TEST(RcupoolSharedLibraryElf, SonameIsLibrcupoolDotSoDotMajor) {
  std::string d = Tool("readelf -d " + Library());
  std::string want = "Library soname: [librcupool.so." +
                     std::to_string(RCUPOOL_VERSION_MAJOR) + "]";
  EXPECT_NE(d.find("(SONAME)"), std::string::npos) << d;
  EXPECT_NE(d.find(want), std::string::npos) << d;
}

TEST(RcupoolSharedLibraryElf, DefinedDynamicSymbolsAreExactlyThePublicApi) {
  std::set<std::string> api = PublicApi();
  ASSERT_GE(api.size(), 20u) << "the header parse found too few functions";
  ASSERT_TRUE(api.count("rcupool_default"));
  std::set<std::string> defined = DefinedDynamicSymbols(Library());
  for (const std::string &name : defined)
    EXPECT_EQ(name.rfind("rcupool_", 0), 0u) << "exported: " << name;
  EXPECT_EQ(defined, api);
}

// The exports of `file` whose default version is not `node`, and how many
// exports there are in all.
std::vector<std::string> NotOfVersion(const std::string &file,
                                      const std::string &node, size_t *all) {
  std::vector<std::string> bad;
  std::set<std::string> defined = DefinedDynamicSymbols(file, true);
  *all = defined.size();
  const std::string suffix = "@@" + node;
  for (const std::string &name : defined)
    if (name.size() <= suffix.size() ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
      bad.push_back(name);
  return bad;
}

TEST(RcupoolSharedLibraryElf, EveryExportCarriesVersionRcupool0) {
  size_t all = 0;
  EXPECT_EQ(NotOfVersion(Library(), "RCUPOOL_0", &all),
            std::vector<std::string>{});
  EXPECT_GE(all, 20u);
}

TEST(RcupoolXnnpackSharedLibraryElf, EveryExportCarriesVersionRcupoolXnnpack0) {
  size_t all = 0;
  EXPECT_EQ(NotOfVersion(XnnpackLibrary(), "RCUPOOL_XNNPACK_0", &all),
            std::vector<std::string>{});
  EXPECT_GE(all, 7u);
}

TEST(RcupoolExecutorchSharedLibraryElf,
     EveryExportCarriesVersionRcupoolExecutorch0) {
  size_t all = 0;
  EXPECT_EQ(NotOfVersion(ExecutorchLibrary(), "RCUPOOL_EXECUTORCH_0", &all),
            std::vector<std::string>{});
  EXPECT_GE(all, 10u);
}

TEST(RcupoolSharedLibraryElf, IsNeverUnloaded) {
  std::string d = Tool("readelf -d " + Library());
  EXPECT_TRUE(std::regex_search(d, std::regex(R"(FLAGS_1\)\s+Flags:.*NODELETE)")))
      << d;
}

TEST(RcupoolXnnpackSharedLibraryElf, SonameIsLibrcupoolXnnpackDotSoDotMajor) {
  std::string d = Tool("readelf -d " + XnnpackLibrary());
  EXPECT_NE(d.find("Library soname: [librcupool_xnnpack.so." +
                   std::to_string(RCUPOOL_VERSION_MAJOR) + "]"),
            std::string::npos)
      << d;
}

TEST(RcupoolXnnpackSharedLibraryElf, DefinedDynamicSymbolsAreExactlyTheBackendApi) {
  std::set<std::string> api = ApiOf({kXnnpackHeader});
  ASSERT_GE(api.size(), 7u) << "the header parse found too few functions";
  ASSERT_TRUE(api.count("rcupool_xnn_runtime_create"));
  EXPECT_EQ(DefinedDynamicSymbols(XnnpackLibrary()), api);
}

TEST(RcupoolXnnpackSharedLibraryElf, NeedsLibrcupoolAndDefinesNoCoreFunction) {
  std::string d = Tool("readelf -d " + XnnpackLibrary());
  EXPECT_NE(d.find("Shared library: [librcupool.so." +
                   std::to_string(RCUPOOL_VERSION_MAJOR) + "]"),
            std::string::npos)
      << d;
  std::set<std::string> defined = DefinedDynamicSymbols(XnnpackLibrary());
  for (const std::string &name : PublicApi())
    EXPECT_EQ(defined.count(name), 0u) << "the backend defines " << name;
}

TEST(RcupoolXnnpackSharedLibraryElf, OneDefinerOfTheManagerAndOfTheBackend) {
  std::string out;
  std::string both = " " + Library() + " " + XnnpackLibrary() + " 2>&1";
  EXPECT_EQ(RunCommand(std::string(kCheckTool) + both, &out), 0) << out;
  EXPECT_EQ(RunCommand(std::string(kCheckTool) +
                           " --symbol rcupool_xnn_runtime_create" + both,
                       &out),
            0)
      << out;
}

TEST(RcupoolExtensionElf, NeedsLibrcupoolThroughOriginRunpath) {
  for (const char *ext : {kBindings, kTraining}) {
    std::string d = Tool(std::string("readelf -d ") + ext);
    EXPECT_NE(d.find("Shared library: [librcupool.so." +
                     std::to_string(RCUPOOL_VERSION_MAJOR) + "]"),
              std::string::npos)
        << ext << "\n" << d;
    EXPECT_TRUE(std::regex_search(
        d, std::regex(R"(\(RUNPATH\)\s+Library runpath: \[[^\]]*\$ORIGIN/\.\./\.\./lib/shared)")))
        << ext << "\n" << d;
    std::set<std::string> defined = DefinedDynamicSymbols(ext);
    for (const std::string &name : defined)
      EXPECT_NE(name.rfind("rcupool_", 0), 0u) << ext << " defines " << name;
  }
}

}  // namespace
}  // namespace rcupool_host
