#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""With --idle-timeout, the service exits once it has had no session and no
call for that long, and not while a session exists or applications are
merely registered; applications carry on and wait for the next instance."""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, check, run, wait_for

IDLE_S = 2


def test():
    with Service(args=["--idle-timeout", str(IDLE_S)]) as svc:
        app = svc.app("--pause", wait_ready=True)
        svc.cli("create", "keep", "--output", os.path.join(svc.rundir, "trace"))
        time.sleep(IDLE_S * 2)
        check(svc.alive(), "the service exited while a session existed")
        started = time.monotonic()
        svc.cli("destroy", "keep")
        wait_for(lambda: not svc.alive(), IDLE_S * 5, "the service to exit when idle")
        idle = time.monotonic() - started
        check(idle >= IDLE_S - 0.5, f"the service exited after {idle:.1f} s, before its timeout")
        check(svc.proc.returncode == 0, f"idle exit status {svc.proc.returncode}")
        check(app.poll() is None, "the application died with the service")
        # It comes back, and the waiting application registers again.
        svc.start()
        wait_for(lambda: app.pid in svc.listed_pids(), 5,
                 "the application to register again")


run(test)
