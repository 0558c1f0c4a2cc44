// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rcupool/scope.hpp: the C++ guards of one scope and the
 * parallel calls: Scope, Width, with_threads(), ReadGuard, parallelize_1d().
 *
 * Part of <rcupool/rcupool.hpp>, which includes it: include that.
 * Threads, blocking and lifetimes are those of the C functions; the notes
 * below say only what the wrappers add (rcupool.hpp: the conventions).
 */
#ifndef RCUPOOL_SCOPE_HPP
#define RCUPOOL_SCOPE_HPP

#if !defined(__cplusplus) || __cplusplus < 201103L
#error "rcupool/scope.hpp needs C++11 or later (-std=c++11)"
#endif

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

#include <rcupool/rcupool.h>
#include <rcupool/manager.hpp>
#include <rcupool/pin.hpp>

namespace rcupool {

/*
 * rcupool_scope_enter() in the constructor, rcupool_scope_exit() in the
 * destructor: parallel calls of the pin's manager made on this thread while
 * the Scope lives run on the pin's pool. Per thread, nestable (innermost
 * wins, at most RCUPOOL_SCOPE_MAX_DEPTH). Construct and destroy it on the
 * same thread; not copyable, not movable. The pin must be non-empty (the
 * library aborts otherwise) and outlive the Scope unmoved.
 */
class Scope {
 public:
  explicit Scope(const Pin &pin) noexcept { rcupool_scope_enter(pin.get()); }
  explicit Scope(const rcupool_pin_t *pin) noexcept {
    rcupool_scope_enter(pin);
  }
  Scope(const Scope &) = delete;
  Scope &operator=(const Scope &) = delete;
  ~Scope() { rcupool_scope_exit(); }
};

/*
 * A per-call width in one object, in the spirit of
 * tbb::task_arena(n).execute(f): the constructor pins a pool of exactly
 * `threads` threads (Pin::sized: the current pool if it has that size, a
 * live or warm one of that size, else a new one; the current pool and
 * other threads are unchanged) and enters its scope on this thread; the
 * destructor leaves the scope and unpins. Parallel calls of m made on this
 * thread while it lives (rcupool::parallelize_1d, rcupool_parallelize_1d,
 * a backend's) run on that pool.
 *
 *   rcupool::Width w(m, 4);
 *   if (!w) log(w.error());    // optional: a failed width runs on the current pool
 *   run_model();
 *
 * A failed pin never aborts and never throws: the object then holds no
 * pool and enters no scope, so the work in its lifetime runs as without
 * it, on m's current pool; error() returns the reason (the negative errno
 * of rcupool_pin_sized(): -EINVAL for a null m or threads above
 * RCUPOOL_MAX_THREADS, -EAGAIN or -ENOMEM when a new pool's threads cannot
 * start; logged by the library), and operator bool is false. A Width of 0
 * threads is the default count, as rcupool_pin_sized(m, 0).
 *
 * Per thread, nestable (innermost wins, at most RCUPOOL_SCOPE_MAX_DEPTH
 * open scopes on a thread, Scope's included: deeper aborts, as
 * rcupool_scope_enter()). Construct and destroy it on the same thread, in
 * LIFO order with other Widths and Scopes (an automatic variable does
 * that); not copyable, not movable (the scope records the pin's address).
 * Threads: any.
 * Blocks: the constructor as rcupool_pin_sized() (while a new pool's
 *   threads start; a warm or live width is a lookup); the destructor as
 *   rcupool_unpin() (never).
 * Lifetime: the pool until the destructor; pin() while the object lives.
 */
class Width {
 public:
  Width(Manager m, std::size_t threads) noexcept
      : err_(Pin::sized(m, threads, pin_)) {
    if (err_ == 0) rcupool_scope_enter(pin_.get());
  }
  /* Manager::process()'s width. */
  explicit Width(std::size_t threads) noexcept
      : Width(Manager::process(), threads) {}
  Width(const Width &) = delete;
  Width &operator=(const Width &) = delete;
  ~Width() {
    if (err_ == 0) rcupool_scope_exit();
    /* pin_'s destructor unpins after the scope is left. */
  }

