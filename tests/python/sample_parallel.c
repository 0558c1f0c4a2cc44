/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcupool_sample_parallel: a sample extension module an extension author
 * could write. It links the librcupool.so.0 of the installed rcupool
 * package (built against rcupool.get_include() / get_library_dir(), found
 * through an $ORIGIN-relative RUNPATH), so it shares the process's one pool
 * with the package and every other such extension.
 *
 * Invariants:
 *   SPAR-1. The GIL is released around every rcupool call that may block or
 *           log (parallelize, pin, unpin): the library's log hook, installed
 *           by the rcupool package, takes the GIL on whatever thread logs,
 *           and the reclaim thread must never wait for a GIL this thread
 *           holds while it waits for the reclaim thread.
 *   SPAR-2. A "method" is a pin in this module's static storage (slots),
 *           loaded and unloaded by the caller; a slot is used by one Python
 *           thread at a time (the tests' contract).
 *   SPAR-3. run() reports the width of the pool its tasks ran on as the
 *           number of distinct threads that ran a task. Every task of the
 *           first wave blocks until released, so each thread of the pool
 *           runs one of its own items before any item can be stolen
 *           (pthreadpool hands every thread its own items first, and a
 *           thread steals only once its own are done). Release: with
 *           expect = 0, once no new thread has shown up for SPAR_QUIET_NS
 *           (a thread later than that is missed); with expect = n, once n
 *           threads arrived and no other showed up for SPAR_EXTRA_NS after
 *           the last (a wider pool shows its extra threads), or after
 *           SPAR_GIVE_UP_NS (a narrower pool never reaches n). So with
 *           expect the count is never below the width when the pool has n
 *           threads, whatever the scheduling delays.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <rcupool/rcupool.h>

#include "sample_pool.h"

#define SPAR_SLOTS 8
#define SPAR_MAX_THREADS 512
#define SPAR_QUIET_NS (150 * 1000 * 1000LL)
#define SPAR_EXTRA_NS (50 * 1000 * 1000LL)
#define SPAR_GIVE_UP_NS (10 * 1000 * 1000 * 1000LL)

static rcupool_pin_t slots[SPAR_SLOTS];

struct run_ctx {
  pthread_mutex_t lock;
  pid_t tids[SPAR_MAX_THREADS]; /* under lock */
  size_t distinct;              /* under lock */
  int64_t last_arrival_ns;      /* under lock */
  int64_t start_ns;             /* set before the call */
  size_t expect;                /* set before the call */
  atomic_int released;
  atomic_uint_fast64_t sum;
  atomic_size_t calls;
};

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void run_task(void *arg, size_t i) {
  struct run_ctx *c = arg;
  pid_t tid = (pid_t)syscall(SYS_gettid);
  pthread_mutex_lock(&c->lock);
  size_t k = 0;
  while (k < c->distinct && c->tids[k] != tid) k++;
  if (k == c->distinct && k < SPAR_MAX_THREADS) {
    c->tids[c->distinct++] = tid;
    c->last_arrival_ns = now_ns();
  }
  pthread_mutex_unlock(&c->lock);
  /* SPAR-3: the first wave waits for the quiet time. */
  while (!atomic_load(&c->released)) {
    pthread_mutex_lock(&c->lock);
    int64_t now = now_ns();
    int64_t quiet = now - c->last_arrival_ns;
    size_t arrived = c->distinct;
    pthread_mutex_unlock(&c->lock);
    int release = c->expect == 0
                      ? quiet >= SPAR_QUIET_NS
                      : (arrived >= c->expect && quiet >= SPAR_EXTRA_NS) ||
                            now - c->start_ns >= SPAR_GIVE_UP_NS;
    if (release) {
      atomic_store(&c->released, 1);
      break;
    }
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
  }
  atomic_fetch_add(&c->sum, 3 * (uint64_t)i + 1);
  atomic_fetch_add(&c->calls, 1);
}

/* Runs the kernel over range items on rcupool (the calling thread's scope
 * if any, else the current pool); -1 when the sums are wrong. */
static int run_kernel(size_t range, size_t expect, size_t *seen) {
  struct run_ctx *c = calloc(1, sizeof *c);
  if (c == NULL) return -2;
  pthread_mutex_init(&c->lock, NULL);
  c->start_ns = c->last_arrival_ns = now_ns();
  c->expect = expect;
  int err = rcupool_parallelize_1d(rcupool_default(), run_task, c, range, 0);
  uint64_t n = range;
  int ok = err == 0 && atomic_load(&c->calls) == n &&
           atomic_load(&c->sum) == 3 * (n * (n - 1) / 2) + n;
  *seen = c->distinct;
  pthread_mutex_destroy(&c->lock);
  free(c);
  return ok ? 0 : -1;
}

/* run(expect=0, range=64) -> threads seen: the kernel on the current or
 * scoped pool (SPAR-3 says what expect does). */
static PyObject *spar_run(PyObject *self, PyObject *args) {
  Py_ssize_t range = 64, expect = 0;
  if (!PyArg_ParseTuple(args, "|nn", &expect, &range)) return NULL;
  if (range < 1 || expect < 0 || expect > SPAR_MAX_THREADS)
    return PyErr_Format(PyExc_ValueError, "range must be >= 1, expect >= 0");
  size_t seen = 0;
  int err;
  Py_BEGIN_ALLOW_THREADS
  err = run_kernel((size_t)range, (size_t)expect, &seen);
  Py_END_ALLOW_THREADS
  if (err == -2) return PyErr_NoMemory();
  if (err != 0) return PyErr_Format(PyExc_RuntimeError, "wrong kernel result");
  return PyLong_FromSize_t(seen);
}

static int slot_arg(PyObject *args, int *slot) {
  if (!PyArg_ParseTuple(args, "i", slot)) return -1;
  if (*slot < 0 || *slot >= SPAR_SLOTS) {
    PyErr_Format(PyExc_IndexError, "slot %d", *slot);
    return -1;
  }
  return 0;
}

/* load(slot) -> generation: a "method" pins the current pool. */
static PyObject *spar_load(PyObject *self, PyObject *args) {
  int slot, err;
  if (slot_arg(args, &slot) != 0) return NULL;
  Py_BEGIN_ALLOW_THREADS
  err = rcupool_pin(rcupool_default(), &slots[slot]);
  Py_END_ALLOW_THREADS
  if (err != 0) {
    errno = -err;
    return PyErr_SetFromErrno(PyExc_OSError);
  }
  return PyLong_FromUnsignedLongLong(rcupool_pin_generation(&slots[slot]));
}

/* run_method(slot, expect=0, range=64) -> threads seen, in the method's
 * scope. */
static PyObject *spar_run_method(PyObject *self, PyObject *args) {
  int slot;
  Py_ssize_t range = 64, expect = 0;
  if (!PyArg_ParseTuple(args, "i|nn", &slot, &expect, &range)) return NULL;
  if (range < 1 || expect < 0 || expect > SPAR_MAX_THREADS)
    return PyErr_Format(PyExc_ValueError, "range must be >= 1, expect >= 0");
  if (slot < 0 || slot >= SPAR_SLOTS ||
      rcupool_pin_pthreadpool(&slots[slot]) == NULL)
    return PyErr_Format(PyExc_ValueError, "slot %d is not loaded", slot);
  size_t seen = 0;
  int err;
  Py_BEGIN_ALLOW_THREADS
  rcupool_scope_enter(&slots[slot]);
  err = run_kernel((size_t)range, (size_t)expect, &seen);
  rcupool_scope_exit();
  Py_END_ALLOW_THREADS
  if (err != 0) return PyErr_Format(PyExc_RuntimeError, "wrong kernel result");
  return PyLong_FromSize_t(seen);
}

/* method_threads(slot) -> the pinned pool's thread count. */
static PyObject *spar_method_threads(PyObject *self, PyObject *args) {
  int slot;
  if (slot_arg(args, &slot) != 0) return NULL;
  return PyLong_FromSize_t(rcupool_pin_threads(&slots[slot]));
}

/* unload(slot): unpins. */
static PyObject *spar_unload(PyObject *self, PyObject *args) {
  int slot;
  if (slot_arg(args, &slot) != 0) return NULL;
  Py_BEGIN_ALLOW_THREADS
  rcupool_unpin(&slots[slot]);
  Py_END_ALLOW_THREADS
  Py_RETURN_NONE;
}

static PyMethodDef spar_methods[] = {
    {"run", spar_run, METH_VARARGS,
     "run(expect=0, range=64) -> int: run a kernel through "
     "rcupool_parallelize_1d with the GIL released; returns the number of "
     "threads its tasks ran on (expect: the width to wait for)."},
    {"pool", sample_pool, METH_NOARGS,
     "pool() -> (address, generation, threads) of the current pool."},
    {"load", spar_load, METH_VARARGS, "load(slot) -> generation: pin."},
    {"run_method", spar_run_method, METH_VARARGS,
     "run_method(slot, expect=0, range=64) -> int: run in the pinned "
     "pool's scope."},
    {"method_threads", spar_method_threads, METH_VARARGS,
     "method_threads(slot) -> thread count of the pinned pool."},
    {"unload", spar_unload, METH_VARARGS, "unload(slot): unpin."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef spar_module = {
    PyModuleDef_HEAD_INIT, "rcupool_sample_parallel",
    "A sample extension sharing rcupool's pool.", -1, spar_methods,
};

PyMODINIT_FUNC PyInit_rcupool_sample_parallel(void) {
  return PyModule_Create(&spar_module);
}
