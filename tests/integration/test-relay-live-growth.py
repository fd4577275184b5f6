#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A live session read by babeltrace2's lttng-live source while it
records, with its metadata growing: the events of an application
started after the viewer attached, then those of a kernel event enabled
while the kernel trace records, each appear within the live timer plus
a second, idle kernel CPUs and idle user-space streams holding nothing
back. The first kernel event of a live session that records user-space
events only starts its kernel trace at once: its events appear live
too."""

import socket
import subprocess
import time

from relaylib import Reader, Relay
from tclib import Service, check, log, mount_tracefs, run

LIVE_TIMER_US = 200000
ARRIVAL_S = LIVE_TIMER_US / 1e6 + 1


def test():
    mount_tracefs()
    hostname = socket.gethostname()
    with Service() as svc, Relay(svc.rundir) as relay:
        svc.cli("create", "growing", "--set-url", relay.url, f"--live={LIVE_TIMER_US}")
        svc.cli("enable-event", "-u", "example:*")
        svc.cli("enable-event", "-k", "sched:sched_switch")
        svc.cli("start")
        url = f"net://127.0.0.1:{relay.live_port}/host/{hostname}/growing"
        viewer = Reader(["babeltrace2", url], svc.env())
        try:
            viewer.wait_for("sched_switch", 10)
            # An application started now: new event classes, new metadata.
            started = time.monotonic()
            app = svc.app("--forever", "--interval-us", "50000")
            viewer.wait_for("example:all_types", ARRIVAL_S + 5)
            log(f"first application event after {time.monotonic() - started:.2f} s")
            # A kernel event enabled while recording: it shows once the
            # next process exits (the application, stopped now).
            svc.cli("enable-event", "-k", "sched:sched_process_exit")
            app.terminate()
            app.wait(timeout=10)
            stopped = time.monotonic()
            viewer.wait_for("sched_process_exit", ARRIVAL_S)
            delay = time.monotonic() - stopped
            log(f"sched_process_exit shown {delay:.2f} s after the exit")
            check(delay < ARRIVAL_S, f"the kernel event took {delay:.2f} s")
            check(viewer.proc.poll() is None, f"the viewer ended: {viewer.errors[-2000:]}")
        finally:
            viewer.kill()
        svc.cli("destroy", "growing")
        kernel_added_while_recording(svc, relay, hostname)
        check(svc.alive(), "tracectld died")


def kernel_added_while_recording(svc, relay, hostname):
    svc.cli("create", "userfirst", "--set-url", relay.url, f"--live={LIVE_TIMER_US}")
    svc.cli("enable-event", "-u", "example:*")
    svc.cli("start")
    app = svc.app("--forever", "--interval-us", "50000")
    url = f"net://127.0.0.1:{relay.live_port}/host/{hostname}/userfirst"
    viewer = Reader(["babeltrace2", url], svc.env())
    try:
        viewer.wait_for("example:all_types", ARRIVAL_S + 5)
        svc.cli("enable-event", "-k", "sched:sched_process_exec")
        executed = time.monotonic()
        subprocess.run(["/bin/true"], check=True)
        viewer.wait_for("sched_process_exec", ARRIVAL_S)
        delay = time.monotonic() - executed
        log(f"first kernel event of a recording session shown after {delay:.2f} s")
        check(delay < ARRIVAL_S, f"the kernel event took {delay:.2f} s")
    finally:
        viewer.kill()
        app.terminate()
        app.wait(timeout=10)
    svc.cli("destroy", "userfirst")


run(test)
