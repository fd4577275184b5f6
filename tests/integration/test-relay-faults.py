#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""lttng-relayd killed while a session streams: the application goes on
at its pace (it never blocks), the session's Problem says how many
packets were lost since when and which relay is unreachable; when the
relay is back on the same ports the consumer reconnects by itself, and
the relay's trace reads whole, with events from before and after and
the gap reported as discarded packets, never as a corrupt trace."""

import os
import signal
import socket
import time

from relaylib import Relay
from tclib import Service, check, log, run, wait_for
from tracelib import read_streams

INTERVAL_US = 2000


def problem(svc, name):
    """The Problem line of one tracectl status."""
    for line in svc.cli("status").stdout.splitlines():
        if line.strip().startswith("Problem:"):
            return line.strip()
    return ""


def test():
    hostname = socket.gethostname()
    with Service() as svc, Relay(svc.rundir) as relay:
        svc.cli("create", "faulty", "--set-url", relay.url)
        # Small packets closed every 100 ms: the relay gets data all along.
        svc.cli("enable-channel", "-u", "chan", "--switch-timer", "100000",
                "--subbuf-size", "16384")
        svc.cli("enable-event", "-u", "-c", "chan", "example:*")
        svc.cli("start")
        app = svc.app("--forever", "--interval-us", str(INTERVAL_US))
        time.sleep(1.5)
        relay.stop(signal.SIGKILL)
        killed = time.monotonic()
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
        trace = read_streams(dirs[0])
        seqs = sorted(e["seq"] for e in trace["events"] if e["name"] == "example:all_types")
        gaps = [(a, b) for a, b in zip(seqs, seqs[1:]) if b != a + 1]
        log(f"{len(seqs)} events, gaps {gaps[:4]}, {trace['packets_lost']} packets lost")
        check(len(seqs) > 0 and seqs[0] < 100, f"events from before the loss: {seqs[:3]}")
        check(gaps, "no gap although the relay was down")
        check(seqs[-1] > gaps[-1][1], "no events after the relay came back")
        check(trace["packets_lost"] > 0, "the gap is not reported as discarded packets")


run(test)
