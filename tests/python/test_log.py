# SPDX-License-Identifier: LGPL-2.1-or-later
"""The library's log on the "rcupool" logger (issue 13, must-show 7), from
library threads, without deadlock at interpreter exit or across fork. Since
issue 23 the package pulls the records: they reach the logger at the end
of a call of the package, on the calling thread."""

from __future__ import annotations

import json
import logging
import re
import subprocess
import threading
import time

import pytest

import rcupool
import storm
from conftest import (run_python, skip_fork_under_tsan,
                      skip_fork_while_allocating_under_asan)


class Records(logging.Handler):
    def __init__(self):
        super().__init__(level=logging.DEBUG)
        self.records: list[logging.LogRecord] = []
        self.mu = threading.Lock()

    def emit(self, record):
        with self.mu:
            self.records.append(record)

    def matching(self, text):
        with self.mu:
            return [r for r in self.records if text in r.getMessage()]


@pytest.fixture
def records():
    logger = logging.getLogger("rcupool")
    handler = Records()
    old_level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    yield handler
    logger.removeHandler(handler)
    logger.setLevel(old_level)


def test_reset_under_pinning_method_logs_kept_at_info_from_reclaim_thread(
        records, sample_parallel):
    rcupool.set_num_threads(2)
    sample_parallel.load(1)
    try:
        rcupool.set_num_threads(3)
        rcupool.barrier()  # the grace period is over: the callback ran
        kept = records.matching("kept")
        assert len(kept) == 1
        assert kept[0].levelno == logging.INFO
        assert kept[0].name == "rcupool"
        assert kept[0].getMessage().endswith("(2 threads) kept: 1 pin")
        # Made on liburcu's reclaim thread, emitted at the end of barrier()
        # by this one.
        assert kept[0].thread == threading.get_ident()
    finally:
        sample_parallel.unload(1)
    rcupool.trim()  # a barrier would leave the 2-thread width warm
    assert records.matching("no pins") or records.matching("free pool")


def test_reset_logs_publish_and_retire_at_debug(records):
    rcupool.set_num_threads(2)
    rcupool.set_num_threads(5)
    msgs = [(r.levelno, r.getMessage()) for r in records.records]
    assert any(lvl == logging.DEBUG and "publish pool" in m and "(5 threads)" in m
               for lvl, m in msgs)
    assert any(lvl == logging.DEBUG and "retire pool" in m for lvl, m in msgs)


def test_library_warning_maps_to_warning_level(records, sample_parallel):
    sample_parallel.unload(7)  # an empty pin: a logged no-op
    # Made by the extension's call; emitted at the next call of the package.
    assert not records.matching("unpin")
    rcupool.get_num_threads()
    warn = records.matching("unpin")
    assert warn and warn[0].levelno == logging.WARNING


def test_logger_level_filters_records(records):
    logging.getLogger("rcupool").setLevel(logging.INFO)
    rcupool.set_num_threads(2)
    rcupool.set_num_threads(4)
    rcupool.barrier()
    assert not records.matching("publish pool")


# A script whose threads keep the library logging, from Python threads, the
# pool threads and the reclaim thread, at the moment the interpreter exits.
CHURN = """
import logging, sys, threading, os
logging.basicConfig(level=logging.DEBUG, stream=sys.stdout,
                    format="%(threadName)s %(message)s")
import rcupool, rcupool_sample_parallel as ext

def churn(slot):
    i = 0
    while True:
        i += 1
        ext.load(slot)
        rcupool.set_num_threads(1 + i % 4)
        ext.unload(slot)

# A pool retired while nothing pins it: kept warm, freed by trim() on the
# reclaim thread, its record emitted at the end of trim(), on this thread.
rcupool.set_num_threads(7)
rcupool.set_num_threads(6)
rcupool.trim()
for slot in range(3):
    threading.Thread(target=churn, args=(slot,), daemon=True).start()
import time; time.sleep(0.3)
print("exiting", flush=True)
"""


@pytest.mark.parametrize("round_", range(5))
def test_interpreter_exit_while_library_threads_log_neither_hangs_nor_crashes(
        sample_dir, round_):
    out = run_python(CHURN, sample_dir, timeout=60)
    assert out.returncode == 0, (out.returncode, out.stderr[-2000:])
    assert "exiting" in out.stdout, out.stdout[-2000:]
    # the reclaim thread's record, emitted by the caller of trim()
    assert re.search(r"^MainThread manager \S+: free pool \S+ \(7 threads\)",
                     out.stdout, re.M), out.stdout[-2000:]


