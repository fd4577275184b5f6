#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Killing applications with SIGKILL while they trace leaves the service
running and the trace readable by babeltrace2."""

import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, check, run
from tracelib import babeltrace_text, read_trace


def test():
    with Service() as svc:
        out = os.path.join(svc.rundir, "trace")
        svc.cli("create", "killed", "--output", out)
        svc.cli("enable-event", "-u", "example:*")
        svc.cli("start")
        apps = [svc.app("--forever", "--threads", "2", "--interval-us", "100")
                for _ in range(3)]
        time.sleep(1.0)
        for app in apps:
            app.send_signal(signal.SIGKILL)
            app.wait()
        check(svc.alive(), "tracectld died")
        survivor = svc.run_app("--count", "20")
        svc.cli("stop")
        check(svc.alive(), "tracectld died")
        events = read_trace(out)
        check(any(n == "example:all_types" for n, _ in events), "nothing recorded")
        babeltrace_text(out, allow_discards=True)
        listed = svc.listed_pids()
        for app in apps:
            check(app.pid not in listed, f"killed app {app.pid} still listed")
        del survivor


run(test)
