#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""disable-channel, through the CLI and busctl: a disabled channel records
nothing while the others go on, enable-channel brings it back, listings
say which is disabled, bad input is refused clearly, and another user
cannot disable the owner's channel."""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from busctllib import session_call, session_path
from tclib import Service, check, run
from tracelib import read_trace


def test():
    with Service() as svc:
        alice = svc.add_user("tctest-alice")
        bob = svc.add_user("tctest-bob")
        svc.cli("create", "dc", user=alice)
        svc.cli("enable-channel", "-u", "c1", user=alice)
        svc.cli("enable-channel", "-u", "c2", user=alice)
        svc.cli("enable-event", "-u", "example:startup", "-c", "c1", user=alice)
        svc.cli("enable-event", "-u", "example:all_types", "-c", "c2", user=alice)
        svc.cli("start", user=alice)
        svc.run_app("--count", "5", user=alice)

        out = svc.cli("disable-channel", "-u", "c2", user=alice).stdout
        check("UST channel c2 disabled for session dc" in out, out)
        out = svc.cli("list", "dc", "-c", "c2", user=alice).stdout
        check("- c2: [disabled]" in out and "example:all_types" in out, out)
        out = svc.cli("status", user=alice).stdout
        check(out.count("Disabled: its events are not recorded") == 1, f"status: {out}")
        svc.run_app("--count", "7", user=alice)

        # Refusals: an unknown channel, twice, the kernel (alice may not trace
        # it), bad usage, bob.
        bad = svc.cli("disable-channel", "-u", "nope", user=alice, check_ok=False)
        check(bad.returncode == 3 and "Session 'dc' has no channel 'nope'" in bad.stderr,
              f"{bad}")
        bad = svc.cli("disable-channel", "-u", "c2", user=alice, check_ok=False)
        check(bad.returncode == 1 and "disabled already" in bad.stderr, f"{bad}")
        bad = svc.cli("disable-channel", "-k", "channel0", user=alice, check_ok=False)
        check(bad.returncode == 4 and "Tracing the kernel is for members" in bad.stderr,
              f"alice's disable-channel -k: {bad}")
        bad = svc.cli("disable-channel", "c1", user=alice, check_ok=False)
        check(bad.returncode == 2, f"no domain: {bad}")
        bad = svc.cli("disable-channel", "-u", "c1", "-s", "dc", user=bob, check_ok=False)
        check(bad.returncode == 3, f"bob's disable-channel: {bad}")
        path = session_path(svc, "dc", user=alice)
        bad = session_call(svc, path, "DisableChannel", "ss", "ust", "c1", user=bob)
        check(bad.returncode != 0, f"bob's DisableChannel: {bad}")
        bad = session_call(svc, path, "DisableChannel", "ss", "ust", "bad/name", user=alice)
        check(bad.returncode != 0 and "contains '/'" in bad.stderr, f"{bad}")
        check("- c1: [enabled]" in svc.cli("list", "dc", "-c", "c1", user=alice).stdout,
              "bob's or a bad call disabled c1")
        # The Channels property says which channel is disabled, to the owner only.
        prop = ["busctl", "--system", "--no-pager", "--json=short", "get-property",
                "org.tracectl.Tracing1", path, "org.tracectl.Tracing1.Session", "Channels"]
        channels = json.loads(subprocess.run(svc._as(alice) + prop, env=svc.env(alice),
                                             capture_output=True, text=True,
                                             check=True).stdout)["data"]
        enabled = {c[0]: c[5]["enabled"]["data"] for c in channels}
        check(enabled == {"c1": True, "c2": False}, f"Channels: {enabled}")
        denied = subprocess.run(svc._as(bob) + prop, env=svc.env(bob), capture_output=True,
                                text=True)
        check(denied.returncode != 0, f"bob read the Channels: {denied.stdout}")

        svc.cli("enable-channel", "-u", "c2", user=alice)
        check("- c2: [enabled]" in svc.cli("list", "dc", "-c", "c2", user=alice).stdout,
              "enable-channel did not enable c2 again")
        svc.run_app("--count", "11", user=alice)
        # Over the bus, as the owner.
        ok = session_call(svc, path, "DisableChannel", "ss", "ust", "c1", user=alice)
        check(ok.returncode == 0, f"alice's DisableChannel: {ok}")
        svc.run_app("--count", "3", user=alice)
        svc.cli("stop", user=alice)

        events = read_trace(svc.cli("view", "--trace-path", user=alice).stdout.strip())
        names = [name for name, _ in events]
        # c1 recorded the three first runs' startups; c2 missed the run of 7.
        check(names.count("example:startup") == 3, f"startups: {names.count('example:startup')}")
        check(names.count("example:all_types") == 5 + 11 + 3,
              f"all_types: {names.count('example:all_types')}")
        svc.cli("destroy", user=alice)


run(test)
