/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Failure injection through the library's private hook (lib/testing.h):
// while a FaultInjector lives, calls at one fault site fail. Tests that use
// it link the static library (the hook is a hidden symbol of librcupool.so).
#ifndef RCUPOOL_TESTS_SUPPORT_FAULT_INJECTOR_H
#define RCUPOOL_TESTS_SUPPORT_FAULT_INJECTOR_H

#include "rcupool_private/testing.h"

namespace rcupool_test {

// Fails the fail_at-th call (1-based) at `site` from installation on, or
// every call when fail_at is 0 and fail_all is set.
class FaultInjector {
 public:
  FaultInjector(int site, int fail_at, bool fail_all = false)
      : site_(site), fail_at_(fail_at), fail_all_(fail_all) {
    rcupl_fault_set_hook(&FaultInjector::Hook, this);
  }
  ~FaultInjector() { rcupl_fault_set_hook(nullptr, nullptr); }
  FaultInjector(const FaultInjector &) = delete;
  FaultInjector &operator=(const FaultInjector &) = delete;
  int calls() const { return calls_; }
  int failed() const { return failed_; }

 private:
  static bool Hook(void *ctx, int site) {
    auto *self = static_cast<FaultInjector *>(ctx);
    if (site != self->site_) return false;
    self->calls_++;
    bool fail = self->fail_all_ || self->calls_ == self->fail_at_;
    if (fail) self->failed_++;
    return fail;
  }
  int site_;
  int fail_at_;
  bool fail_all_;
  int calls_ = 0;
  int failed_ = 0;
};

}  // namespace rcupool_test

#endif  // RCUPOOL_TESTS_SUPPORT_FAULT_INJECTOR_H
