#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""tracectl clear: what a session recorded so far is dropped (its files and
what its buffers held), recording goes on and later events are recorded;
archives are kept. For a snapshot session the next snapshot holds only
what was written after the clear."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, check, log, run
from tracelib import babeltrace_text, read_streams


def events(path, name="example:all_types"):
    return [e for e in read_streams(path)["events"] if e["name"] == name]


def test_clear(svc):
    out = os.path.join(svc.rundir, "clr")
    svc.cli("create", "clr", "--output", out)
    svc.cli("enable-event", "-u", "example:*")
    svc.cli("start")
    svc.run_app("--count", "500")
    archive = svc.cli("rotate").stdout.split()[-1]
    # In the buffers (no flush yet) and in the files: both go.
    svc.run_app("--count", "3000")
    printed = svc.cli("clear", "clr").stdout
    check("Session clr cleared" in printed, printed)
    svc.run_app("--count", "70")
    svc.cli("stop")
    trace = os.path.join(out, "ust")
    babeltrace_text(trace)
    seqs = sorted(e["seq"] for e in events(trace))
    log(f"after the clear: {len(seqs)} events")
    check(seqs == list(range(70)), f"the trace holds {len(seqs)} events, not the 70 after "
          f"the clear")
    check(len(events(trace, "example:startup")) == 1, "events of before the clear are left")
    check(sorted(e["seq"] for e in events(archive)) == list(range(500)),
          "the archive was changed by the clear")
    svc.cli("destroy", "clr")


def test_clear_snapshot(svc):
    out = os.path.join(svc.rundir, "snapclr")
    svc.cli("create", "snapclr", "--snapshot", "--output", out)
    svc.cli("enable-event", "-u", "example:*")
    svc.cli("start")
    svc.run_app("--count", "400")
    first = svc.cli("snapshot", "record").stdout.split()[-1]
    check(len(events(first)) == 400, f"{len(events(first))} events in the first snapshot")
    svc.cli("clear")
    svc.run_app("--count", "25")
    second = svc.cli("snapshot", "record").stdout.split()[-1]
    babeltrace_text(second)
    seqs = sorted(e["seq"] for e in events(second))
    check(seqs == list(range(25)), f"the snapshot after the clear holds {len(seqs)} events")
    svc.cli("destroy", "snapclr")


def test():
    with Service() as svc:
        test_clear(svc)
        test_clear_snapshot(svc)


run(test)
