#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""An application started while no service runs goes on normally, waits
for the service passively (a futex on <rundir>/wait, no polling: it does
not wake up at all), and registers as soon as the service appears; a
session started afterwards records it. The application never waits for a
service that is not there."""

import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, check, log, run, wait_for
from tracelib import read_trace


def context_switches(pid):
    """Voluntary context switches of all threads of pid."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/status") as f:
            for line in f:
                if line.startswith("voluntary_ctxt_switches:"):
                    total += int(line.split()[1])
    return total


def stable_count(pid, sample_s=0.2, timeout_s=10):
    """Waits until pid's context switches stay the same over two intervals
    of sample_s in a row: its threads have reached their waits."""
    deadline = time.monotonic() + timeout_s
    previous, unchanged = context_switches(pid), 0
    while time.monotonic() < deadline:
        time.sleep(sample_s)
        count = context_switches(pid)
        unchanged = unchanged + 1 if count == previous else 0
        if unchanged == 2:
            return
        previous = count
    raise AssertionError(f"the application kept waking up for {timeout_s} s")


def test():
    with Service() as svc:
        svc.stop()
        check(not os.path.exists(os.path.join(svc.rundir, "bus")), "bus file left behind")
        check(not os.path.exists(os.path.join(svc.rundir, "app.sock")), "socket left behind")
        started = time.monotonic()
        app = svc.app("--pause", "--count", "5", wait_ready=True)
        check(time.monotonic() - started < 2.0, "the application waited for a missing service")
        # The listener thread has reached its wait once the count stops moving.
        stable_count(app.pid)
        before = context_switches(app.pid)
        time.sleep(2.5)
        after = context_switches(app.pid)
        check(after == before, f"the waiting application woke up {after - before} times")
        svc.start()
        # Registration must take under 0.9 s, plus up to two of the
        # `tracectl list` runs that look for it (slow on a sanitized build);
        # an application that polled would wait for its next poll.
        started = time.monotonic()
        list_runs = []

        def registered():
            before_list = time.monotonic()
            pids = svc.listed_pids()
            list_runs.append(time.monotonic() - before_list)
            return app.pid in pids
        wait_for(registered, 30, "the application to register with the new service")
        took = time.monotonic() - started
        log(f"registered after {took:.2f} s; `tracectl list` runs took up to "
            f"{max(list_runs):.2f} s")
        check(took < 0.9 + 2 * max(list_runs),
              f"the application registered after {took:.2f} s "
              f"(`tracectl list` runs took up to {max(list_runs):.2f} s)")
        out = os.path.join(svc.rundir, "trace")
        svc.cli("create", "late", "--output", out)
        svc.cli("enable-event", "-u", "example:all_types")
        svc.cli("start")
        app.send_signal(signal.SIGUSR1)
        app.communicate(timeout=60)
        check(app.returncode == 0, "the application failed")
        svc.cli("stop")
        count = sum(1 for n, _ in read_trace(out) if n == "example:all_types")
        check(count == 5, f"recorded {count} events, expected 5")


run(test)
