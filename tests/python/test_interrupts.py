# SPDX-License-Identifier: LGPL-2.1-or-later
"""A SIGINT every 50 us against rcupool.threads() blocks and
set_num_threads() (issue 24), for at least 10 s and until 1000 interrupts
have landed (at most 60 s; storm.py): the interpreter never aborts, every
KeyboardInterrupt raised reaches the code that was interrupted (none is
swallowed in a callback), and no pin or scope is left behind."""

from __future__ import annotations

import json

import storm
from conftest import run_python

STORM = """
import logging, threading
import rcupool
from test_log import Unlocked
handler = Unlocked()
logging.getLogger("rcupool").addHandler(handler)
logging.getLogger("rcupool").setLevel(logging.DEBUG)
sender = start_storm(SECONDS)
caught = blocks = resets = i = 0
while storming(sender, 1000, 10):
    i += 1
    try:
        armed = True
        with rcupool.threads(1 + i % 3) as t:
            assert t.pool_threads == 1 + i % 3
            blocks += 1
            with rcupool.threads(2):
                rcupool.set_num_threads(1 + i % 4)
                resets += 1
        rcupool.set_num_threads(1 + (i + 1) % 4)
        resets += 1
        armed = False
    except KeyboardInterrupt:
        caught += 1
elapsed = time.monotonic() - storm_start
sent = end_storm(sender)
rcupool.barrier()
s = rcupool.stats()
print(json.dumps(dict(seconds=round(elapsed, 2), sent=sent, raised=raised,
                      caught=caught, blocks=blocks, resets=resets,
                      pins=s.pins, records=handler.count,
                      log_dropped=s.log_dropped)))
"""


def test_sigint_every_50us_for_10s_every_interrupt_reaches_python_no_abort_no_pin(sample_dir):
    out = run_python(storm.script(STORM.replace("SECONDS", "60")), sample_dir,
                     timeout=150)
    assert out.returncode == 0, (out.returncode, out.stderr[-2000:])
    assert "Exception ignored" not in out.stderr, out.stderr[-2000:]
    got = json.loads(out.stdout.splitlines()[-1])
    print(got)  # the numbers, for the report (pytest -s)
    assert got["seconds"] >= 9.5, got
    assert got["raised"] >= 1000, got
    assert got["caught"] == got["raised"], got
    assert got["blocks"] > 0 and got["resets"] > 0, got
    assert got["pins"] == 0, got
