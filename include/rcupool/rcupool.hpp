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
 * rcupool.h); the notes below say only what the wrappers add.
 */
#ifndef RCUPOOL_RCUPOOL_HPP
#define RCUPOOL_RCUPOOL_HPP

#if !defined(__cplusplus) || __cplusplus < 201103L
#error "rcupool/rcupool.hpp needs C++11 or later (-std=c++11)"
#endif

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

#include <rcupool/rcupool.h>

/* [[nodiscard]] is C++17. gcc (7 and later) takes it in C++11 and C++14
 * too, without a warning under -pedantic (checked with gcc 12); clang warns
 * there, so it gets warn_unused_result, which a cast to void silences as it
 * does [[nodiscard]]. Undefined at the end of this header. */
#if __cplusplus >= 201703L
#define RCUPOOL_HPP_NODISCARD [[nodiscard]]
#elif defined(__clang__)
#define RCUPOOL_HPP_NODISCARD __attribute__((warn_unused_result))
#elif defined(__GNUC__) && __GNUC__ >= 7
#define RCUPOOL_HPP_NODISCARD [[nodiscard]]
#else
#define RCUPOOL_HPP_NODISCARD
#endif

namespace rcupool {

/*
 * A non-owning handle to a manager: one pointer, freely copied. Its calls
 * forward to the C functions of the same name. Manager::process() is the
 * process-wide manager (rcupool_default()); it may be null when its first
 * creation failed (check with `if (!m)`).
 */
class Manager {
 public:
  constexpr Manager() noexcept = default;
  /* Implicit: a rcupool_t * is usable wherever a Manager is expected. */
  constexpr Manager(rcupool_t *m) noexcept : m_(m) {}  // NOLINT

  /*
   * rcupool_default().
   * Returns: the process-wide manager; null when its first creation failed.
   * Threads: any.
   * Blocks: the process's first call, while threads start.
   * Lifetime: until the process exits.
   */
  static Manager process() noexcept { return Manager(rcupool_default()); }

  /*
   * The C handle, and whether there is one.
   * Returns: the rcupool_t * (null for an empty handle); true when not null.
   * Threads: any.
   * Blocks: no.
   * Lifetime: the manager's (this handle owns nothing).
   */
  rcupool_t *get() const noexcept { return m_; }
  explicit operator bool() const noexcept { return m_ != nullptr; }

  /*
   * The C calls of the same name on get(): rcupool_reset(),
   * rcupool_threads(), rcupool_generation(), rcupool_set_idle() (whether
   * workers spin or sleep after a job), rcupool_idle(), rcupool_set_warm()
   * (how long and how many unused widths stay warm), rcupool_barrier(),
   * rcupool_trim() (frees the warm pools now; the count freed),
   * rcupool_get_stats().
   * Returns: what the C call returns.
   * Threads: as the C call.
   * Blocks: as the C call.
   * Lifetime: as the C call; no pointers kept.
   */
  RCUPOOL_HPP_NODISCARD int reset(std::size_t threads) const noexcept {
    return rcupool_reset(m_, threads);
  }
  std::size_t threads() const noexcept { return rcupool_threads(m_); }
  std::uint64_t generation() const noexcept { return rcupool_generation(m_); }
  RCUPOOL_HPP_NODISCARD int set_idle(rcupool_idle_t idle) const noexcept {
    return rcupool_set_idle(m_, idle);
  }
  rcupool_idle_t idle() const noexcept { return rcupool_idle(m_); }
  RCUPOOL_HPP_NODISCARD int set_warm(std::uint32_t warm_ms,
                                     std::uint32_t warm_pools) const noexcept {
    return rcupool_set_warm(m_, warm_ms, warm_pools);
  }
  RCUPOOL_HPP_NODISCARD int barrier() const noexcept {
    return rcupool_barrier(m_);
  }
  RCUPOOL_HPP_NODISCARD int trim() const noexcept { return rcupool_trim(m_); }
  RCUPOOL_HPP_NODISCARD int stats(rcupool_stats_t &out) const noexcept {
    return rcupool_get_stats(m_, &out);
  }

