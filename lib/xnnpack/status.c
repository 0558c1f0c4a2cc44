/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * XNNPACK status codes as rcupool errors.
 *
 * Invariants kept here:
 *   STATUS-1. Every XNNPACK failure that leaves the backend becomes a negative
 *       errno (never a positive xnn_status, never 0), and is logged once at
 *       error level with the XNNPACK call's name and the status's name.
 */
#include <errno.h>

#include "lib/xnnpack/backend.h"

int rcupool_xnn_errno(enum xnn_status status) {
  switch (status) {
    case xnn_status_success:
      return 0;
    case xnn_status_invalid_parameter:
      return -EINVAL;
    case xnn_status_invalid_state:
      return -EBADFD;
    case xnn_status_unsupported_parameter:
      return -ENOTSUP;
    case xnn_status_unsupported_hardware:
      return -ENODEV;
    case xnn_status_out_of_memory:
      return -ENOMEM;
    case xnn_status_uninitialized:
      return -EPERM;
  }
  return -EIO;
}

static const char *rcupl_xnn_status_name(enum xnn_status status) {
  switch (status) {
    case xnn_status_success:
      return "success";
    case xnn_status_invalid_parameter:
      return "invalid parameter";
    case xnn_status_invalid_state:
      return "invalid state";
    case xnn_status_unsupported_parameter:
      return "unsupported parameter";
    case xnn_status_unsupported_hardware:
      return "unsupported hardware";
    case xnn_status_out_of_memory:
      return "out of memory";
    case xnn_status_uninitialized:
      return "XNNPACK not initialized";
  }
  return "unknown status";
}

int rcupl_xnn_fail(const char *call, enum xnn_status status, const void *rt) {
  int err = rcupool_xnn_errno(status);
  rcupool_log(RCUPOOL_LOG_ERROR,
              "xnnpack: %s failed (runtime %p): %s (status %d, returned as "
              "errno %d)",
              call, rt, rcupl_xnn_status_name(status), (int)status, -err);
  return err;
}
