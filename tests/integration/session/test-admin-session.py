#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Root's session records every user's applications (the shadow copy's
rule "its uid; all for admin sessions"), each uid in its own trace,
ust/uid/<uid>/64-bit, written from buffers that only that uid's
applications get; applications registered before and after the start
are both recorded; a user's own session still records only that user."""

import os
import signal
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, check, run, wait_for
from tracelib import babeltrace_text, read_trace


def count(events, name):
    return sum(1 for n, _ in events if n == name)


def test():
    with Service() as svc:
        alice = svc.add_user("tctest-alice")
        bob = svc.add_user("tctest-bob")
        out = os.path.join(svc.rundir, "all")
        svc.cli("create", "all", "--output", out)
        svc.cli("enable-event", "-u", "example:*")
        svc.cli("create", "mine", user=alice)
        svc.cli("enable-event", "-u", "example:all_types", user=alice)
        svc.cli("start", user=alice)
        # bob's application registers before root's session starts,
        # alice's and root's after.
        bob_app = svc.app("--pause", "--count", "7", user=bob, wait_ready=True)
        wait_for(lambda: bob_app.pid in svc.listed_pids(), 5,
                 "bob's application to register")
        svc.cli("start", "all")
        alice_app = svc.app("--pause", "--count", "5", user=alice, wait_ready=True)
        root_app = svc.app("--pause", "--count", "3", wait_ready=True)
        for app in (bob_app, alice_app, root_app):
            app.send_signal(signal.SIGUSR1)
        for app in (bob_app, alice_app, root_app):
            app.communicate(timeout=60)
            check(app.returncode == 0, f"application {app.pid} failed")
        svc.cli("stop", "all")
        svc.cli("stop", user=alice)

        expected = {alice.uid: (5, alice_app.pid), bob.uid: (7, bob_app.pid),
                    0: (3, root_app.pid)}
        for uid, (k, pid) in expected.items():
            trace = os.path.join(out, "ust", "uid", str(uid), "64-bit")
            check(os.path.isdir(trace), f"no trace for uid {uid}")
            events = read_trace(trace)
            check(count(events, "example:all_types") == k,
                  f"uid {uid}: {count(events, 'example:all_types')} events, expected {k}")
            # bob's application started before the session: its startup
            # event was emitted while nothing recorded.
            want = set() if uid == bob.uid else {pid}
            pids = {f["pid"] for n, f in events if n == "example:startup"}
            check(pids == want, f"uid {uid}'s trace holds pids {pids}, expected {want}")
        text = babeltrace_text(out)
        check(text.count("example:all_types") == 15, "the whole trace does not hold 15 events")

        mine = svc.gdbus("--object-path", svc.gdbus(
            "--object-path", "/org/tracectl/Tracing1", "--method",
            "org.tracectl.Tracing1.Manager.FindSession", "mine", user=alice).stdout.split("'")[1],
            "--method", "org.freedesktop.DBus.Properties.Get",
            "org.tracectl.Tracing1.Session", "OutputDirectory", user=alice).stdout.split("'")[1]
        events = read_trace(mine)
        check(count(events, "example:all_types") == 5, "alice's own session recorded others")


run(test)