 private:
  rcupool_t *m_ = nullptr;
};

/*
 * A private manager (tests, embedders that want their own). Move-only.
 * The destructor calls rcupool_destroy(); call destroy() yourself to see
 * its result: -EBUSY while a pin is held, and then the manager stays alive
 * (the destructor would leave it allocated: a leak, never a free under a
 * pin).
 */
class OwnedManager {
 public:
  constexpr OwnedManager() noexcept = default;
  OwnedManager(const OwnedManager &) = delete;
  OwnedManager &operator=(const OwnedManager &) = delete;
  OwnedManager(OwnedManager &&o) noexcept : m_(o.m_) { o.m_ = nullptr; }
  OwnedManager &operator=(OwnedManager &&o) noexcept {
    if (this != &o) {
      (void)destroy();
      m_ = o.m_;
      o.m_ = nullptr;
    }
    return *this;
  }
  ~OwnedManager() { (void)destroy(); }

  /*
   * rcupool_create(opts, ...) into out, which must be empty; opts may be
   * null (defaults). The second form: a zero-initialised opts with its
   * thread count (so the default idle policy and warm widths).
   * Returns: 0, -EBUSY when out is not empty (nothing is created), or the
   *   error of rcupool_create().
   * Threads: any.
   * Blocks: as rcupool_create(), while the first pool's threads start.
   * Lifetime: the manager until destroy() succeeds (or out's destructor).
   */
  RCUPOOL_HPP_NODISCARD static int create(const rcupool_options_t *opts,
                                          OwnedManager &out) noexcept {
    if (out.m_ != nullptr) return -EBUSY;
    return rcupool_create(opts, &out.m_);
  }
  RCUPOOL_HPP_NODISCARD static int create(std::size_t threads,
                                          OwnedManager &out) noexcept {
    rcupool_options_t opts{};
    opts.threads = threads;
    return create(&opts, out);
  }

  /*
   * rcupool_destroy(); on success the handle becomes empty.
   * Returns: what rcupool_destroy() returns (0 for an empty handle).
   * Threads: as rcupool_destroy().
   * Blocks: as rcupool_destroy().
   * Lifetime: every Manager taken from this one is dangling once it
   *   returns 0.
   */
  RCUPOOL_HPP_NODISCARD int destroy() noexcept {
    int err = rcupool_destroy(m_);
    if (err == 0) m_ = nullptr;
    return err;
  }

  /*
   * A non-owning handle, the C handle, and whether there is one.
   * Returns: Manager(get()); the rcupool_t * (null when empty); true when
   *   not null.
   * Threads: any.
   * Blocks: no.
   * Lifetime: until this object destroys its manager.
   */
  Manager manager() const noexcept { return Manager(m_); }
  operator Manager() const noexcept { return Manager(m_); }  // NOLINT
  rcupool_t *get() const noexcept { return m_; }
  explicit operator bool() const noexcept { return m_ != nullptr; }

 private:
  rcupool_t *m_ = nullptr;
};

/*
 * A pin of one pool, owned by this object: move-only, unpinned exactly once
 * (by reset() or the destructor). A default-constructed or moved-from Pin
 * is empty. Pinning writes into the object itself: no allocation.
 *
 * The library's scope stack records the address of the pin a scope was
 * entered with, so a Pin must not be moved, reset or destroyed while a
 * Scope on it is open (the library then aborts at the next parallel call
 * of that scope, as for an unpin inside the scope in C).
 */
class Pin {
 public:
  constexpr Pin() noexcept : pin_{} {}
  Pin(const Pin &) = delete;
  Pin &operator=(const Pin &) = delete;
  Pin(Pin &&o) noexcept : pin_(o.pin_) { o.pin_ = rcupool_pin_t{}; }
  Pin &operator=(Pin &&o) noexcept {
    if (this != &o) {
      reset();
      pin_ = o.pin_;
      o.pin_ = rcupool_pin_t{};
    }
    return *this;
  }
  ~Pin() { reset(); }

  /*
   * rcupool_pin(m, ...) into out.
   * Returns: 0, -EBUSY when out already holds a pool (nothing changes),
   *   -EINVAL when m is null.
   * Threads: any.
   * Blocks: as rcupool_pin().
   * Lifetime: the pool until out is reset or destroyed.
   */
  RCUPOOL_HPP_NODISCARD static int current(Manager m, Pin &out) noexcept {
    return rcupool_pin(m.get(), &out.pin_);
  }

