#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""One session records tracectl's own applications and LTTng-UST ones
(Debian's liblttng-ust) side by side: two sibling traces in the
session's directory (ust/ and lttng-ust/), which babeltrace2 reads as
one timeline, the events of both kinds merged in time order, each
kind's own events in the order they were emitted.

Root's session records both kinds from two users whose uids differ by
2^31 - 1, so that numbers made of a uid and a session id would give
their two traces one consumer session: each trace holds all of its own
application's events, and only those."""

import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, check, log, run
from lttnglib import require_served, require_tools, start_lttng_app, tick_counts

LINE = re.compile(r"^\[(\d\d):(\d\d):(\d\d)\.(\d{9})\] \(\S+\) (?:[^ :]+ )?(\S+): ")


def example_events(trace_dir):
    proc = subprocess.run(["babeltrace2", trace_dir], capture_output=True, text=True,
                          timeout=300)
    check(proc.returncode == 0, f"babeltrace2 could not read {trace_dir}: "
          f"{proc.stderr[-2000:]}")
    return [line for line in proc.stdout.splitlines() if " example:" in line]


def far_apart_uids(svc, top):
    """Root's session, a tracectl application of one user and an LTTng-UST
    application of another whose uids are 2^31 - 1 apart."""
    bob = svc.add_user("tctest-bob")
    carol = svc.add_user("tctest-carol", uid=2**31 + bob.uid - 1)
    out = os.path.join(top, "apart")
    for args in (["create", "apart", "--output", out],
                 ["enable-event", "-u", "example:*"],
                 ["enable-event", "-u", "tc_lttng_test:tick"],
                 ["start"]):
        svc.cli(*args)
    lttng_app = start_lttng_app(svc, bob, 2)
    svc.run_app("--count", "20", "--interval-us", "50000", user=carol)
    check(lttng_app.wait(timeout=60) == 0,
          f"bob's LTTng-UST application exited with {lttng_app.returncode}")
    svc.cli("stop")
    svc.cli("destroy", "apart")
    examples = example_events(os.path.join(out, "ust", "uid", str(carol.uid)))
    ticks = tick_counts(os.path.join(out, "lttng-ust", "uid", str(bob.uid)))
    log(f"uids {bob.uid} and {carol.uid}: {len(examples)} example events in carol's "
        f"trace, ticks {ticks} in bob's")
    check(len(examples) >= 20, f"carol's trace holds {len(examples)} example events")
    check(ticks == list(range(20)), f"bob's trace holds the ticks {ticks}")


def one_timeline(svc):
    """alice's session: both kinds in one timeline."""
    alice = svc.add_user("tctest-alice")
    out = os.path.join(alice.home, "mixed")
    for args in (["create", "mixed", "--output", out],
                 ["enable-event", "-u", "example:*"],
                 ["enable-event", "-u", "tc_lttng_test:tick"],
                 ["start"]):
        svc.cli(*args, user=alice)
    lttng_app = start_lttng_app(svc, alice, 2)
    svc.run_app("--count", "20", "--interval-us", "50000", user=alice)
    check(lttng_app.wait(timeout=60) == 0,
          f"the LTTng-UST application exited with {lttng_app.returncode}")
    svc.cli("stop", user=alice)
    svc.cli("destroy", "mixed", user=alice)
    check(sorted(os.listdir(out)) == ["lttng-ust", "ust"],
          f"the session's directory holds {sorted(os.listdir(out))}")
    # The whole directory at once: babeltrace2 merges the two traces
    # only if their clocks can be compared.
    proc = subprocess.run(["babeltrace2", out], capture_output=True, text=True,
                          timeout=300)
    check(proc.returncode == 0, f"babeltrace2 could not read {out} as one: "
          f"{proc.stderr[-2000:]}")
    events = []
    for line in proc.stdout.splitlines():
        match = LINE.match(line)
        check(match is not None, f"not an event line: {line!r}")
        h, m, s, ns, name = match.groups()
        events.append((((int(h) * 60 + int(m)) * 60 + int(s)) * 10**9 + int(ns), name,
                       line))
    kinds = [name.split(":")[0] for _, name, _ in events]
    ticks = [int(re.search(r"count = (\d+)", line)[1]) for _, name, line in events
             if name == "tc_lttng_test:tick"]
    log(f"{len(events)} events: {kinds.count('example')} of tracectl's application, "
        f"{len(ticks)} ticks of the LTTng-UST one")
    check(kinds.count("example") >= 20 and ticks == list(range(20)),
          f"{kinds.count('example')} example events, ticks {ticks}")
    # Interleaved: both kinds recorded over the same seconds.
    first = [kinds.index(kind) for kind in ("example", "tc_lttng_test")]
    last = [len(kinds) - 1 - kinds[::-1].index(kind) for kind in ("example", "tc_lttng_test")]
    check(max(first) < min(last), f"the two kinds are not interleaved: first {first}, "
          f"last {last} of {len(kinds)}")
    stamps = [stamp for stamp, _, _ in events]
    check(stamps == sorted(stamps), "babeltrace2's events are not in time order")
    check(svc.alive(), "tracectld died")


def test():
    require_tools()
    top = tempfile.mkdtemp(prefix="tctest-lttng-mixed-")
    try:
        with Service(args=["--lttng-ust"]) as svc:
            require_served(svc)
            far_apart_uids(svc, top)
            one_timeline(svc)
    finally:
        shutil.rmtree(top, ignore_errors=True)


run(test)
