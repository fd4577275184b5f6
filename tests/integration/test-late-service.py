#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""An application started while no service runs goes on normally, waits
for the service passively (a futex on <rundir>/wait, no polling: it does
not wake up at all), and registers as soon as the service appears; a
session started afterwards records it. The application never waits for a
service that is not there."""

import os
import signal
import time

from tclib import Service, check, run, wait_for
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


def test():
    with Service() as svc:
        svc.stop()
        check(not os.path.exists(os.path.join(svc.rundir, "bus")), "bus file left behind")
        check(not os.path.exists(os.path.join(svc.rundir, "app.sock")), "socket left behind")
        started = time.monotonic()
        app = svc.app("--pause", "--count", "5", wait_ready=True)
        check(time.monotonic() - started < 2.0, "the application waited for a missing service")
        time.sleep(0.5)  # let the listener thread reach its wait
        before = context_switches(app.pid)
        time.sleep(2.5)
        after = context_switches(app.pid)
        check(after == before, f"the waiting application woke up {after - before} times")
        svc.start()
        wait_for(lambda: app.pid in svc.listed_pids(), 0.9,
                 "the application to register with the new service")
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
