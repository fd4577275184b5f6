#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Overwrite (flight recorder) mode through the whole system: with nothing
read while the application runs, small buffers keep only the newest
packets. For every thread the last event it emitted is in the trace, no
event is there twice or out of order, and no event is reported as
discarded: overwriting loses whole packets, oldest first."""

import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import STRESS_APP, Service, check, log, run
from tracelib import read_streams

COUNT = 100000


def test():
    with Service() as svc:
        out = os.path.join(svc.rundir, "rb-overwrite")
        svc.cli("create", "flight", "--output", out)
        # --read-timer 0: the consumer reads only at stop.
        svc.cli("enable-channel", "-u", "ring", "--overwrite", "--subbuf-size", "4k",
                "--num-subbuf", "4", "--read-timer", "0")
        ring = svc.session("flight")["channels"][0]
        check(ring["name"] == "ring" and ring["settings"]["overwrite"] is True,
              f"overwrite mode not listed: {ring}")
        svc.cli("enable-event", "-u", "-c", "ring", "stress:*")
        svc.cli("start")
        threads = min(2, os.cpu_count())
        out_text = svc.run_app("--threads", str(threads), "--count", str(COUNT),
                               "--signals", "500", "--pin", program=STRESS_APP, timeout=240)
        svc.cli("stop")
        check(svc.alive(), "tracectld died")

        trace = read_streams(out)
        events = trace["events"]
        for thread in range(threads):
            for name in ("stress:thread", "stress:signal"):
                seqs = [e["seq"] for e in events if e["name"] == name and e["thread"] == thread]
                check(all(a < b for a, b in zip(seqs, seqs[1:])),
                      f"{name} of thread {thread} duplicated or out of order")
            seqs = [e["seq"] for e in events if e["name"] == "stress:thread"
                    and e["thread"] == thread]
            check(seqs and seqs[-1] == COUNT - 1,
                  f"thread {thread}: newest event {seqs[-1:]} is not {COUNT - 1}")
            check(len(seqs) < COUNT, f"thread {thread}: nothing was overwritten")
            log(f"thread {thread}: kept {len(seqs)} newest of {COUNT}, "
                f"from {seqs[0]} to {seqs[-1]}")
        check(sum(trace["discarded"].values()) == 0,
              f"events discarded in overwrite mode: {trace['discarded']}, {out_text}")
        check(len(out_text.splitlines()) == threads, "stress app output")
        # babeltrace2 reads it all; it may mention the overwritten packets.
        proc = subprocess.run(["babeltrace2", out], capture_output=True, text=True, timeout=300)
        check(proc.returncode == 0, f"babeltrace2 failed: {proc.stderr[-2000:]}")
        check(proc.stdout.count("stress:thread") == sum(
            1 for e in events if e["name"] == "stress:thread"), "babeltrace2 text differs")
        svc.cli("destroy", "flight")


run(test)
