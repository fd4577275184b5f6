#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A flight recorder that snapshots itself when an error event is seen:
alice's snapshot session records her application's events, nobody
consumes them, and a trigger on the event rule app:error* with a filter
takes a snapshot. An error whose code the filter leaves out fires
nothing, nor does bob's application writing the very event alice's
trigger waits for; alice's matching error fires it exactly once, and
the snapshot holds the error event after the ordinary ones. A removed
trigger fires no more, and errors that keep coming for seconds fire a
trigger at most once a second."""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from signallib import Listener
from tclib import BUILD, Service, check, log, run
from tracelib import read_streams

ERROR_APP = os.path.join(BUILD, "tests", "integration", "apps", "tracectl-error-app")


def snapshots(out):
    return sorted(name for name in os.listdir(out) if name.startswith("snapshot-")) \
        if os.path.isdir(out) else []


def test():
    with Service() as svc:
        alice = svc.add_user("tcevt-alice")
        bob = svc.add_user("tcevt-bob")
        mine = Listener(svc, alice)
        out = os.path.join(alice.home, "flight")
        svc.cli("create", "flight", "--snapshot", "--output", out, user=alice)
        svc.cli("enable-event", "-u", "app:*", user=alice)
        svc.cli("start", user=alice)
        # LTTng's shape: a --name after the condition is its event pattern.
        svc.cli("add-trigger", "--name", "on-error", "--condition", "event-rule-matches",
                "--type", "user", "--name", "app:error*", "--filter", "code == 28",
                "--action", "notify", "--action", "snapshot-session", user=alice)
        listing = svc.cli("list-triggers", user=alice).stdout
        check("on-error" in listing and "app:error*" in listing and "code == 28" in listing,
              listing)

        svc.run_app("1000", "5", user=alice, program=ERROR_APP)
        svc.run_app("1000", "28", user=bob, program=ERROR_APP)
        time.sleep(1.5)
        check("TriggerFired" not in mine.members(), f"fired: {mine.signals}")
        check(snapshots(out) == [], f"snapshots: {snapshots(out)}")

        started = time.monotonic()
        svc.run_app("1000", "28", user=alice, program=ERROR_APP)
        fired = mine.wait_member("TriggerFired", timeout=10)
        recorded = mine.wait_member("SnapshotRecorded", timeout=10)
        log(f"fired after {time.monotonic() - started:.2f}s: {fired['args']}")
        check(fired["args"][0] == "on-error" and fired["args"][1] == alice.uid and
              fired["args"][3].startswith("event-rule-matches app:error*"), f"{fired}")
        time.sleep(1.5)
        check(mine.members().count("TriggerFired") == 1, f"fired again: {mine.members()}")
        check(len(snapshots(out)) == 1, f"snapshots: {snapshots(out)}")
        check("fired: 1" in svc.cli("list-triggers", user=alice).stdout, "fire count")

        events = read_streams(recorded["args"][1])["events"]
        errors = [e for e in events if e["name"] == "app:error_io"]
        log(f"snapshot: {len(events)} events, errors {[e['code'] for e in errors]}")
        check(errors and errors[-1]["code"] == 28 and errors[-1]["what"] == "disk full",
              f"the snapshot lacks the error: {errors}")
        check(any(e["name"] == "app:request" for e in events), "no ordinary event")

        svc.cli("remove-trigger", "on-error", user=alice)
        svc.run_app("10", "28", user=alice, program=ERROR_APP)
        time.sleep(1.5)
        check(mine.members().count("TriggerFired") == 1, f"fired once removed: {mine.members()}")

        # Unnamed, as LTTng allows: named after its pattern.
        svc.cli("add-trigger", "--condition", "event-rule-matches", "--name", "app:error_io",
                "--action", "notify", user=alice)
        # An error every millisecond or so for about three seconds: the
        # trigger thread sees new ones at each of its 100 ms ticks.
        started = time.monotonic()
        stream = svc.app("0", "1", "3000", "1000", user=alice, program=ERROR_APP)
        check(stream.stdout.readline().strip() == "done", "the errors did not end")
        stream.wait()
        time.sleep(1.5)
        elapsed = time.monotonic() - started
        fired = [s for s in mine.signals if s["member"] == "TriggerFired" and
                 s["args"][0] == "on-app-error_io"]
        log(f"errors for {elapsed:.1f}s fired {len(fired)} times")
        check(2 <= len(fired) <= int(elapsed) + 1, f"not paced: {len(fired)} in {elapsed:.1f}s")
        mine.close()


run(test)
