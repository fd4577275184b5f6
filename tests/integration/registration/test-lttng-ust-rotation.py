#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Rotation and clear reach the traces of LTTng-UST applications
(Debian's liblttng-ust) too: each `rotate` moves what they recorded so
far into the archive, a trace babeltrace2 reads on its own, and they go
on recording in a new chunk; every tick is in exactly one chunk (nothing
lost, nothing twice). `clear` empties the current chunk: what it held is
gone, what comes after is recorded. In a snapshot session, `clear`
empties the buffers: the next snapshot starts after it."""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, check, log, run
from lttnglib import require_served, require_tools, start_lttng_app, tick_counts




def ticks_of(chunk, uid):
    """The ticks of the LTTng-UST trace of uid in chunk (a session's
    output or an archive), read on their own."""
    path = os.path.join(chunk, "lttng-ust", "uid", str(uid), "64-bit")
    check(os.path.isfile(os.path.join(path, "metadata")),
          f"{chunk} has no LTTng-UST trace of uid {uid}: "
          f"{sorted(os.listdir(chunk)) if os.path.isdir(chunk) else 'none'}")
    return tick_counts(path)


def rotation(svc, alice):
    out = os.path.join(alice.home, "rot")
    svc.cli("create", "rot", "--output", out, user=alice)
    svc.cli("enable-event", "-u", "tc_lttng_test:tick", user=alice)
    svc.cli("start", user=alice)
    app = start_lttng_app(svc, alice, 60)
    archives = []
    for _ in range(2):
        time.sleep(1.5)
        archives.append(svc.cli("rotate", user=alice).stdout.split()[-1])
    time.sleep(1.5)
    svc.cli("clear", user=alice)
    time.sleep(1.5)
    app.kill()
    app.wait()
    svc.cli("stop", user=alice)
    chunks = [ticks_of(archive, alice.uid) for archive in archives]
    current = ticks_of(out, alice.uid)
    svc.cli("destroy", "rot", user=alice)
    log(f"archives: {[(c[0], c[-1]) if c else None for c in chunks]}, after the clear: "
        f"{(current[0], current[-1]) if current else None}")
    joined = chunks[0] + chunks[1]
    check(chunks[0] and chunks[1] and joined == list(range(len(joined))),
          f"the archives do not hold every tick once, from 0: {chunks}")
    # Cleared 1.5 s after the second rotation: about 15 ticks gone, then
    # about 15 recorded after it.
    check(current and current == list(range(current[0], current[0] + len(current))) and
          current[0] >= joined[-1] + 10 and len(current) >= 8,
          f"after the clear: {current}, the second archive ending at {joined[-1]}")


def snapshot_clear(svc, alice):
    out = os.path.join(alice.home, "fr")
    svc.cli("create", "fr", "--snapshot", "--output", out, user=alice)
    svc.cli("enable-event", "-u", "tc_lttng_test:tick", user=alice)
    svc.cli("start", user=alice)
    app = start_lttng_app(svc, alice, 60)
    time.sleep(2)
    svc.cli("clear", user=alice)
    time.sleep(1.5)
    after = svc.cli_json("snapshot", "record", user=alice)["directory"]
    app.kill()
    app.wait()
    ticks = ticks_of(after, alice.uid)
    svc.cli("destroy", "fr", user=alice)
    log(f"snapshot after a clear: {(ticks[0], ticks[-1]) if ticks else None}")
    check(ticks and ticks[0] >= 10 and ticks == list(range(ticks[0], ticks[0] + len(ticks))),
          f"the snapshot after a clear holds ticks from before it: {ticks}")


def test():
    require_tools()
    with Service(args=["--lttng-ust"]) as svc:
        require_served(svc)
        alice = svc.add_user("tctest-alice")
        rotation(svc, alice)
        snapshot_clear(svc, alice)
        check(svc.alive(), "tracectld died")


run(test)
