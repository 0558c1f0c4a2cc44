// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rcupool/pin.hpp: Pin, a move-only pin that unpins exactly
 * once.
 *
 * Part of <rcupool/rcupool.hpp>, which includes it: include that.
 * Threads, blocking and lifetimes are those of the C functions; the notes
 * below say only what the wrappers add (rcupool.hpp: the conventions).
 */
#ifndef RCUPOOL_PIN_HPP
#define RCUPOOL_PIN_HPP

#if !defined(__cplusplus) || __cplusplus < 201103L
#error "rcupool/pin.hpp needs C++11 or later (-std=c++11)"
#endif

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

#include <rcupool/rcupool.h>
#include <rcupool/manager.hpp>

namespace rcupool {

/*
 * A pin of one pool, owned by this object: move-only, unpinned exactly once
 * (by reset() or the destructor). A default-constructed or moved-from Pin
 * is empty. Pinning writes into the object itself: no allocation.
 *
 * The library's scope stack records the address of the pin a scope was
 * entered with (and its manager), so a Pin must not be moved, reset or
 * destroyed while a Scope on it is open. After a move or a reset the
 * library aborts at the next parallel call of that scope, with a message
 * naming the move or the unpin, as for an unpin inside the scope in C;
 * a destroyed Pin leaves the scope on storage that is gone (undefined).
 * A move while no Scope on the Pin is open is legal: the moved-to Pin
 * holds the same pool, and a Scope may then be entered on it.
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

static_assert(sizeof(Pin) == sizeof(rcupool_pin_t), "Pin is the C pin");
static_assert(alignof(Pin) == alignof(rcupool_pin_t), "Pin is the C pin");
static_assert(std::is_nothrow_move_constructible<Pin>::value &&
                  std::is_nothrow_move_assignable<Pin>::value &&
                  !std::is_copy_constructible<Pin>::value,
              "Pin is move-only");

}  // namespace rcupool

#endif /* RCUPOOL_PIN_HPP */
