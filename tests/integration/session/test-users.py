#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Two users: bob cannot see, read, stop or destroy alice's session
(PermissionDenied), does not see alice's applications, and alice's trace
holds none of bob's events. Her trace directory is hers alone."""

import os
import stat
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, check, run
from tracelib import read_trace

DENIED = "org.tracectl.Tracing1.Error.PermissionDenied"


def session_path(svc, user, name):
    result = svc.gdbus("--object-path", "/org/tracectl/Tracing1",
                       "--method", "org.tracectl.Tracing1.Manager.FindSession", name,
                       user=user)
    check(result.returncode == 0, f"FindSession failed: {result}")
    return result.stdout.strip().split("'")[1]


def test():
    with Service() as svc:
        alice = svc.add_user("tctest-alice")
        bob = svc.add_user("tctest-bob")
        svc.cli("create", "work", user=alice)
        svc.cli("enable-event", "-u", "example:*", user=alice)
        svc.cli("start", user=alice)
        svc.cli("create", "mine", user=bob)
        svc.cli("enable-event", "-u", "example:*", user=bob)
        svc.cli("start", user=bob)
        alice_app = svc.app("--pause", "--count", "7", user=alice, wait_ready=True)
        bob_app = svc.app("--pause", "--count", "11", user=bob, wait_ready=True)

        # Listings show each user their own.
        bob_list = [s["name"] for s in svc.sessions(user=bob)]
        check(bob_list == ["mine"], f"bob's list: {bob_list}")
        bob_apps = svc.listed_pids(user=bob)
        check(alice_app.pid not in bob_apps, "bob sees alice's application")
        check(bob_app.pid in bob_apps, "bob does not see his application")
        alice_apps = svc.listed_pids(user=alice)
        check(bob_app.pid not in alice_apps, "alice sees bob's application")
        root_apps = svc.listed_pids()
        check(alice_app.pid in root_apps and bob_app.pid in root_apps,
              "root (admin) does not see every application")

        # Bob acting on alice's session, over the bus directly.
        path = session_path(svc, alice, "work")
        for method in ("Stop", "Start"):
            result = svc.gdbus("--object-path", path,
                               "--method", f"org.tracectl.Tracing1.Session.{method}", user=bob)
            check(result.returncode != 0 and DENIED in result.stderr,
                  f"bob's {method} on alice's session: {result}")
        result = svc.gdbus("--object-path", "/org/tracectl/Tracing1",
                           "--method", "org.tracectl.Tracing1.Manager.DestroySession", path,
                           user=bob)
        check(result.returncode != 0 and DENIED in result.stderr, f"bob's destroy: {result}")
        for prop in ("Name", "OutputDirectory", "State", "Channels", "OwnerUid"):
            result = svc.gdbus("--object-path", path, "--method",
                               "org.freedesktop.DBus.Properties.Get",
                               "org.tracectl.Tracing1.Session", prop, user=bob)
            check(result.returncode != 0 and DENIED in result.stderr,
                  f"bob read alice's {prop}: {result}")
        # GDBus leaves out of GetAll the properties it may not read.
        result = svc.gdbus("--object-path", path, "--method",
                           "org.freedesktop.DBus.Properties.GetAll",
                           "org.tracectl.Tracing1.Session", user=bob)
        check("work" not in result.stdout and "tracectl-traces" not in result.stdout,
              f"bob read alice's properties: {result}")
        result = svc.cli("stop", "work", user=bob, check_ok=False)
        check(result.returncode == 3, f"bob stopped a session named like alice's: {result}")

        alice_app.send_signal(10)
        bob_app.send_signal(10)
        alice_app.communicate(timeout=60)
        bob_app.communicate(timeout=60)
        svc.cli("stop", user=alice)
        svc.cli("stop", user=bob)

        out = svc.gdbus("--object-path", path, "--method",
                        "org.freedesktop.DBus.Properties.Get",
                        "org.tracectl.Tracing1.Session", "OutputDirectory", user=alice)
        check(out.returncode == 0, f"alice cannot read her session: {out}")
        trace = out.stdout.split("'")[1]
        check(trace.startswith(os.path.join(alice.home, "tracectl-traces", "work-")),
              f"default output directory: {trace}")
        events = read_trace(trace)
        all_types = [f for n, f in events if n == "example:all_types"]
        check(len(all_types) == 7, f"alice's trace has {len(all_types)} events, not 7")
        pids = {f["pid"] for n, f in events if n == "example:startup"}
        check(pids == {alice_app.pid}, f"alice's trace holds pids {pids}")

        # Ownership and modes on disk.
        for root, dirs, files in os.walk(trace):
            for name in dirs + files:
                st = os.stat(os.path.join(root, name))
                check(st.st_uid == alice.uid, f"{name} is not alice's")
                mode = stat.S_IMODE(st.st_mode)
                check(mode == (0o700 if name in dirs else 0o600), f"{name} mode {mode:o}")


run(test)
