// SPDX-License-Identifier: LGPL-2.1-or-later
// rcupool_version() and rcupool_version_number(): the version of the
// library a program runs with, to check at run time against the
// RCUPOOL_VERSION_* macros of the header it was compiled with.
#include <string>

#include <gtest/gtest.h>

#include <rcupool/rcupool.h>

namespace {

TEST(RcupoolVersion, IsTheHeaderMajorMinorPatchDotted) {
  std::string want = std::to_string(RCUPOOL_VERSION_MAJOR) + "." +
                     std::to_string(RCUPOOL_VERSION_MINOR) + "." +
                     std::to_string(RCUPOOL_VERSION_PATCH);
  ASSERT_NE(rcupool_version(), nullptr);
  EXPECT_EQ(std::string(rcupool_version()), want);
}

TEST(RcupoolVersion, EveryCallReturnsTheSameStaticString) {
  EXPECT_EQ(rcupool_version(), rcupool_version());
}

TEST(RcupoolVersionNumber, IsTheHeaderNumber) {
  EXPECT_EQ(rcupool_version_number(), RCUPOOL_VERSION_NUMBER);
  EXPECT_EQ(RCUPOOL_VERSION_NUMBER, RCUPOOL_VERSION_MAJOR * 10000 +
                                        RCUPOOL_VERSION_MINOR * 100 +
                                        RCUPOOL_VERSION_PATCH);
}

TEST(RcupoolVersionNumber, OrdersAsTheVersionsDo) {
  // Minor and patch stay below 100, so the number orders as the triples.
  EXPECT_LT(RCUPOOL_VERSION_MINOR, 100);
  EXPECT_LT(RCUPOOL_VERSION_PATCH, 100);
  EXPECT_GE(rcupool_version_number(), RCUPOOL_VERSION_MAJOR * 10000);
  EXPECT_LT(rcupool_version_number(), (RCUPOOL_VERSION_MAJOR + 1) * 10000);
}

}  // namespace
