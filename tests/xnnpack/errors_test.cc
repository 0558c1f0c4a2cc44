// SPDX-License-Identifier: LGPL-2.1-or-later
// XNNPACK failures become negative errno values with a clear log message.
#include <cerrno>

#include <gtest/gtest.h>

#include "tests/support/support.h"
#include "tests/xnnpack/method.h"

namespace rcupool_test {
namespace {

Case &TinyCase() {
  static Case *c = new Case(2, 8, 16, 8, 41);
  return *c;
}

TEST(RcupoolXnnErrno, EachStatusMapsToItsNegativeErrno) {
  EXPECT_EQ(rcupool_xnn_errno(xnn_status_success), 0);
  EXPECT_EQ(rcupool_xnn_errno(xnn_status_invalid_parameter), -EINVAL);
  EXPECT_EQ(rcupool_xnn_errno(xnn_status_invalid_state), -EBADFD);
  EXPECT_EQ(rcupool_xnn_errno(xnn_status_unsupported_parameter), -ENOTSUP);
  EXPECT_EQ(rcupool_xnn_errno(xnn_status_unsupported_hardware), -ENODEV);
  EXPECT_EQ(rcupool_xnn_errno(xnn_status_out_of_memory), -ENOMEM);
  EXPECT_EQ(rcupool_xnn_errno(xnn_status_uninitialized), -EPERM);
  EXPECT_EQ(rcupool_xnn_errno(static_cast<xnn_status>(77)), -EIO);
}

TEST(RcupoolXnnRuntimeCreate, NullArgumentsAreEinvalAndPinNothing) {
  NoWarmManager m(1);
  xnn_subgraph_t sg = nullptr;
  ASSERT_EQ(xnn_initialize(nullptr), xnn_status_success);
  ASSERT_EQ(mlp_subgraph(TinyCase().model, &sg), 0);
  rcupool_xnn_runtime_t *rt = nullptr;
  EXPECT_EQ(rcupool_xnn_runtime_create(nullptr, sg, 0, &rt), -EINVAL);
  EXPECT_EQ(rcupool_xnn_runtime_create(m, nullptr, 0, &rt), -EINVAL);
  EXPECT_EQ(rcupool_xnn_runtime_create(m, sg, 0, nullptr), -EINVAL);
  EXPECT_EQ(rt, nullptr);
  EXPECT_EQ(Stats(m).pins, 0u);
  xnn_delete_subgraph(sg);
}

TEST(RcupoolXnnRuntimeInvoke, BeforeSetupIsMappedErrorWithMessage) {
  NoWarmManager m(1);
  ASSERT_EQ(xnn_initialize(nullptr), xnn_status_success);
  xnn_subgraph_t sg = nullptr;
  ASSERT_EQ(mlp_subgraph(TinyCase().model, &sg), 0);
  rcupool_xnn_runtime_t *rt = nullptr;
  ASSERT_EQ(rcupool_xnn_runtime_create(m, sg, 0, &rt), 0);
  LogRecorder log;
  EXPECT_EQ(rcupool_xnn_runtime_invoke(rt), -EBADFD);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_ERROR,
                      "xnn_invoke_runtime failed"), 1u);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_ERROR, "invalid state"), 1u);
  rcupool_xnn_runtime_destroy(rt);
  xnn_delete_subgraph(sg);
}

TEST(RcupoolXnnRuntimeSetup, UnknownValueIdIsEinvalWithMessageNamingTheCall) {
  NoWarmManager m(1);
  Method method(m, TinyCase());
  ASSERT_TRUE(method.ok());
  LogRecorder log;
  std::vector<float> x(mlp_input_size(TinyCase().model));
  const xnn_external_value unknown[1] = {{1000, x.data()}};
  EXPECT_EQ(rcupool_xnn_runtime_setup(method.runtime(), 1, unknown), -EINVAL);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_ERROR,
                      "xnn_setup_runtime failed"), 1u);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_ERROR, "invalid parameter"), 1u);
  EXPECT_EQ(rcupool_xnn_runtime_setup(nullptr, 0, nullptr), -EINVAL);
  EXPECT_EQ(rcupool_xnn_runtime_setup(method.runtime(), 2, nullptr), -EINVAL);
}

TEST(RcupoolXnnRuntimeInvoke, NullIsEinvalAndDestroyNullIsNoOp) {
  EXPECT_EQ(rcupool_xnn_runtime_invoke(nullptr), -EINVAL);
  EXPECT_EQ(rcupool_xnn_runtime_get_pin(nullptr), nullptr);
  rcupool_xnn_runtime_destroy(nullptr);
}

TEST(RcupoolXnnRuntimeDestroy, ReleasesThePinSoTheManagerCanBeDestroyed) {
  rcupool_t *m = nullptr;
  ASSERT_EQ(rcupool_create(nullptr, &m), 0);
  {
    Method method(m, TinyCase());
    ASSERT_TRUE(method.ok());
    EXPECT_EQ(rcupool_destroy(m), -EBUSY);  // the runtime's pin
  }
  EXPECT_EQ(rcupool_destroy(m), 0);
}

}  // namespace
}  // namespace rcupool_test
