/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcupool._scope: the C half of rcupool.threads (private).
 *
 * `with rcupool.threads(n):` pins a pool of n threads and enters its scope
 * on the calling thread; leaving the block leaves the scope and unpins. In
 * Python, an asynchronous exception (KeyboardInterrupt from a signal
 * handler) is raised at the next check of the interpreter's eval breaker,
 * and there is one right after every call returns inside a Python-level
 * __enter__ or __exit__: an interrupt landing between the pin and the
 * bookkeeping leaked the pin and left the library's scope stack one entry
 * deeper, and the 17th such leak aborted the process. Here __enter__ and
 * __exit__ are C methods of the base class Scope. The `with` statement
 * calls them without a Python frame, so no eval-breaker check runs inside
 * either; CPython 3.11 (BEFORE_WITH) protects the block from the
 * instruction after __enter__'s return, so an interrupt that lands after
 * __enter__ returns lands in the block and __exit__ runs. CPython 3.14
 * calls __enter__ through a plain CALL whose eval-breaker check comes
 * before the protected range: an interrupt there leaks the block, and the
 * next entry or exit on the thread releases it (SCOPE-6).
 *
 * Invariants kept here:
 *   SCOPE-1. `stack` (per thread) lists this thread's open blocks, innermost
 *       last: each entry's pin is pinned and the library's scope stack holds
 *       its address, in the same order. An entry is pushed in the same C
 *       call that pinned and entered (after both succeeded), and popped in
 *       the same C call that leaves the scope and unpins; no Python code
 *       runs between those steps.
 *   SCOPE-2. `stack` lives in this module's thread-local storage, which a
 *       reload of the rcupool package does not touch (the extension is
 *       loaded once per process): its depth counts every block this module
 *       opened on the thread, whichever class object opened it. The depth
 *       is checked before pinning, so the library's limit
 *       (RCUPOOL_SCOPE_MAX_DEPTH, abort beyond) is never reached through
 *       this module alone. Scopes entered by other C code on the same
 *       thread are not counted (the library has no depth getter).
 *   SCOPE-3. An entry holds a strong reference to the object that opened
 *       it, so the object's address is never reused while the block is
 *       open. A thread that ends with blocks open keeps their pins and
 *       references for ever (as a C thread that never unpins).
 *   SCOPE-4. The pin, scope and unpin calls run with the GIL released (the
 *       pin may start threads). The hook set by set_drain() (the package's
 *       log drain, which also hands the library the logger's level) runs
 *       with the GIL held, never between the steps of a change: in
 *       __enter__ before the pin and after the scope entry, in __exit__
 *       after the unpin. If it raises after the entry, the block is undone
 *       (scope left, pool unpinned) before the exception reaches the
 *       caller, so __enter__ either opens a block and returns, or raises
 *       with nothing open; if it raises in __exit__, the block is already
 *       left.
 *   SCOPE-5. Blocks left out of order are released, never leaked. The
 *       library leaves scopes innermost first, and two asyncio tasks on one
 *       event-loop thread that each hold a block across an `await` leave
 *       them out of order. Such an __exit__ raises RuntimeError and marks
 *       its entry `abandoned` (its owner has left it: pool_threads is 0 and
 *       a second __exit__ finds it not open); every pop then also pops the
 *       abandoned entries that became innermost, so the entry's scope is
 *       left and its pool unpinned as soon as the blocks entered after it
 *       are left. The innermost entry is never abandoned.
 *   SCOPE-6. A block whose owner nothing but its entry references can never
 *       be left (__exit__ is called on an object), so it is released: every
 *       __enter__ and __exit__ first marks such entries abandoned and pops
 *       the abandoned ones that are innermost (SCOPE-5). A `with` holds its
 *       object (the bound __exit__ on the frame's stack) until __exit__ has
 *       run, so an open block's owner has two references at least; one
 *       that has a single one was leaked by an interrupt that landed after
 *       __enter__ returned and before the block's handler (CPython 3.14,
 *       above; CPython's gh-148874, fixed in 3.15) and unwound the frame's
 *       stack. A weak reference does not count: a block left only through
 *       one may be released first, and its __exit__ then raises
 *       RuntimeError (not open) without releasing anything twice.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <string.h>

#include <rcupool/rcupool.h>

struct block {
  PyObject *owner; /* strong reference (SCOPE-3) */
  bool abandoned;  /* left out of order; popped once innermost (SCOPE-5) */
  rcupool_pin_t pin;
};

struct block_stack {
  unsigned depth;
  struct block blocks[RCUPOOL_SCOPE_MAX_DEPTH];
};

/* Written and read only by its own thread, with the GIL held (SCOPE-1). */
static __thread struct block_stack stack;

/* NULL or a callable of no arguments. Written with the GIL held. */
static PyObject *drain_hook;

static int run_drain(void) {
  if (drain_hook == NULL) return 0;
  PyObject *r = PyObject_CallNoArgs(drain_hook);
  if (r == NULL) return -1;
  Py_DECREF(r);
  return 0;
}

/* OSError(code, text), which is the subclass Python picks for the errno
 * (BlockingIOError for EAGAIN), as in Python. Steals text. */
static void raise_os_error(int code, PyObject *text) {
  if (text == NULL) return;
  PyObject *e = PyObject_CallFunction(PyExc_OSError, "iO", code, text);
  Py_DECREF(text);
  if (e == NULL) return;
  PyErr_SetObject((PyObject *)Py_TYPE(e), e);
  Py_DECREF(e);
}

/* self.n as a thread count in 1..RCUPOOL_MAX_THREADS; 0 with an exception
 * set otherwise. */
static size_t thread_count(PyObject *self) {
  PyObject *v = PyObject_GetAttrString(self, "n");
  if (v == NULL) return 0;
  Py_ssize_t n = PyNumber_AsSsize_t(v, PyExc_OverflowError);
  Py_DECREF(v);
  if (n == -1 && PyErr_Occurred()) return 0;
  if (n < 1 || n > RCUPOOL_MAX_THREADS) {
    PyErr_Format(PyExc_ValueError, "thread count must be in 1..%d, not %zd",
                 RCUPOOL_MAX_THREADS, n);
    return 0;
  }
  return (size_t)n;
}

/* Pops the innermost entry and releases it. GIL held. */
static void pop_block(void) {
  struct block *b = &stack.blocks[--stack.depth];
  PyObject *owner = b->owner;
  b->owner = NULL;
  b->abandoned = false;
  Py_BEGIN_ALLOW_THREADS
  rcupool_scope_exit();
  rcupool_unpin(&b->pin);
  Py_END_ALLOW_THREADS
  Py_DECREF(owner);
}

/* SCOPE-6: releases the blocks nobody can leave any more. GIL held. */
static void reap_unreachable(void) {
  for (unsigned i = 0; i < stack.depth; i++)
    if (Py_REFCNT(stack.blocks[i].owner) == 1) stack.blocks[i].abandoned = true;
  while (stack.depth > 0 && stack.blocks[stack.depth - 1].abandoned)
    pop_block();
}

/* The object's `placement` (None or absent: the manager's) into *pl;
 * *placed tells which. 0 or -1 with an exception set. GIL held. */
static int placement_of(PyObject *self, rcupool_placement_t *pl, bool *placed) {
  *placed = false;
  if (!PyObject_HasAttrString(self, "placement")) return 0;
  PyObject *v = PyObject_GetAttrString(self, "placement");
  if (v == NULL) return -1;
  int rc = 0;
  if (v != Py_None) {
    const char *text = PyUnicode_AsUTF8(v);
    if (text == NULL) {
      rc = -1;
    } else if (rcupool_placement_parse(text, pl) != 0) {
      PyErr_Format(PyExc_ValueError, "not a placement: %R", v);
      rc = -1;
    } else {
      *placed = true;
    }
  }
  Py_DECREF(v);
  return rc;
}

static PyObject *scope_enter(PyObject *self, PyObject *unused) {
  (void)unused;
  size_t n = thread_count(self);
  if (n == 0) return NULL;
  rcupool_placement_t pl;
  bool placed;
  if (placement_of(self, &pl, &placed) < 0) return NULL;
  /* Before: records queued elsewhere, and the logger's level for the
   * records of this entry. Nothing is open yet if it raises. (It runs
   * logging handlers, which could open blocks: the depth is read after.) */
  if (run_drain() < 0) return NULL;
  reap_unreachable();
  if (stack.depth >= RCUPOOL_SCOPE_MAX_DEPTH) {
    PyErr_Format(PyExc_RuntimeError,
                 "rcupool.threads blocks nested deeper than %d on one thread",
                 RCUPOOL_SCOPE_MAX_DEPTH);
    return NULL;
  }
  unsigned index = stack.depth;
  struct block *b = &stack.blocks[index];
  memset(&b->pin, 0, sizeof b->pin);
  rcupool_t *m;
  int err = 0;
  Py_BEGIN_ALLOW_THREADS
  m = rcupool_default();
  if (m != NULL) {
    err = placed ? rcupool_pin_placed(m, n, &pl, &b->pin)
                 : rcupool_pin_sized(m, n, &b->pin);
    if (err == 0) rcupool_scope_enter(&b->pin);
  }
  Py_END_ALLOW_THREADS
  if (m == NULL || err != 0) {
    /* Nothing is open. The log says why; then the error. */
    if (run_drain() < 0) return NULL;
    if (m == NULL) /* the first creation failed; a later call tries again */
      raise_os_error(
          EAGAIN,
          PyUnicode_FromString("rcupool: cannot create the process-wide pool"));
    else
      raise_os_error(-err, PyUnicode_FromFormat("%s(%zu): %s",
                                                placed ? "rcupool_pin_placed"
                                                       : "rcupool_pin_sized",
                                                n, strerror(-err)));
    return NULL;
  }
  Py_INCREF(self);
  b->owner = self;
  stack.depth++;
  if (run_drain() < 0) {
    /* SCOPE-4: undo, keeping the drain's exception. Unless a handler left
     * a block of its own open above this one: the library leaves scopes
     * innermost first only, so this block then stays open (a leak, never
     * a broken scope stack). */
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    if (stack.depth == index + 1) pop_block();
    PyErr_Restore(type, value, tb);
    return NULL;
  }
  return Py_NewRef(self);
}

static PyObject *scope_exit(PyObject *self, PyObject *args) {
  (void)args; /* exc_type, exc, tb: an exception of the block propagates */
  reap_unreachable(); /* never this block's entry: self is referenced */
  unsigned depth = stack.depth;
  unsigned mine = depth; /* this object's innermost open entry */
  for (unsigned i = depth; i-- > 0;)
    if (stack.blocks[i].owner == self && !stack.blocks[i].abandoned) {
      mine = i;
      break;
    }
  if (mine == depth) {
    PyErr_SetString(PyExc_RuntimeError,
                    "rcupool.threads block left on another thread than the "
                    "one that entered it");
    return NULL;
  }
  if (mine != depth - 1) {
    /* SCOPE-5: left for its owner; released once innermost. */
    stack.blocks[mine].abandoned = true;
    PyErr_SetString(PyExc_RuntimeError,
                    "rcupool.threads blocks left out of order: a block "
                    "entered later on this thread is still open (asyncio "
                    "tasks sharing the thread?); this block's pool is "
                    "released when that one is left");
    return NULL;
  }
  pop_block();
  while (stack.depth > 0 && stack.blocks[stack.depth - 1].abandoned)
    pop_block();
  if (run_drain() < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject *scope_pool_threads(PyObject *self, void *unused) {
  (void)unused;
  for (unsigned i = stack.depth; i-- > 0;)
    if (stack.blocks[i].owner == self && !stack.blocks[i].abandoned)
      return PyLong_FromSize_t(rcupool_pin_threads(&stack.blocks[i].pin));
  return PyLong_FromLong(0);
}

static PyObject *innermost_threads(PyObject *module, PyObject *unused) {
  (void)module;
  (void)unused;
  if (stack.depth == 0) return PyLong_FromLong(0);
  /* Never abandoned (SCOPE-5). */
  return PyLong_FromSize_t(
      rcupool_pin_threads(&stack.blocks[stack.depth - 1].pin));
}

static PyMethodDef scope_methods[] = {
    {"__enter__", scope_enter, METH_NOARGS,
     "Pins a pool of self.n threads and enters its scope on this thread, "
     "in one step; returns self."},
    {"__exit__", scope_exit, METH_VARARGS,
     "Leaves this thread's innermost scope and unpins its pool, in one "
     "step; never suppresses an exception of the block."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef scope_getset[] = {
    {"pool_threads", scope_pool_threads, NULL,
     "The thread count of this thread's innermost open block of this object "
     "(n), 0 when none is open.",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject ScopeType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "rcupool._scope.Scope",
    .tp_doc = "The base of rcupool.threads: __enter__ and __exit__ in C. A "
              "subclass sets self.n.",
    .tp_basicsize = sizeof(PyObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_new = PyType_GenericNew,
    .tp_methods = scope_methods,
    .tp_getset = scope_getset,
};

static PyObject *set_drain(PyObject *module, PyObject *fn) {
  (void)module;
  if (fn != Py_None && !PyCallable_Check(fn)) {
    PyErr_SetString(PyExc_TypeError, "set_drain: a callable or None");
    return NULL;
  }
  Py_XSETREF(drain_hook, fn == Py_None ? NULL : Py_NewRef(fn));
  Py_RETURN_NONE;
}

static PyObject *depth(PyObject *module, PyObject *unused) {
  (void)module;
  (void)unused;
  return PyLong_FromUnsignedLong(stack.depth);
}

/* The second step of call_in_block and call_locked: runs undo(arg) with
 * fn's exception, if any, held, then returns fn's result (stolen) with its
 * exception restored; if undo raises, its exception replaces fn's, as an
 * exception of __exit__ does in a `with`. */
static PyObject *finish(PyObject *result, PyObject *(*undo)(PyObject *),
                        PyObject *arg) {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyObject *r = undo(arg);
  if (r == NULL) {
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    Py_XDECREF(result);
    return NULL;
  }
  Py_DECREF(r);
  PyErr_Restore(type, value, tb);
  return result;
}

static PyObject *leave_block(PyObject *block) {
  PyObject *no_exc = PyTuple_Pack(3, Py_None, Py_None, Py_None);
  if (no_exc == NULL) return NULL;
  PyObject *r = scope_exit(block, no_exc);
  Py_DECREF(no_exc);
  return r;
}

/* Raises if the lock is not held (fn released it). */
static PyObject *release_lock(PyObject *lock) {
  return PyObject_CallMethod(lock, "release", NULL);
}

/* call_in_block(block, fn, args, kwargs): `with block: return fn(*args,
 * **kwargs)` in one C call (the decorator form of rcupool.threads). The
 * with statement's object is referenced by the decorator, so a block lost
 * to an interrupt between __enter__'s return and the body (CPython 3.14)
 * would not be found by SCOPE-6; here no eval-breaker check runs between
 * the entry and fn's first instruction, nor between its return and the
 * exit. As with `with`, an exception of the exit replaces fn's. */
static PyObject *call_in_block(PyObject *module, PyObject *const *args,
                               Py_ssize_t nargs) {
  (void)module;
  if (nargs != 4 || !PyObject_TypeCheck(args[0], &ScopeType) ||
      !PyTuple_Check(args[2]) ||
      (args[3] != Py_None && !PyDict_Check(args[3]))) {
    PyErr_SetString(
        PyExc_TypeError,
        "call_in_block(block, fn, args tuple, kwargs dict or None)");
    return NULL;
  }
  PyObject *entered = scope_enter(args[0], NULL);
  if (entered == NULL) return NULL;
  Py_DECREF(entered);
  return finish(
      PyObject_Call(args[1], args[2], args[3] == Py_None ? NULL : args[3]),
      leave_block, args[0]);
}

/* call_locked(lock, fn): lock.acquire(), fn(), lock.release() in one C
 * call, the release also when fn raises. No eval-breaker check runs between
 * the acquire's return and fn's first instruction, nor between fn's return
 * and the release, so an interrupt cannot leave the lock held: `with lock:`
 * can on CPython 3.14 (gh-148874: __exit__ skipped after __enter__
 * returned). An acquire interrupted while it waits raises with nothing
 * held. Returns fn's result. */
static PyObject *call_locked(PyObject *module, PyObject *const *args,
                             Py_ssize_t nargs) {
  (void)module;
  if (nargs != 2) {
    PyErr_SetString(PyExc_TypeError, "call_locked(lock, fn): two arguments");
    return NULL;
  }
  PyObject *r = PyObject_CallMethod(args[0], "acquire", NULL);
  if (r == NULL) return NULL;
  Py_DECREF(r);
  return finish(PyObject_CallNoArgs(args[1]), release_lock, args[0]);
}

static PyMethodDef module_methods[] = {
    {"set_drain", set_drain, METH_O,
     "Sets the callable run before and after every block's entry and after "
     "its exit (None: none)."},
    {"call_in_block", (PyCFunction)(void (*)(void))call_in_block, METH_FASTCALL,
     "`with block: return fn(*args, **kwargs)` in one C call: no interrupt "
     "can leave the block open (`with` can on CPython 3.14)."},
    {"call_locked", (PyCFunction)(void (*)(void))call_locked, METH_FASTCALL,
     "lock.acquire(), fn(), lock.release() in one C call: no interrupt can "
     "leave the lock held (`with lock:` can on CPython 3.14)."},
    {"depth", depth, METH_NOARGS,
     "The number of blocks open on this thread (SCOPE-2)."},
    {"innermost_threads", innermost_threads, METH_NOARGS,
     "The thread count of this thread's innermost open block, 0 when none "
     "is open."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "rcupool._scope",
    .m_doc = "The C half of rcupool.threads (private).",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__scope(void) {
  if (PyType_Ready(&ScopeType) < 0) return NULL;
  PyObject *m = PyModule_Create(&module_def);
  if (m == NULL) return NULL;
  if (PyModule_AddObjectRef(m, "Scope", (PyObject *)&ScopeType) < 0 ||
      PyModule_AddIntConstant(m, "MAX_DEPTH", RCUPOOL_SCOPE_MAX_DEPTH) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
