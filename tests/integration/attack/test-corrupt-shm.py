#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""An application writes garbage over its own ring buffers in the middle
of a run. The consumer survives, drops the corrupt packets (and logs
them), the session reports no problem, and the rest of the trace reads
with babeltrace2: events before and after the scribbling are there, in
order."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import STRESS_APP, Service, check, log, run
from tracelib import read_streams

COUNT = 40000


def test():
    with Service() as svc:
        out = os.path.join(svc.rundir, "corrupt")
        svc.cli("create", "corrupt", "--output", out)
        svc.cli("enable-channel", "-u", "c", "--subbuf-size", "16k", "--num-subbuf", "4",
                "--read-timer", "5000")
        svc.cli("enable-event", "-u", "-c", "c", "stress:*")
        svc.cli("start")
        svc.run_app("--threads", "1", "--count", str(COUNT), "--signals", "0", "--scribble",
                    "--pace", "200",
                    program=STRESS_APP, timeout=240)
        svc.cli("stop")
        check(svc.alive(), "tracectld died")
        status = svc.session()
        check(status["problem"] is None, f"the consumer was lost: {status}")
        trace = read_streams(out)
        seqs = [e["seq"] for e in trace["events"] if e["name"] == "stress:thread"]
        check(all(a < b for a, b in zip(seqs, seqs[1:])), "events out of order or repeated")
        check(any(s < COUNT // 2 for s in seqs) and any(s > COUNT // 2 for s in seqs),
              "events before or after the scribbling are missing")
        log(f"{len(seqs)} of {COUNT} events read back, {trace['packets_lost']} packets lost")
        svc.cli("destroy", "corrupt")
        with open(svc.log_path, errors="replace") as f:
            check("corrupt packet" in f.read(), "no corrupt packet was logged")


run(test)
