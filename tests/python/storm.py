# SPDX-License-Identifier: LGPL-2.1-or-later
"""SIGINT storms for the interrupt tests (issue 24): the script prologue
that counts the KeyboardInterrupts raised into the code under test, and
the sender process.

The prologue installs a SIGINT handler that raises KeyboardInterrupt only
while the global ``armed`` is true, and disarms itself before raising: the
test loop sets ``armed = True`` as the first statement inside its ``try``
and ``armed = False`` as the last, so every interrupt raised lands inside
that ``try`` and is counted by its ``except``, unless something between
swallows it (a ctypes callback) or the interpreter dies. ``raised`` counts
the handler's raises; the loop counts what it caught.

The sender is a separate process (signals from a thread of the process
under test would wait for the GIL): it sends SIGINT to the given pid every
period (paced by an interval timer; a tick it wakes up late for is lost,
so on a loaded machine it sends fewer) until the longest duration has
passed or it gets SIGTERM, then prints how many it sent.

A storm lasts until enough interrupts have landed, not for a fixed time:
how many land in a second depends on the machine and its load (20 000 a
second sent and 10 000 raised on a quiet 2-CPU machine; 1 000 sent and 22
raised a second with the test suite running beside it). A test loops
``while storming(sender, raises, min_seconds)`` and asserts that count,
which fails only if the longest duration passed first.
"""

from __future__ import annotations

SENDER = """
import os, signal, sys, time
pid, seconds, period = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
# An interval timer paces the signals (time.sleep would add the thread's
# timer slack, 50 us by default, to every period).
# SIGTERM (end_storm) ends the storm early.
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGALRM, signal.SIGTERM])
signal.setitimer(signal.ITIMER_REAL, period, period)
sent = 0
end = time.monotonic() + seconds
while time.monotonic() < end:
    if signal.sigwait([signal.SIGALRM, signal.SIGTERM]) == signal.SIGTERM:
        break
    try:
        os.kill(pid, signal.SIGINT)
    except ProcessLookupError:
        break
    sent += 1
try:
    print(sent, flush=True)
except BrokenPipeError:  # the process under test died: its test says how
    pass
"""

PROLOGUE = """
import json, os, signal, subprocess, sys, time

armed = False
raised = 0


def on_sigint(signum, frame):
    global armed, raised
    if armed:
        armed = False
        raised += 1
        raise KeyboardInterrupt


signal.signal(signal.SIGINT, on_sigint)


# Starts a sender that storms for at most seconds.
def start_storm(seconds, period=50e-6):
    global storm_start
    storm_start = time.monotonic()
    return subprocess.Popen(
        [sys.executable, "-c", SENDER, str(os.getpid()), str(seconds),
         str(period)], stdout=subprocess.PIPE, text=True)


# True until raises interrupts have been raised and min_seconds have
# passed, or until the sender has stopped (its longest duration passed).
def storming(sender, raises, min_seconds=0.0):
    if sender.poll() is not None:
        return False
    return raised < raises or time.monotonic() - storm_start < min_seconds


# Stops the sender, disarms the handler and returns how many SIGINTs
# were sent; later ones are ignored.
def end_storm(sender):
    global armed
    armed = False
    if sender.poll() is None:
        sender.send_signal(signal.SIGTERM)
    out = sender.communicate()[0]
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    return int(out)
"""


def script(body: str) -> str:
    """A script: the prologue, then body (dedented by the caller)."""
    return f"SENDER = {SENDER!r}\n{PROLOGUE}\n{body}"
