"""The library's log on the "rcupool" logger (issue 13, must-show 7), from
library threads, without deadlock at interpreter exit or across fork."""

from __future__ import annotations

import logging
import re
import threading

import pytest

import rcupool
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
        assert "(2 threads) kept: 1 pins" in kept[0].getMessage()
        # Logged by liburcu's reclaim thread, not by this one.
        assert kept[0].thread != threading.get_ident()
    finally:
        sample_parallel.unload(1)
    rcupool.barrier()
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

# A pool retired while nothing pins it: freed, and logged, by the reclaim
# thread.
rcupool.set_num_threads(7)
rcupool.set_num_threads(6)
rcupool.barrier()
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
    # the reclaim thread did log (on a thread Python did not start)
    assert re.search(r"^Dummy-\d+ manager \S+: free pool \S+ \(7 threads\)",
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
