// SPDX-License-Identifier: LGPL-2.1-or-later
// The Python package's calls against an empty Python function call, in one
// run: CPython (Debian's libpython3.11) is embedded here, imports the
// rcupool package (ctypes over librcupool.so.0) and each row calls one
// Python function from C, once per iteration, on the thread that holds the
// GIL.
//
//   BM_Py_EmptyCall                  empty(n): a Python function whose body
//                                    is `pass` (the baseline of every row)
//   BM_Py_GetNumThreads              rcupool.get_num_threads()
//   BM_Py_SetNumThreads/same_size    rcupool.set_num_threads(n), n the
//                                    current size (nothing is published)
//   BM_Py_SetNumThreads/new_size     rcupool.set_num_threads(n), n
//                                    alternating between two sizes: a real
//                                    reset each call; the counters say how
//                                    many calls started a pool (the other
//                                    size's pool may still be alive and be
//                                    reused)
//   BM_Py_SetNumThreads/new_size_kept
//                                    the same while two open
//                                    `rcupool.threads(n)` blocks (models
//                                    loaded on both sizes) keep both pools:
//                                    every call is a reuse, none starts a
//                                    pool
//   BM_Py_ThreadsBlock/current_size  block(n): a Python function whose body
//                                    is an empty `with rcupool.threads(n):`
//                                    block, n the current size
//   BM_Py_ThreadsBlock/warm_size     the same at n + 1, a width nobody
//                                    holds, after a first block (untimed)
//                                    started its pool: the manager keeps it
//                                    warm (warm widths, default settings)
//                                    and every timed block finds it; the
//                                    counter pools_started_per_call says so
//
// n is 2. One calling thread: the GIL serialises Python callers, so more
// calling threads measure the GIL, not rcupool.
//
// The package must be importable: tools/bench.sh lays it out with
// tools/wheel.sh --stage DIR and passes --python_path=DIR (PYTHONPATH works
// too).
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cstdio>
#include <string>

#include <benchmark/benchmark.h>

#include "benchmarks/own_flag.h"

namespace {

constexpr long kThreads = 2;

// Defines the rows' Python functions (the package's own are used as they
// are; `empty` and `block` are defined here).
constexpr const char *kModule = R"(
import rcupool

def empty(n=None):
    pass

def block(n):
    with rcupool.threads(n):
        pass

def pools_created():
    return rcupool.stats().pools_created

_kept = []

def keep_sizes(*sizes):
    for n in sizes:
        block = rcupool.threads(n)
        block.__enter__()
        _kept.append(block)

def release_sizes():
    while _kept:
        _kept.pop().__exit__(None, None, None)
)";

PyObject *g_module = nullptr;  // the module above, set by main()
std::string g_start_error;     // why it could not be set up, if it could not

std::string PyErrorText() {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyObject *s = value != nullptr ? PyObject_Str(value) : nullptr;
  const char *c = s != nullptr ? PyUnicode_AsUTF8(s) : nullptr;
  std::string out = c != nullptr ? c : "unknown Python error";
  Py_XDECREF(s);
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
  PyErr_Clear();
  return out;
}

// A name of the rcupool package (owner "rcupool"), or of the module above
// (owner nullptr). A new reference, nullptr with the Python error set.
PyObject *Function(const char *owner, const char *name) {
  PyObject *o = g_module;
  Py_INCREF(o);
  if (owner != nullptr) {
    Py_DECREF(o);
    o = PyObject_GetAttrString(g_module, owner);
  }
  if (o == nullptr) return nullptr;
  PyObject *f = PyObject_GetAttrString(o, name);
  Py_DECREF(o);
  return f;
}

