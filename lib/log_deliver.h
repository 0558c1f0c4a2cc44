/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/log_deliver.c's API, the gate of the log's delivery
 * (rcupl_log_deliver() in lib/log_internal.h calls it when records wait).
 */
#ifndef RCUPOOL_LIB_LOG_DELIVER_H
#define RCUPOOL_LIB_LOG_DELIVER_H

/* Delivers the queued records when this thread may run the hook (LOG-1),
 * else leaves them for the next such call. */
void rcupl_log_deliver_slow(void);

#endif /* RCUPOOL_LIB_LOG_DELIVER_H */
