#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Snapshot sessions: nothing is written while recording; each
'tracectl snapshot record' writes what the overwrite buffers hold into a
new directory that babeltrace2 reads without a warning, tracing goes on,
and a later snapshot holds newer events."""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, check, log, run, wait_for
from tracelib import babeltrace_text, read_streams


def all_types_seqs(path):
    return [e["seq"] for e in read_streams(path)["events"] if e["name"] == "example:all_types"]


def test():
    with Service() as svc:
        out = os.path.join(svc.rundir, "snapshots")
        created = svc.cli_json("create", "snap", "--snapshot", "--output", out)
        check(created["name"] == "snap" and created["snapshot"] is True, f"{created}")
        bad = svc.cli("enable-channel", "-u", "c", "--discard", check_ok=False)
        check(bad.returncode == 1 and "overwrite mode" in bad.stderr, f"discard: {bad}")
        early = svc.cli("snapshot", "record", check_ok=False)
        check(early.returncode == 1 and "never started" in early.stderr, f"early: {early}")
        svc.cli("enable-event", "-u", "example:*")
        svc.cli("start")
        app = svc.app("--forever", "--interval-us", "100")
        # Registered before the time a snapshot session would write in, and
        # the first snapshot, start: however slow its start, it has events.
        wait_for(lambda: app.pid in svc.listed_pids(), 30, "the application to register")
        time.sleep(1.5)
        check(not os.path.exists(os.path.join(out, "ust")), "a snapshot session wrote a trace")
        first = svc.cli_json("snapshot", "record")["directory"]
        time.sleep(1.0)
        second = svc.cli_json("snapshot", "record")["directory"]
        check(first != second and os.path.basename(first).startswith("snapshot-0-") and
              os.path.basename(second).startswith("snapshot-1-"), f"{first} {second}")
        status = svc.session()
        check(status["state"] == "active" and status["snapshot"], f"session: {status}")
        app.kill()
        app.wait()
        svc.cli("stop")

        seqs1, seqs2 = all_types_seqs(first), all_types_seqs(second)
        log(f"first snapshot: {len(seqs1)} events up to {max(seqs1)}; "
            f"second: {len(seqs2)} up to {max(seqs2)}")
        check(seqs1 and seqs2, "empty snapshot")
        check(max(seqs2) > max(seqs1), "the second snapshot has no newer events")
        for path in (first, second):
            check(babeltrace_text(path).count("example:all_types") > 0, "babeltrace2 output")
        # Only the snapshots are in the output directory.
        check(sorted(os.listdir(out)) == sorted([os.path.basename(first),
                                                 os.path.basename(second)]), os.listdir(out))

        svc.cli("create", "plain", "--output", os.path.join(svc.rundir, "plain"))
        svc.cli("enable-event", "-u", "example:*")
        svc.cli("start")
        plain = svc.cli("snapshot", "record", check_ok=False)
        check(plain.returncode == 1 and "not a snapshot session" in plain.stderr,
              f"snapshot of a normal session: {plain}")
        svc.cli("destroy", "plain")
        svc.cli("destroy", "snap")


run(test)
