/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcupool_sample_xnnpack: a sample extension module that loads and runs an
 * XNNPACK method through rcupool's backend, linked as the shared library
 * librcupool_xnnpack.so.0 (which depends on librcupool.so.0), both from the
 * rcupool package's get_library_dir(). The model is the tests' sample
 * (tools/model/mlp.c, compiled in), a two-layer perceptron checked against
 * a double-precision reference.
 *
 * Invariants:
 *   SXNN-1. The GIL is released around every call into rcupool or XNNPACK
 *           (load, run, drop): they may block or log, and the log hook
 *           takes the GIL (see sample_parallel.c, SPAR-1).
 *   SXNN-2. A Method owns its model, subgraph and runtime; a Python object
 *           is used by one thread at a time (its lock is the GIL-free
 *           mutex below, so a second thread waits instead of racing).
 *   SXNN-3. A method keeps the pool it was loaded on (the backend pins it)
 *           until drop(); resets between runs never move it.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include <rcupool/rcupool.h>
#include <rcupool/xnnpack.h>

#include "tools/model/mlp.h"
#include "sample_pool.h"

typedef struct {
  PyObject_HEAD
  pthread_mutex_t lock;
  mlp_t *model;
  xnn_subgraph_t sg;
  rcupool_xnn_runtime_t *rt;
  float *input;
  float *output;
  double *reference;
} Method;

static void method_free_parts(Method *self) {
  rcupool_xnn_runtime_destroy(self->rt);
  self->rt = NULL;
  if (self->sg != NULL) xnn_delete_subgraph(self->sg);
  self->sg = NULL;
  mlp_destroy(self->model);
  self->model = NULL;
  free(self->input);
  free(self->output);
  free(self->reference);
  self->input = self->output = NULL;
  self->reference = NULL;
}

static int method_load(Method *self, size_t batch, size_t in, size_t hidden,
                       size_t out, uint32_t seed) {
  int err = mlp_create(batch, in, hidden, out, seed, &self->model);
  if (err != 0) return err;
  size_t ni = mlp_input_size(self->model), no = mlp_output_size(self->model);
  self->input = malloc(ni * sizeof(float));
  self->output = malloc(no * sizeof(float));
  self->reference = malloc(no * sizeof(double));
  if (!self->input || !self->output || !self->reference) return -ENOMEM;
  mlp_fill_input(self->model, seed + 1, self->input);
  mlp_reference(self->model, self->input, self->reference);
  if (xnn_initialize(NULL) != xnn_status_success) return -EIO;
  if ((err = mlp_subgraph(self->model, &self->sg)) != 0) return err;
  if ((err = rcupool_xnn_runtime_create(rcupool_default(), self->sg, 0,
                                        &self->rt)) != 0)
    return err;
  const struct xnn_external_value values[2] = {
      {MLP_INPUT_ID, self->input}, {MLP_OUTPUT_ID, self->output}};
  return rcupool_xnn_runtime_setup(self->rt, 2, values);
}

/* Method(batch=64, inputs=256, hidden=512, outputs=256, seed=11): loads. */
static int Method_init(Method *self, PyObject *args, PyObject *kw) {
  static char *names[] = {"batch", "inputs", "hidden", "outputs", "seed", NULL};
  Py_ssize_t batch = 64, in = 256, hidden = 512, out = 256;
  unsigned int seed = 11;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|nnnnI", names, &batch, &in,
                                   &hidden, &out, &seed))
    return -1;
  if (batch < 1 || in < 1 || hidden < 1 || out < 1) {
    PyErr_SetString(PyExc_ValueError, "sizes must be >= 1");
    return -1;
  }
  if (self->model != NULL) {
    PyErr_SetString(PyExc_RuntimeError, "already loaded");
    return -1;
  }
  int err;
  Py_BEGIN_ALLOW_THREADS
  pthread_mutex_lock(&self->lock);
  err = method_load(self, batch, in, hidden, out, seed);
  if (err != 0) method_free_parts(self);
  pthread_mutex_unlock(&self->lock);
  Py_END_ALLOW_THREADS
  if (err != 0) {
    errno = -err;
    PyErr_SetFromErrno(PyExc_OSError);
    return -1;
  }
  return 0;
}

static PyObject *Method_new(PyTypeObject *type, PyObject *a, PyObject *k) {
  Method *self = (Method *)type->tp_alloc(type, 0);
  if (self != NULL) pthread_mutex_init(&self->lock, NULL);
  return (PyObject *)self;
}

