// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rcupool/manager.hpp: the C++ managers: Manager, a non-owning
 * handle, and OwnedManager, a private manager.
 *
 * Part of <rcupool/rcupool.hpp>, which includes it: include that.
 * Threads, blocking and lifetimes are those of the C functions; the notes
 * below say only what the wrappers add (rcupool.hpp: the conventions).
 */
#ifndef RCUPOOL_MANAGER_HPP
#define RCUPOOL_MANAGER_HPP

#if !defined(__cplusplus) || __cplusplus < 201103L
#error "rcupool/manager.hpp needs C++11 or later (-std=c++11)"
#endif

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

#include <rcupool/rcupool.h>

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

static_assert(sizeof(Manager) == sizeof(rcupool_t *), "Manager is a pointer");
static_assert(sizeof(OwnedManager) == sizeof(rcupool_t *),
              "OwnedManager is a pointer");

}  // namespace rcupool

#endif /* RCUPOOL_MANAGER_HPP */
