/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A user of the xnnpack component: links rcupool::xnnpack, which brings
 * <rcupool/xnnpack.h>, <xnnpack.h>, librcupool_xnnpack.so.0 and libXNNPACK.
 * Prints "xnn ok" and exits 0 when XNNPACK initialises and the backend
 * answers. */
#include <errno.h>
#include <stdio.h>

#include <rcupool/xnnpack.h>

int main(void) {
  if (xnn_initialize(NULL) != xnn_status_success)
    return fprintf(stderr, "xnn_initialize\n"), 1;
  rcupool_xnn_runtime_t *rt = NULL;
  int err = rcupool_xnn_runtime_create(rcupool_default(), NULL, 0, &rt);
  if (err != -EINVAL || rt != NULL)
    return fprintf(stderr, "runtime_create(NULL subgraph): %d\n", err), 1;
  if (rcupool_xnn_errno(xnn_status_success) != 0)
    return fprintf(stderr, "rcupool_xnn_errno\n"), 1;
  printf("xnn ok\n");
  return 0;
}
