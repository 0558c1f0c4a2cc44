/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private to lib/xnnpack: what the backend's files share.
 */
#ifndef RCUPOOL_LIB_XNNPACK_BACKEND_H
#define RCUPOOL_LIB_XNNPACK_BACKEND_H

#include <xnnpack.h>

#include <rcupool/rcupool.h>
#include <rcupool/xnnpack.h>

/* Logs "xnnpack: <call> failed ..." at error level and returns the mapped
 * negative errno of status (status must not be xnn_status_success). rt is
 * printed to tell runtimes apart; it may be NULL. */
int rcupl_xnn_fail(const char *call, enum xnn_status status, const void *rt);

#endif /* RCUPOOL_LIB_XNNPACK_BACKEND_H */