  /*
   * Whether the width is in effect, and why not.
   * Returns: error(): 0, or the negative errno of the pin; operator bool:
   *   error() == 0; threads(): the pool's thread count (0 when it failed).
   * Threads: any.
   * Blocks: no.
   * Lifetime: pin() while this object lives.
   */
  int error() const noexcept { return err_; }
  explicit operator bool() const noexcept { return err_ == 0; }
  std::size_t threads() const noexcept { return pin_.threads(); }
  const Pin &pin() const noexcept { return pin_; }

 private:
  Pin pin_;  // constructed before err_'s initialiser pins into it
  int err_;
};

/*
 * f() on a pool of exactly `threads` threads: a Width for the call. The
 * second form uses Manager::process().
 * Returns: 0 after f() returned; the Width's error (a negative errno, see
 *   Width) when the pool could not be pinned, and then f is NOT called.
 *   f's own result is discarded. An exception leaving f (when exceptions
 *   are on) propagates after the scope is left and the pool unpinned.
 * Threads: any.
 * Blocks: as Width's constructor, then for f().
 * Lifetime: f is used until it returns; nothing is kept.
 */
template <class F>
RCUPOOL_HPP_NODISCARD int with_threads(Manager m, std::size_t threads, F &&f) {
  Width w(m, threads);
  if (!w) return w.error();
  std::forward<F>(f)();
  return 0;
}
template <class F>
RCUPOOL_HPP_NODISCARD int with_threads(std::size_t threads, F &&f) {
  return with_threads(Manager::process(), threads, std::forward<F>(f));
}

/*
 * A read-side section for one C++ scope: rcupool_read_lock() in the
 * constructor, rcupool_read_unlock() in the destructor. current(m) is
 * rcupool_current(), valid until the guard is destroyed. Nestable; keep it
 * short and on one thread; do not call barrier or destroy inside it.
 */
class ReadGuard {
 public:
  ReadGuard() noexcept { rcupool_read_lock(); }
  ReadGuard(const ReadGuard &) = delete;
  ReadGuard &operator=(const ReadGuard &) = delete;
  ~ReadGuard() { rcupool_read_unlock(); }

  /*
   * rcupool_current(m.get()).
   * Returns: m's current pool; null if m is null.
   * Threads: the guard's own.
   * Blocks: no.
   * Lifetime: the pool until the guard is destroyed.
   */
  pthreadpool_t current(Manager m) const noexcept {
    return rcupool_current(m.get());
  }
};

namespace detail {
template <class F>
void call_1d(void *ctx, std::size_t i) noexcept {
  (*static_cast<F *>(ctx))(i);
}
}  // namespace detail

/*
 * rcupool_parallelize_1d() with any callable f(std::size_t): f(i) runs for
 * every i in [0, range), on the scope's pool or the current one, and the
 * call returns when all are done. f is called by reference from several
 * threads at once (it must be safe for that); nothing is copied or
 * allocated. An exception leaving f ends the process (std::terminate): the
 * tasks run on pthreadpool's C threads.
 * Returns: 0 or -EINVAL (m null); aborts as rcupool_parallelize_1d() does.
 * Threads: any.
 * Blocks: until every f(i) has returned (as rcupool_parallelize_1d()).
 * Lifetime: f is used until it returns; nothing is kept.
 */
template <class F>
RCUPOOL_HPP_NODISCARD int parallelize_1d(Manager m, F &&f, std::size_t range,
                                         std::uint32_t flags = 0) noexcept {
  typedef typename std::remove_reference<F>::type Fn;
  return rcupool_parallelize_1d(
      m.get(), &detail::call_1d<Fn>,
      const_cast<void *>(static_cast<const void *>(std::addressof(f))), range,
      flags);
}

static_assert(std::is_empty<Scope>::value, "Scope holds nothing");
static_assert(std::is_empty<ReadGuard>::value, "ReadGuard holds nothing");
static_assert(!std::is_copy_constructible<Width>::value &&
                  !std::is_move_constructible<Width>::value,
              "Width stays where its scope recorded it");

}  // namespace rcupool

#endif /* RCUPOOL_SCOPE_HPP */
