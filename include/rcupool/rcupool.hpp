// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rcupool/rcupool.hpp: a header-only C++ layer over <rcupool/rcupool.h>.
 *
 *   rcupool::Manager       a non-owning handle: Manager::process(), reset,
 *                          threads, generation, set_idle, set_warm, barrier,
 *                          trim, stats
 *   rcupool::OwnedManager  a private manager (rcupool_create/destroy), move-only
 *   rcupool::Pin           a move-only pin: Pin::current(m, pin) pins, the
 *                          destructor (or reset()) unpins exactly once
 *   rcupool::Scope         rcupool_scope_enter/exit for one C++ scope
 *   rcupool::Width         a per-call width in one object: a sized pin and
 *                          its scope (Width w(m, n); w.error() if it failed)
 *   rcupool::with_threads(m, n, f)   f() on an n-thread pool (a Width)
 *   rcupool::ReadGuard     rcupool_read_lock/unlock for one C++ scope
 *   rcupool::parallelize_1d(m, f, range)   any callable f(size_t)
 *
 * Needs C++11 or later (and stops with an #error naming it below that):
 * Bazel 4.2.3's default toolchain compiles C++ as -std=c++0x, and a
 * consumer that only adds the dependency builds.
 *
 * Error convention: every call that can fail returns a [[nodiscard]] int
 * (in C++11 and C++14, the compiler's equivalent where it has one), 0 or a
 * negative errno, exactly as the C call it wraps. Nothing here
 * throws, allocates or needs RTTI, so it builds with -fno-exceptions and
 * -fno-rtti. Constructors cannot fail: objects that need a fallible step
 * are made by a static factory that returns the error and fills an
 * out-parameter. The one exception is Width, a guard for one C++ scope:
 * its constructor records the error, which error() returns (a failed
 * Width does nothing, it never aborts).
 *
 * Threads, blocking and lifetimes are those of the C functions (see
 * rcupool.h); the notes of each part say only what the wrappers add.
 *
 * One header a concept; this one includes them all: manager.hpp (Manager,
 * OwnedManager), pin.hpp (Pin), scope.hpp (Scope, Width, with_threads,
 * ReadGuard, parallelize_1d).
 */
#ifndef RCUPOOL_RCUPOOL_HPP
#define RCUPOOL_RCUPOOL_HPP

#if !defined(__cplusplus) || __cplusplus < 201103L
#error "rcupool/rcupool.hpp needs C++11 or later (-std=c++11)"
#endif

#include <rcupool/rcupool.h>
#include <rcupool/manager.hpp>
#include <rcupool/pin.hpp>
#include <rcupool/scope.hpp>

#endif /* RCUPOOL_RCUPOOL_HPP */
