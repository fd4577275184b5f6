#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Figure 3.9 of the session-daemon thesis (docs/architecture.md): an
event enabled before the application starts and an event enabled after
it registered are both recorded."""

import os
import signal
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, check, run
from tracelib import read_trace

K = 50


def test():
    with Service() as svc:
        out = os.path.join(svc.rundir, "trace")
        svc.cli("create", "order", "--output", out)
        svc.cli("enable-event", "-u", "example:startup")
        svc.cli("start")
        app = svc.app("--count", str(K), "--pause", wait_ready=True)
        listed = svc.listed_pids()
        check(app.pid in listed, f"app {app.pid} not in list -u: {listed}")
        svc.cli("enable-event", "-u", "example:all_types")
        app.send_signal(signal.SIGUSR1)
        app.communicate(timeout=60)
        check(app.returncode == 0, f"app failed with {app.returncode}")
        svc.cli("stop")

        names = [name for name, _ in read_trace(out)]
        check(names.count("example:startup") == 1, "event enabled before start missing")
        check(names.count("example:all_types") == K,
              f"events enabled after registration: {names.count('example:all_types')}")
        check("example:done" not in names, "a disabled event was recorded")

        # Disabling applies to the running applications as well.
        svc.cli("start")
        svc.cli("disable-event", "-u", "example:all_types")
        svc.run_app("--count", "10")
        svc.cli("stop")
        names = [name for name, _ in read_trace(out)]
        check(names.count("example:all_types") == K, "a disabled event was recorded")
        check(names.count("example:startup") == 2, "second run's startup missing")


run(test)
