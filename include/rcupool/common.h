/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcupool/common.h: what every public header of rcupool shares: the
 * attribute macros of its declarations and the manager's handle.
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

/* A pool manager. Opaque. (The tag is not `struct rcupool`: C++ users have
 * `namespace rcupool`, <rcupool/rcupool.hpp>, and a tag of the same name
 * in the global scope would clash with it.) */
typedef struct rcupool_manager rcupool_t;

#ifdef __cplusplus
/* The mark of the C++ layer's calls that can fail (rcupool.hpp): a result
 * to use. [[nodiscard]] is C++17. gcc (7 and later) takes it in C++11 and
 * C++14 too, without a warning under -pedantic (checked with gcc 12);
 * clang warns there, so it gets warn_unused_result, which a cast to void
 * silences as it does [[nodiscard]]. */
#if __cplusplus >= 201703L
#define RCUPOOL_HPP_NODISCARD [[nodiscard]]
#elif defined(__clang__)
#define RCUPOOL_HPP_NODISCARD __attribute__((warn_unused_result))
#elif defined(__GNUC__) && __GNUC__ >= 7
#define RCUPOOL_HPP_NODISCARD [[nodiscard]]
#else
#define RCUPOOL_HPP_NODISCARD
#endif
#endif

#endif /* RCUPOOL_COMMON_H */
