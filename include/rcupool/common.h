/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcupool/common.h: what every public header of rcupool shares: the
 * attribute macros of its declarations.
 *
 * Part of <rcupool/rcupool.h>, which includes it: include that.
 */
#ifndef RCUPOOL_COMMON_H
#define RCUPOOL_COMMON_H

#if defined(__GNUC__)
#define RCUPOOL_API __attribute__((visibility("default")))
#define RCUPOOL_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define RCUPOOL_API
#define RCUPOOL_PRINTF(fmt, args)
#endif

#endif /* RCUPOOL_COMMON_H */