FORKS = """
import logging, os, sys, threading, time
logging.basicConfig(level=logging.DEBUG, stream=sys.stderr)
import rcupool, rcupool_sample_parallel as ext

stop = False
def churn(slot):
    i = 0
    while not stop:
        i += 1
        ext.load(slot)
        rcupool.set_num_threads(1 + i % 3)
        ext.unload(slot)
threads = [threading.Thread(target=churn, args=(s,)) for s in range(2)]
for t in threads: t.start()

for k in range(20):
    pid = os.fork()
    if pid == 0:
        rcupool.set_num_threads(2)
        logging.getLogger("rcupool").info("child %d", k)
        os._exit(0 if ext.run(2) == 2 else 3)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, status
stop = True
for t in threads: t.join()
print("forks ok", flush=True)
"""


@skip_fork_under_tsan
@skip_fork_while_allocating_under_asan
def test_fork_while_library_threads_log_neither_parent_nor_child_hangs(sample_dir):
    out = run_python(FORKS, sample_dir, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "forks ok" in out.stdout


class NoLock:
    """A handler lock that locks nothing: logging takes it with
    acquire()/release() (CPython 3.11) or `with` (3.14, which also needs it
    to be a context manager, where None, as before, raised TypeError)."""

    def acquire(self, *args):
        return True

    def release(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def _at_fork_reinit(self):
        pass


class Unlocked(logging.Handler):
    """Counts records without a real handler lock: an interrupt raised
    between taking the lock and the handler's own bookkeeping would leave
    that lock held for ever, a hazard of logging itself that these tests do
    not measure."""

    def __init__(self):
        super().__init__(level=logging.DEBUG)
        self.count = 0

    def createLock(self):
        self.lock = NoLock()

    def emit(self, record):
        self.count += 1


# Ctrl-C while set_num_threads() runs and another thread keeps the library
# logging (issue 24): the interrupt fired inside the ctypes log callback,
# which printed "Exception ignored on calling ctypes callback function" and
# dropped it; the caller never saw it.
CTRL_C = """
import logging, threading
import rcupool
from test_log import Unlocked
handler = Unlocked()
logging.getLogger("rcupool").addHandler(handler)
logging.getLogger("rcupool").setLevel(logging.DEBUG)
stop = False
def churn():
    i = 0
    while not stop:
        i += 1
        rcupool.set_num_threads(1 + i % 3)
t = threading.Thread(target=churn)
t.start()
sender = start_storm(SECONDS, PERIOD)
caught = calls = 0
while storming(sender, 20, 2):
    calls += 1
    try:
        armed = True
        rcupool.set_num_threads(1 + calls % 4)
        armed = False
    except KeyboardInterrupt:
        caught += 1
sent = end_storm(sender)
stop = True
t.join()
print(json.dumps(dict(sent=sent, raised=raised, caught=caught, calls=calls,
                      records=handler.count)))
"""


def test_ctrl_c_during_set_num_threads_with_churn_reaches_the_caller(sample_dir):
    code = storm.script(CTRL_C.replace("SECONDS", "60").replace("PERIOD", "200e-6"))
    out = run_python(code, sample_dir, timeout=120)
    assert out.returncode == 0, (out.returncode, out.stderr[-2000:])
    assert "Exception ignored" not in out.stderr, out.stderr[-2000:]
    got = json.loads(out.stdout.splitlines()[-1])
    print(got)
    assert got["raised"] >= 20, got
    assert got["caught"] == got["raised"], got
    assert got["records"] > 0, got


def freed_7(records):
    return [r for r in records.matching("free pool") if "(7 threads)" in r.getMessage()]


def pools_alive_without_the_package() -> int:
    """stats' pools_alive read through ctypes, so that no call of the package
    (which would hand the log over) runs meanwhile."""
    import ctypes
    from rcupool import _native
    buf = ctypes.create_string_buffer(1024)  # room for any later fields
    assert _native.lib.rcupool_get_stats(
        _native.lib.rcupool_default(),
        ctypes.cast(buf, ctypes.POINTER(_native.StatsStruct))) == 0
    return int(_native.StatsStruct.from_buffer_copy(buf).pools_alive)


def test_record_of_the_reclaim_thread_reaches_the_logger_at_the_next_call(
        records, sample_parallel):
    rcupool.set_num_threads(7)
    sample_parallel.load(2)  # an extension's pin on the 7-thread pool
    rcupool.set_num_threads(6)
    # The extension lets go: the pool is freed on liburcu's reclaim thread,
    # while this thread makes no call of the package.
    sample_parallel.unload(2)
    deadline = time.monotonic() + 10
    while pools_alive_without_the_package() > 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert pools_alive_without_the_package() == 1
    assert not freed_7(records)
    rcupool.get_num_threads()
    freed = freed_7(records)
    assert len(freed) == 1
    assert freed[0].levelno == logging.DEBUG
    # Emitted by the caller of the package, not by the reclaim thread.
    assert freed[0].thread == threading.get_ident()


# A logging handler of the "rcupool" logger that forks (issue 23): the hook
# ran on liburcu's reclaim thread holding the GIL, and fork's prepare
# handler waited for that very thread: the parent hung.
FORK_IN_HANDLER = """
import logging, os, sys
import rcupool

class Forker(logging.Handler):
    forks = 0
    def emit(self, record):
        if Forker.forks >= 5:
            return
        Forker.forks += 1
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0

logging.getLogger("rcupool").addHandler(Forker())
logging.getLogger("rcupool").setLevel(logging.DEBUG)
for n in (3, 4, 3, 4, 2):
    rcupool.set_num_threads(n)
    rcupool.barrier()
print("forks", Forker.forks, flush=True)
"""


@skip_fork_under_tsan
def test_fork_inside_a_handler_of_the_rcupool_logger_never_hangs(sample_dir):
    try:
        out = run_python(FORK_IN_HANDLER, sample_dir, timeout=60)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"hung: {e.stderr[-2000:] if e.stderr else ''}")
    assert out.returncode == 0, (out.returncode, out.stderr[-2000:])
    assert "forks 5" in out.stdout


# os.fork() while another thread writes a record of the "rcupool" logger
# (a CPython hazard, cpython#72568): the writer holds the stream's buffer
# lock (here for 2 ms a write, the raw write sleeps) and the child inherits
# it held; its first record on that stream waited for ever. The package's
# fork handler keeps forks out of its drains.
FORK_WHILE_EMITTING = """
import io, logging, os, threading, time
import rcupool

class SlowRaw(io.RawIOBase):
    def writable(self):
        return True
    def write(self, b):
        time.sleep(0.002)  # inside BufferedWriter's lock, GIL released
        return len(b)

stream = io.TextIOWrapper(io.BufferedWriter(SlowRaw(), buffer_size=16),
                          write_through=True)
logging.getLogger("rcupool").addHandler(logging.StreamHandler(stream))
logging.getLogger("rcupool").setLevel(logging.DEBUG)
stop = False
def churn():
    i = 0
    while not stop:
        i += 1
        rcupool.set_num_threads(1 + i % 3)
t = threading.Thread(target=churn)
t.start()
try:
    for k in range(20):
        time.sleep(0.003)
        pid = os.fork()
        if pid == 0:
            logging.getLogger("rcupool").warning("child %d", k)
            os._exit(0)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0, status
finally:
    stop = True
    t.join()
print("forks ok", flush=True)
"""


@skip_fork_under_tsan
def test_fork_while_another_thread_writes_a_record_child_can_write_its_own(sample_dir):
    try:
        out = run_python(FORK_WHILE_EMITTING, sample_dir, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("a child hung in its first record")
    assert out.returncode == 0, (out.returncode, out.stderr[-2000:])
    assert "forks ok" in out.stdout


def test_default_size_record_reaches_logging_configured_after_import(sample_dir):
    r = run_python("""
        import logging, sys
        import rcupool
        logging.basicConfig(level=logging.INFO, stream=sys.stdout,
                            format="%(levelname)s %(name)s %(message)s")
        rcupool.get_num_threads()   # the next call of the package emits
        rcupool.get_num_threads()   # and only once
    """, sample_dir, env={"RCUPOOL_NUM_THREADS": "2"})
    assert r.returncode == 0, r.stderr
    lines = [l for l in r.stdout.splitlines() if "default size" in l]
    assert lines == ["INFO rcupool default size 2 threads: RCUPOOL_NUM_THREADS=2"]


def test_import_records_below_the_configured_level_stay_out(sample_dir):
    r = run_python("""
        import logging, sys
        import rcupool
        logging.basicConfig(level=logging.WARNING, stream=sys.stdout,
                            format="%(levelname)s %(name)s %(message)s")
        rcupool.get_num_threads()
        logging.getLogger().setLevel(logging.INFO)
        rcupool.get_num_threads()   # enabled now: the import's record comes
    """, sample_dir)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len([l for l in lines if "default size" in l]) == 1, r.stdout
    assert all(l.startswith("INFO rcupool") for l in lines), r.stdout
