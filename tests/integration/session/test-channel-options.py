#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""enable-channel's options are validated with clear errors, by the CLI
and by the service (through gdbus, bypassing the CLI), and a switch timer
bounds how long a lone event waits before it is in the trace; the monitor
timer's samples show in tracectl status."""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, check, run
from tracelib import read_streams

BAD_CLI = [
    (["--subbuf-size", "3000"], "power of two"),
    (["--num-subbuf", "3"], "power of two"),
    (["--overwrite", "--discard"], "not both"),
    (["--switch-timer", "5"], "microseconds"),
    (["--read-timer", "x"], "microseconds"),
    (["--monitor-timer", "99999999999"], "microseconds"),
]


def test():
    with Service() as svc:
        out = os.path.join(svc.rundir, "options")
        svc.cli("create", "opts", "--output", out)
        for args, message in BAD_CLI:
            result = svc.cli("enable-channel", "-u", "c", *args, check_ok=False)
            check(result.returncode == 2 and message in result.stderr, f"{args}: {result}")
        path = svc.gdbus("--object-path", "/org/tracectl/Tracing1", "--method",
                         "org.tracectl.Tracing1.Manager.FindSession", "opts").stdout
        path = path.split("'")[1]
        for options, message in [("{'switch-timer': <uint32 10>}", "switch-timer"),
                                 ("{'overwrite': <'yes'>}", "Unknown channel option"),
                                 ("{'read-timer': <uint32 4000000000>}", "read-timer")]:
            result = svc.gdbus("--object-path", path, "--method",
                               "org.tracectl.Tracing1.Session.EnableChannel", "ust", "c",
                               options)
            check(result.returncode != 0 and "InvalidArgument" in result.stderr and
                  message in result.stderr, f"{options}: {result}")
        svc.cli("enable-channel", "-u", "live", "--switch-timer", "100000",
                "--monitor-timer", "100000")
        again = svc.cli("enable-channel", "-u", "live", "--overwrite", check_ok=False)
        check(again.returncode == 1 and "other settings" in again.stderr, f"again: {again}")
        svc.cli("enable-event", "-u", "-c", "live", "example:*")
        svc.cli("start")
        svc.run_app("--count", "3")
        # No flush: the switch timer closes the packet, the read timer writes it.
        # Each look starts babeltrace2's Python: room for a slow machine;
        # without the timers the events would wait for the session's stop.
        deadline = time.time() + 10
        names = []
        while time.time() < deadline:
            time.sleep(0.2)
            try:
                names = [e["name"] for e in read_streams(out)["events"]]
            except AssertionError:
                continue
            if "example:done" in names:
                break
        check("example:done" in names, f"switch timer did not deliver the events: {names}")
        live = [c for c in svc.session()["channels"] if c["name"] == "live"][0]
        timers = {key: live["settings"][key]
                  for key in ("switch_timer", "read_timer", "monitor_timer")}
        check(timers == {"switch_timer": 100000, "read_timer": 100000,
                         "monitor_timer": 100000}, f"timers: {live}")
        check(live["statistics"] and live["statistics"]["discarded_events"] == 0 and
              live["statistics"]["buffer_bytes"] > 0, f"statistics: {live}")
        svc.cli("stop")
        svc.cli("destroy", "opts")


run(test)