static void Method_dealloc(Method *self) {
  Py_BEGIN_ALLOW_THREADS
  pthread_mutex_lock(&self->lock);
  method_free_parts(self);
  pthread_mutex_unlock(&self->lock);
  Py_END_ALLOW_THREADS
  pthread_mutex_destroy(&self->lock);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

/* run() -> relative error of the outputs against the reference (inf when
 * the invoke failed or produced NaN). Runs in the method's scope. */
static PyObject *Method_run(Method *self, PyObject *noargs) {
  double error = INFINITY;
  int loaded;
  Py_BEGIN_ALLOW_THREADS
  pthread_mutex_lock(&self->lock);
  loaded = self->rt != NULL;
  if (loaded) {
    size_t n = mlp_output_size(self->model);
    for (size_t i = 0; i < n; i++) self->output[i] = NAN;
    rcupool_scope_enter(rcupool_xnn_runtime_get_pin(self->rt));
    int err = rcupool_xnn_runtime_invoke(self->rt);
    rcupool_scope_exit();
    if (err == 0) error = mlp_relative_error(self->output, self->reference, n);
  }
  pthread_mutex_unlock(&self->lock);
  Py_END_ALLOW_THREADS
  if (!loaded) return PyErr_Format(PyExc_RuntimeError, "method dropped");
  return PyFloat_FromDouble(error);
}

/* drop(): destroys the runtime (unpins its pool). */
static PyObject *Method_drop(Method *self, PyObject *noargs) {
  Py_BEGIN_ALLOW_THREADS
  pthread_mutex_lock(&self->lock);
  method_free_parts(self);
  pthread_mutex_unlock(&self->lock);
  Py_END_ALLOW_THREADS
  Py_RETURN_NONE;
}

/* pool() -> (address, generation, threads) of the pool the method holds. */
static PyObject *Method_pool(Method *self, PyObject *noargs) {
  pthreadpool_t tp = NULL;
  uint64_t gen = 0;
  size_t threads = 0;
  pthread_mutex_lock(&self->lock);
  if (self->rt != NULL) {
    const rcupool_pin_t *pin = rcupool_xnn_runtime_get_pin(self->rt);
    tp = rcupool_pin_pthreadpool(pin);
    gen = rcupool_pin_generation(pin);
    threads = rcupool_pin_threads(pin);
  }
  pthread_mutex_unlock(&self->lock);
  return Py_BuildValue("(KKn)", (unsigned long long)(uintptr_t)tp,
                       (unsigned long long)gen, (Py_ssize_t)threads);
}

static PyMethodDef Method_methods[] = {
    {"run", (PyCFunction)Method_run, METH_NOARGS,
     "run() -> float: invoke with the GIL released; the outputs' relative "
     "error against the double-precision reference."},
    {"drop", (PyCFunction)Method_drop, METH_NOARGS, "drop(): unload."},
    {"pool", (PyCFunction)Method_pool, METH_NOARGS,
     "pool() -> (address, generation, threads) of the method's pool."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject MethodType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "rcupool_sample_xnnpack.Method",
    .tp_basicsize = sizeof(Method),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "An XNNPACK method (256-512-256 perceptron by default) loaded "
              "through rcupool's backend on the current pool.",
    .tp_new = Method_new,
    .tp_init = (initproc)Method_init,
    .tp_dealloc = (destructor)Method_dealloc,
    .tp_methods = Method_methods,
};

static PyMethodDef sxnn_methods[] = {
    {"pool", sample_pool, METH_NOARGS,
     "pool() -> (address, generation, threads) of the current pool."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef sxnn_module = {
    PyModuleDef_HEAD_INIT, "rcupool_sample_xnnpack",
    "A sample extension running XNNPACK through rcupool's shared backend.",
    -1, sxnn_methods,
};

PyMODINIT_FUNC PyInit_rcupool_sample_xnnpack(void) {
  if (PyType_Ready(&MethodType) < 0) return NULL;
  PyObject *m = PyModule_Create(&sxnn_module);
  if (m == NULL) return NULL;
  Py_INCREF(&MethodType);
  if (PyModule_AddObject(m, "Method", (PyObject *)&MethodType) < 0) {
    Py_DECREF(&MethodType);
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
