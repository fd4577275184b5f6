#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The service killed (SIGKILL) or stopped (SIGTERM) and started again
under live applications: every application registers again by itself and
receives the current state, so a session started on the new instance
records it."""

import os
import signal
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, check, run, wait_for
from tracelib import read_trace

APPS = 4


def restart(svc, how):
    svc.proc.send_signal(how)
    svc.proc.wait(timeout=30)
    svc.logfile.close()
    svc.start()


def all_listed(svc, apps):
    return {app.pid for app in apps} <= set(svc.listed_pids())


def test():
    with Service() as svc:
        apps = [svc.app("--pause", "--count", "10", wait_ready=True) for _ in range(APPS)]
        wait_for(lambda: all_listed(svc, apps), 10, "the applications to register")
        for how in (signal.SIGKILL, signal.SIGTERM):
            restart(svc, how)
            wait_for(lambda: all_listed(svc, apps), 10,
                     f"the applications to register again after {how.name}")
        out = os.path.join(svc.rundir, "trace")
        svc.cli("create", "again", "--output", out)
        svc.cli("enable-event", "-u", "example:all_types")
        svc.cli("start")
        for app in apps:
            app.send_signal(signal.SIGUSR1)
        for app in apps:
            app.communicate(timeout=60)
            check(app.returncode == 0, f"application {app.pid} failed")
        svc.cli("stop")
        count = sum(1 for name, _ in read_trace(out) if name == "example:all_types")
        check(count == APPS * 10, f"recorded {count} events, expected {APPS * 10}")


run(test)
