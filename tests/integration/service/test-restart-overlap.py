#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A new instance started while the previous one is still shutting down
keeps its files: the old instance removes only its own bus address file,
bus socket and registration socket, never those of its successor."""

import os
import signal
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, check, run, wait_for


def test():
    with Service() as svc:
        out = os.path.join(svc.rundir, "trace")
        svc.cli("create", "busy", "--output", out)
        svc.cli("enable-event", "-u", "example:*")
        svc.cli("start")
        old = svc.proc
        old.send_signal(signal.SIGTERM)
        # The old instance first stops taking applications, then writes out
        # its session and stops its bus: the successor starts in between.
        wait_for(lambda: not os.path.exists(os.path.join(svc.rundir, "app.sock")), 10,
                 "the old instance to close its registration socket")
        svc.logfile.close()
        svc.start()
        old.wait(timeout=30)
        check(old.returncode == 0, f"the old instance exited with {old.returncode}")
        check(svc.alive(), "the new instance did not survive the old one's exit")
        for name in ("bus", "app.sock"):
            check(os.path.exists(os.path.join(svc.rundir, name)),
                  f"the old instance removed the new instance's {name}")
        app = svc.app("--pause", wait_ready=True)
        wait_for(lambda: app.pid in svc.listed_pids(), 5,
                 "the application to register with the new instance")


run(test)
