#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""lttng-relayd killed while a session streams: the application goes on
at its pace (it never blocks), the session's Problem says how many
packets were lost since when and which relay is unreachable, and a
subscriber gets ProblemChanged with nobody asking for the status; when the
relay is back on the same ports the consumer reconnects by itself, and
the relay's trace reads whole, with events from before and after and
the gap reported as discarded packets, never as a corrupt trace. The
same after a rotation: the chunk current when the relay comes back goes
on in the directory the lost relay filled, which the next rotation
archives as one trace reporting the gap as discarded packets; every
archive and the trace left current read whole, no event twice."""

import os
import re
import signal
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from relaylib import Relay, start_streamed_session
from signallib import Listener
from tclib import EXAMPLE_APP, Service, check, consumer_pid, log, run, wait_for
from tracelib import babeltrace_text, read_streams

INTERVAL_US = 2000


def problem(svc, name):
    """The Problem line of one tracectl status."""
    for line in svc.cli("status").stdout.splitlines():
        if line.strip().startswith("Problem:"):
            return line.strip()
    return ""


def pinned_app(svc, *args):
    """The example application on one CPU, so that the stream that loses
    packets with the relay had packets before: a gap needs a packet before
    it to be reported."""
    return svc.app("-c", "0", EXAMPLE_APP, *args, program="taskset")


def test_reconnect():
    hostname = socket.gethostname()
    with Service() as svc, Relay(svc.rundir) as relay:
        start_streamed_session(svc, "faulty", relay.url)
        app = pinned_app(svc, "--forever", "--interval-us", str(INTERVAL_US))
        subscriber = Listener(svc)
        time.sleep(1.5)
        relay.stop(signal.SIGKILL)
        killed = time.monotonic()
        # Nobody asks for the session's status: the service looks at its
        # relay on its own, and a subscriber learns of the loss.
        changed = subscriber.wait_member("ProblemChanged",
                                         lambda s: "unreachable" in s["args"][1], timeout=15)
        log(f"ProblemChanged {time.monotonic() - killed:.1f} s after the loss: "
            f"{changed['args'][1]}")
        subscriber.close()
        time.sleep(2)
        # The very first status after the loss shows it, in JSON and text.
        first = svc.cli_json("status").get("problem") or ""
        log(f"relay down, first status --json: {first}")
        check("lost" in first and "unreachable" in first,
              f"the first status after the loss does not show it: {first!r}")
        text = problem(svc, "faulty")
        log(f"relay down: {text}")
        check("lost" in text and "packets since" in text and
              f"relay {relay.url}" in text and "unreachable" in text, f"Problem: {text!r}")
        check(app.poll() is None, "the application stopped while the relay was down")

        relay.start()
        wait_for(lambda: "reconnected" in problem(svc, "faulty"), 15, "the consumer to reconnect")
        log(f"relay back after {time.monotonic() - killed:.1f} s: {problem(svc, 'faulty')}")
        time.sleep(1.5)
        app.terminate()
        app.wait(timeout=10)
        svc.cli("stop")
        svc.cli("destroy", "faulty")
        check(svc.alive(), "tracectld died")

        dirs = [d for d in relay.trace_dirs(hostname) if os.path.basename(d).startswith("faulty-")]
        check(len(dirs) == 1, f"relay directories: {relay.trace_dirs(hostname)}")
        relay.wait_closed(dirs[0])
        trace = read_streams(dirs[0])
        seqs = sorted(e["seq"] for e in trace["events"] if e["name"] == "example:all_types")
        gaps = [(a, b) for a, b in zip(seqs, seqs[1:]) if b != a + 1]
        log(f"{len(seqs)} events, gaps {gaps[:4]}, {trace['packets_lost']} packets lost")
        check(len(seqs) > 0 and seqs[0] < 100, f"events from before the loss: {seqs[:3]}")
        check(gaps, "no gap although the relay was down")
        check(seqs[-1] > gaps[-1][1], "no events after the relay came back")
        check(trace["packets_lost"] > 0, "the gap is not reported as discarded packets")



ARCHIVE_NAME = re.compile(r"^\d{8}T\d{6}[+-]\d{4}-\d{8}T\d{6}[+-]\d{4}-(\d+)$")
CHUNK_NAME = re.compile(r"^\d{8}T\d{6}[+-]\d{4}-(\d+)$")


def test_after_rotation(svc, relay, hostname):
    """Rotate, lose the relay, get it back, rotate again: the session's
    directory holds archives/ and the current chunk's directory only."""
    count = 8000
    start_streamed_session(svc, "frot", relay.url)
    app = pinned_app(svc, "--count", str(count), "--interval-us", "500")
    time.sleep(0.8)
    svc.cli("rotate", "frot")
    time.sleep(0.5)
    relay.stop(signal.SIGKILL)
    time.sleep(1)
    relay.start()
    wait_for(lambda: "reconnected" in problem(svc, "frot"), 15, "the consumer to reconnect")
    time.sleep(0.5)
    dirs = [d for d in relay.trace_dirs(hostname) if os.path.basename(d).startswith("frot-")]
    check(len(dirs) == 1, f"relay directories: {relay.trace_dirs(hostname)}")
    entries = sorted(os.listdir(dirs[0]))
    log(f"session directory after the reconnection: {entries}")
    check(not {"ust", "kernel", "index"} & set(entries),
          f"the reconnected chunk is filed in the session's directory itself: {entries}")
    chunks = [e for e in entries if CHUNK_NAME.match(e)]
    check(len(chunks) == 1, f"the reconnection began a chunk directory of its own: {entries}")
    svc.cli("rotate", "frot")
    _, err = app.communicate(timeout=60)
    check(app.returncode == 0, f"app failed: {err}")
    svc.cli("stop")
    svc.cli("destroy", "frot")
    relay.wait_closed(dirs[0])
    entries = sorted(os.listdir(dirs[0]))
    log(f"session directory at the end: {entries}")
    check("archives" in entries and not {"ust", "kernel", "index"} & set(entries),
          f"a chunk filed in the session's directory itself: {entries}")
    check(all(ARCHIVE_NAME.match(e) or CHUNK_NAME.match(e) for e in entries if e != "archives"),
          f"not chunk directories: {entries}")
    archived = sorted(os.listdir(os.path.join(dirs[0], "archives")))
    check(all(ARCHIVE_NAME.match(a) for a in archived), f"archives: {archived}")
    paths = [os.path.join(dirs[0], "archives", a) for a in archived]
    paths += [os.path.join(dirs[0], e) for e in entries if e != "archives"]
    seqs, lost = [], 0
    for path in paths:
        babeltrace_text(path, allow_discards=True)  # any other warning fails
        trace = read_streams(path)
        these = [e["seq"] for e in trace["events"] if e["name"] == "example:all_types"]
        log(f"{os.path.basename(path)}: {len(these)} events, {trace['packets_lost']} packets "
            "lost")
        seqs += these
        lost += trace["packets_lost"]
    check(len(seqs) == len(set(seqs)), f"{len(seqs) - len(set(seqs))} events recorded twice")
    check(seqs and max(seqs) == count - 1, "the events after the reconnection are missing")
    log(f"{count - len(seqs)} events lost with the relay, {lost} packets reported lost")
    check(len(archived) == 2, f"archives: {archived}")
    check(count - len(seqs) > 0 and lost > 0,
          "the packets dropped while the relay was away are not reported as discarded")


def test_consumer_lost_after_relay():
    """A lost consumer outweighs a lost relay in Problem: it writes no
    more, whichever relay comes back. (Nothing puts the relay's back: a
    consumer that is gone is never asked about its relay.)"""
    with Service() as svc, Relay(svc.rundir) as relay:
        start_streamed_session(svc, "orphan", relay.url)
        relay.stop(signal.SIGKILL)
        wait_for(lambda: "unreachable" in problem(svc, "orphan"), 15, "the relay's Problem")
        os.kill(consumer_pid(svc), signal.SIGKILL)
        wait_for(lambda: "consumer" in problem(svc, "orphan"), 15, "the consumer's Problem")
        log(f"relay then consumer lost: {problem(svc, 'orphan')}")


def test_all():
    test_reconnect()
    test_consumer_lost_after_relay()
    with Service() as svc, Relay(svc.rundir) as relay:
        test_after_rotation(svc, relay, socket.gethostname())


run(test_all)