// Calls fn(n) (fn() when arg is 0) once per iteration, n = kThreads; with
// `alternate`, n alternates between kThreads + 1 and kThreads; with `keep`,
// an open rcupool.threads block of each of the two sizes keeps their pools
// for the whole row; with `other`, n is kThreads + 1, fn(n) is called once
// before the timed loop, and the pools started in the loop are counted.
void CallLoop(benchmark::State &state, const char *owner, const char *name,
              long arg, bool alternate, bool keep = false,
              bool other = false) {
  if (g_module == nullptr) return state.SkipWithError(g_start_error.c_str());
  PyGILState_STATE gil = PyGILState_Ensure();
  PyObject *fn = Function(owner, name);
  PyObject *args[2] = {PyLong_FromLong(kThreads),
                       PyLong_FromLong(kThreads + 1)};
  PyObject *set = Function("rcupool", "set_num_threads");
  PyObject *created = Function(nullptr, "pools_created");
  PyObject *before = nullptr;
  std::string error;
  if (fn == nullptr || set == nullptr || created == nullptr) {
    error = PyErrorText();
  } else {
    // Every row starts from the current size kThreads.
    PyObject *r = PyObject_CallOneArg(set, args[0]);
    if (r != nullptr && keep) {
      Py_DECREF(r);
      PyObject *keep_sizes = Function(nullptr, "keep_sizes");
      r = keep_sizes != nullptr ? PyObject_CallFunctionObjArgs(
                                      keep_sizes, args[0], args[1], nullptr)
                                : nullptr;
      Py_XDECREF(keep_sizes);
    }
    if (r != nullptr && other) {  // the first use, untimed
      Py_DECREF(r);
      r = PyObject_CallOneArg(fn, args[1]);
    }
    before = r != nullptr ? PyObject_CallNoArgs(created) : nullptr;
    Py_XDECREF(r);
    if (before == nullptr) error = PyErrorText();
  }
  size_t i = 0;
  if (error.empty()) {
    for (auto _ : state) {
      PyObject *a = args[alternate ? (++i & 1) : other ? 1 : 0];
      PyObject *r = arg == 0 ? PyObject_CallNoArgs(fn)
                             : PyObject_CallOneArg(fn, a);
      if (r == nullptr) {
        error = PyErrorText();
        break;
      }
      Py_DECREF(r);
    }
  }
  if (error.empty() && (alternate || other)) {
    PyObject *after = PyObject_CallNoArgs(created);
    if (after == nullptr) {
      error = PyErrorText();
    } else {
      state.counters["pools_started_per_call"] =
          static_cast<double>(PyLong_AsLongLong(after) -
                              PyLong_AsLongLong(before)) /
          static_cast<double>(state.iterations());
      Py_DECREF(after);
    }
  }
  if (keep) {
    PyObject *release = Function(nullptr, "release_sizes");
    PyObject *r = release != nullptr ? PyObject_CallNoArgs(release) : nullptr;
    if (r == nullptr && error.empty()) error = PyErrorText();
    Py_XDECREF(r);
    Py_XDECREF(release);
  }
  Py_XDECREF(before);
  Py_XDECREF(created);
  Py_XDECREF(set);
  Py_DECREF(args[0]);
  Py_DECREF(args[1]);
  Py_XDECREF(fn);
  PyGILState_Release(gil);
  if (!error.empty()) state.SkipWithError(error.c_str());
}

void BM_Py_EmptyCall(benchmark::State &state) {
  CallLoop(state, nullptr, "empty", kThreads, false);
}
void BM_Py_GetNumThreads(benchmark::State &state) {
  CallLoop(state, "rcupool", "get_num_threads", 0, false);
}
void BM_Py_SetNumThreads(benchmark::State &state, bool new_size,
                         bool keep) {
  CallLoop(state, "rcupool", "set_num_threads", kThreads, new_size, keep);
}
void BM_Py_ThreadsBlock(benchmark::State &state, bool warm) {
  CallLoop(state, nullptr, "block", kThreads, false, false, warm);
}

BENCHMARK(BM_Py_EmptyCall);
BENCHMARK(BM_Py_GetNumThreads);
BENCHMARK_CAPTURE(BM_Py_SetNumThreads, same_size, false, false);
BENCHMARK_CAPTURE(BM_Py_SetNumThreads, new_size, true, false);
BENCHMARK_CAPTURE(BM_Py_SetNumThreads, new_size_kept, true, true);
BENCHMARK_CAPTURE(BM_Py_ThreadsBlock, current_size, false);
BENCHMARK_CAPTURE(BM_Py_ThreadsBlock, warm_size, true);

// Starts CPython, puts `path` (may be empty) first on sys.path and runs
// kModule as __main__. On failure g_module stays nullptr, every row is
// skipped with the error, and the error is printed.
void StartPython(const std::string &path) {
  Py_InitializeEx(0);
  PyObject *sys_path = PySys_GetObject("path");  // borrowed
  PyObject *dir = PyUnicode_FromString(path.c_str());
  bool ok = path.empty() || (sys_path != nullptr && dir != nullptr &&
                             PyList_Insert(sys_path, 0, dir) == 0);
  Py_XDECREF(dir);
  PyObject *main_module = PyImport_AddModule("__main__");  // borrowed
  PyObject *globals = main_module != nullptr ? PyModule_GetDict(main_module)
                                             : nullptr;
  PyObject *r = ok && globals != nullptr
                    ? PyRun_String(kModule, Py_file_input, globals, globals)
                    : nullptr;
  if (r == nullptr) {
    g_start_error = "cannot import rcupool (--python_path?): " + PyErrorText();
    std::fprintf(stderr, "python_bench: %s\n", g_start_error.c_str());
    return;
  }
  Py_DECREF(r);
  g_module = main_module;
}

}  // namespace

int main(int argc, char **argv) {
  const char *path = rcupool_bench::TakeFlag(&argc, argv, "--python_path=");
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  StartPython(path != nullptr ? path : "");
  // The benchmarks take the GIL themselves, on whichever thread runs them.
  PyThreadState *main_thread = PyEval_SaveThread();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  PyEval_RestoreThread(main_thread);
  return Py_FinalizeEx() < 0 ? 1 : 0;
}