  /*
   * rcupool_pin_sized(m, threads, ...) into out: a pool of exactly that
   * size, without changing the current pool.
   * Returns: what rcupool_pin_sized() returns.
   * Threads: any.
   * Blocks: as rcupool_pin_sized().
   * Lifetime: the pool until out is reset or destroyed.
   */
  RCUPOOL_HPP_NODISCARD static int sized(Manager m, std::size_t threads,
                                         Pin &out) noexcept {
    return rcupool_pin_sized(m.get(), threads, &out.pin_);
  }

  /*
   * rcupool_pin_placed(m, threads, placement, ...) into out: a pool of
   * exactly that size placed by `placement` (rcupool/placement.h), e.g. a
   * width guard on the big cores: Pin::placed(m, 2, "performance", pin).
   * The text form is rcupool_placement_parse()'s.
   * Returns: what rcupool_pin_placed() returns; -EINVAL also for a text
   *   that is not a placement (nothing changes).
   * Threads: any.
   * Blocks: as rcupool_pin_placed().
   * Lifetime: the pool until out is reset or destroyed.
   */
  RCUPOOL_HPP_NODISCARD static int placed(Manager m, std::size_t threads,
                                          const rcupool_placement_t &placement,
                                          Pin &out) noexcept {
    return rcupool_pin_placed(m.get(), threads, &placement, &out.pin_);
  }
  RCUPOOL_HPP_NODISCARD static int placed(Manager m, std::size_t threads,
                                          const char *placement,
                                          Pin &out) noexcept {
    rcupool_placement_t pl{};
    int err = rcupool_placement_parse(placement, &pl);
    return err != 0 ? err : placed(m, threads, pl, out);
  }

  /*
   * Unpins if holding a pool; an empty Pin is left alone (no warning).
   * Returns: nothing.
   * Threads: any; not two at once on one Pin.
   * Blocks: as rcupool_unpin().
   * Lifetime: the pool pthreadpool() returned is no longer held by this
   *   Pin.
   */
  void reset() noexcept {
    if (!empty()) rcupool_unpin(&pin_);
  }

  /*
   * The C getters on this pin: empty() and operator bool through
   * rcupool_pin_pthreadpool() (an empty pin has no pthreadpool_t, and this
   * layer reads none of the C struct's private fields), pthreadpool(),
   * threads(), generation(), is_current().
   * Returns: what the C getter returns.
   * Threads: any.
   * Blocks: no.
   * Lifetime: pthreadpool() until this Pin is reset, destroyed or moved
   *   from.
   */
  bool empty() const noexcept {
    return rcupool_pin_pthreadpool(&pin_) == nullptr;
  }
  explicit operator bool() const noexcept { return !empty(); }
  pthreadpool_t pthreadpool() const noexcept {
    return rcupool_pin_pthreadpool(&pin_);
  }
  std::size_t threads() const noexcept { return rcupool_pin_threads(&pin_); }
  std::uint64_t generation() const noexcept {
    return rcupool_pin_generation(&pin_);
  }
  bool is_current() const noexcept { return rcupool_pin_is_current(&pin_); }

  /*
   * The C pin, for C calls (rcupool_scope_enter, a backend).
   * Returns: its address; never null.
   * Threads: any.
   * Blocks: no.
   * Lifetime: while this object lives and is not moved.
   */
  const rcupool_pin_t *get() const noexcept { return &pin_; }

 private:
  rcupool_pin_t pin_;
};

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

static_assert(sizeof(Manager) == sizeof(rcupool_t *), "Manager is a pointer");
static_assert(sizeof(OwnedManager) == sizeof(rcupool_t *),
              "OwnedManager is a pointer");
static_assert(sizeof(Pin) == sizeof(rcupool_pin_t), "Pin is the C pin");
static_assert(alignof(Pin) == alignof(rcupool_pin_t), "Pin is the C pin");
static_assert(std::is_empty<Scope>::value, "Scope holds nothing");
static_assert(std::is_empty<ReadGuard>::value, "ReadGuard holds nothing");
static_assert(!std::is_copy_constructible<Width>::value &&
                  !std::is_move_constructible<Width>::value,
              "Width stays where its scope recorded it");
static_assert(std::is_nothrow_move_constructible<Pin>::value &&
                  std::is_nothrow_move_assignable<Pin>::value &&
                  !std::is_copy_constructible<Pin>::value,
              "Pin is move-only");

}  // namespace rcupool

#undef RCUPOOL_HPP_NODISCARD

#endif /* RCUPOOL_RCUPOOL_HPP */
