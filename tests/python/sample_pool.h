/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pool(), shared by the sample extensions (sample_parallel.c,
 * sample_xnnpack.c): (pthreadpool address, generation, threads) of the
 * default manager's current pool, read in one read-side section with the
 * GIL released. Included once per extension; the function is static.
 */
#ifndef RCUPOOL_TESTS_PYTHON_SAMPLE_POOL_H
#define RCUPOOL_TESTS_PYTHON_SAMPLE_POOL_H

#include <Python.h>
#include <stdint.h>

#include <rcupool/rcupool.h>

static PyObject *sample_pool(PyObject *self, PyObject *noargs) {
  (void)self;
  (void)noargs;
  pthreadpool_t tp;
  uint64_t gen;
  size_t threads;
  Py_BEGIN_ALLOW_THREADS
  rcupool_t *m = rcupool_default();
  rcupool_read_lock();
  tp = rcupool_current(m);
  gen = rcupool_generation(m);
  threads = rcupool_threads(m);
  rcupool_read_unlock();
  Py_END_ALLOW_THREADS
  return Py_BuildValue("(KKn)", (unsigned long long)(uintptr_t)tp,
                       (unsigned long long)gen, (Py_ssize_t)threads);
}

#endif /* RCUPOOL_TESTS_PYTHON_SAMPLE_POOL_H */
