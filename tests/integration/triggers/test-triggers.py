#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A flight recorder: alice's snapshot session has a trigger on its
buffer usage with the notify and snapshot-session actions. When an
application fills the buffers beyond the ratio, the service records a
snapshot by itself (babeltrace2 reads the application's events in it),
alice's subscriber receives TriggerFired and SnapshotRecorded, once, and
bob's subscriber nothing. Triggers are listed to their owner only,
counted against MaxTriggers, refused with a bad condition or action, and
removed. A trigger on the consumed size stops its session; one on a
completed rotation notifies once per rotation."""

import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from signallib import Listener
from tclib import Service, check, log, run
from tracelib import read_streams


def test():
    with tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False) as config:
        config.write("[Limits]\nMaxTriggers=1\n")
    os.chmod(config.name, 0o644)
    try:
        with Service(args=["--config", config.name]) as svc:
            run_flight_recorder(svc)
    finally:
        os.unlink(config.name)


def stop_when_written(svc, alice, mine):
    """A session that stops itself once 64 KiB are written."""
    svc.cli("create", "plain", "--output", os.path.join(alice.home, "plain"), user=alice)
    svc.cli("enable-channel", "-u", "channel0", "--subbuf-size", "4k", user=alice)
    svc.cli("enable-event", "-u", "example:*", user=alice)
    svc.cli("add-trigger", "--name", "enough", "--condition", "session-consumed-size-ge",
            "--threshold-size", "64k", "--action", "notify", "--action", "stop-session",
            user=alice)
    svc.cli("start", user=alice)
    app = svc.app("--forever", "--interval-us", "100", user=alice)
    fired = mine.wait_member("TriggerFired", lambda s: s["args"][0] == "enough", timeout=20)
    path = fired["args"][2]
    mine.wait_member("SessionStopped", lambda s: s["args"][0] == path)
    app.kill()
    app.wait()
    written = int(fired["args"][3].split()[-1])
    log(f"stopped after {written} bytes written")
    check(written >= 64 * 1024, f"{fired}")
    listing = svc.cli("list", user=alice).stdout
    check("plain [inactive]" in listing, f"plain still active: {listing}")
    svc.cli("destroy", "plain", user=alice)


def notify_on_rotation(svc, alice, mine):
    """A trigger on session-rotation-completed fires at each rotation."""
    svc.cli("remove-trigger", "enough", user=alice)
    svc.cli("create", "rotated", "--output", os.path.join(alice.home, "rotated"), user=alice)
    svc.cli("enable-event", "-u", "example:*", user=alice)
    svc.cli("add-trigger", "--name", "archived", "--condition", "session-rotation-completed",
            "--action", "notify", user=alice)
    svc.cli("start", user=alice)
    svc.cli("rotate", user=alice)
    fired = mine.wait_member("TriggerFired", lambda s: s["args"][0] == "archived", timeout=20)
    check(fired["args"][3] == "session-rotation-completed", f"{fired}")
    svc.cli("stop", user=alice)
    svc.cli("destroy", "rotated", user=alice)


def run_flight_recorder(svc):
    alice = svc.add_user("tcsig-alice")
    bob = svc.add_user("tcsig-bob")
    mine = Listener(svc, alice)
    others = Listener(svc, bob)
    out = os.path.join(alice.home, "flight")
    svc.cli("create", "flight", "--snapshot", "--output", out, user=alice)
    svc.cli("enable-channel", "-u", "channel0", "--subbuf-size", "4k", "--num-subbuf", "4",
            "--monitor-timer", "100000", user=alice)
    svc.cli("enable-event", "-u", "example:*", user=alice)

    bad = svc.cli("add-trigger", "--name", "x", "--condition", "channel-buffer-usage-gt",
                  "--threshold-ratio", "0.5", "--action", "notify", user=alice, check_ok=False)
    check(bad.returncode == 1 and "Unknown condition" in bad.stderr, f"{bad}")
    bad = svc.cli("add-trigger", "--name", "x", "--condition", "channel-buffer-usage-ge",
                  "--threshold-ratio", "0.5", "--action", "rotate-session:../x", user=alice,
                  check_ok=False)
    check(bad.returncode == 1 and "../x" in bad.stderr, f"{bad}")

    svc.cli("add-trigger", "--name", "full", "--condition", "channel-buffer-usage-ge",
            "--threshold-ratio", "0.25", "--action", "notify", "--action", "snapshot-session",
            user=alice)
    over = svc.cli("add-trigger", "--name", "second", "--condition", "session-consumed-size-ge",
                   "--threshold-size", "1M", "--action", "notify", user=alice, check_ok=False)
    check(over.returncode == 1 and "MaxTriggers" in over.stderr, f"second trigger: {over}")
    listing = svc.cli("list-triggers", user=alice).stdout
    check("- full (owner uid" in listing and "threshold-ratio=0.25" in listing and
          "notify, snapshot-session" in listing and "fired: 0" in listing, listing)
    check(svc.cli("list-triggers", user=bob).stdout.strip() == "No trigger", "bob's list")

    svc.cli("start", user=alice)
    started = time.monotonic()
    app = svc.app("--forever", "--interval-us", "200", user=alice)
    fired = mine.wait_member("TriggerFired", timeout=20)
    recorded = mine.wait_member("SnapshotRecorded")
    log(f"fired after {time.monotonic() - started:.2f}s: {fired['args']}")
    name, owner, path, condition = fired["args"]
    check(name == "full" and owner == alice.uid and recorded["args"][0] == path and
          condition.startswith("channel-buffer-usage-ge channel0 "), f"{fired} {recorded}")
    check(float(condition.split()[-1]) >= 0.25, condition)
    directory = recorded["args"][1]
    check(os.path.dirname(directory) == out and
          os.path.basename(directory).startswith("snapshot-0-"), directory)

    # Still above the ratio: it does not fire again.
    time.sleep(1.0)
    app.kill()
    app.wait()
    check(mine.members().count("TriggerFired") == 1, f"fired again: {mine.members()}")
    check("fired: 1" in svc.cli("list-triggers", user=alice).stdout, "fire count")
    events = [e for e in read_streams(directory)["events"]
              if e["name"].startswith("example:")]
    log(f"snapshot: {len(events)} events")
    check(events, "the snapshot holds no event of the application")

    svc.cli("create", "marker", user=bob)
    others.wait_member("SessionCreated", lambda s: s["args"][1] == "marker")
    check(others.members() == ["SessionCreated"], f"bob's subscriber: {others.signals}")

    svc.cli("remove-trigger", "full", user=alice)
    gone = svc.cli("remove-trigger", "full", user=alice, check_ok=False)
    check(gone.returncode == 3 and "no trigger named 'full'" in gone.stderr, f"{gone}")
    svc.cli("destroy", "flight", user=alice)
    stop_when_written(svc, alice, mine)
    notify_on_rotation(svc, alice, mine)
    mine.close()
    others.close()


run(test)
