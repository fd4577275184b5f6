#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Writers of both kinds in the same buffers, with the consumer closing
sub-buffers under them.

An application's tracepoints move a buffer's write position with a plain
store in a restartable sequence on the buffer's CPU; a thread without an
rseq area, and the consumer's flush, move it with a locked swap from
anywhere, after locking the plain moves out (tc_rb_move_position(),
tc-rb.c). A lock-out that did not hold would let two reservations share
bytes: records overwritten or torn, packets dropped as corrupt.

One user's applications share the user's buffers. An application with rseq
runs alone for a while, then beside one with rseq turned off
(glibc.pthread.rseq=0), each with unpinned threads and signal handlers
that emit in the middle of their writes, while the switch timer makes the
consumer close the sub-buffers being filled every millisecond. From the
trace: no (process, thread, event, seq) twice, no packet whose
events_discarded is below the one before it in its stream, and the events
recorded plus those the packets say were discarded are all the events
emitted."""

import collections
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import STRESS_APP, Service, check, log, run
from tracelib import read_streams

THREADS = 3
COUNT = 150000
SIGNALS = 2000


def emitted_by(proc, name):
    out, err = proc.communicate(timeout=240)
    check(proc.returncode == 0, f"{name} failed ({proc.returncode}): {out} {err}")
    check(err == "", f"{name} wrote to stderr: {err!r}")
    lines = [dict(part.split("=") for part in line.split()) for line in out.splitlines()]
    check(len(lines) == THREADS, f"{name} printed {out!r}")
    return lines


def test():
    with Service() as svc:
        out = os.path.join(svc.rundir, "rb-mixed")
        svc.cli("create", "mixed", "--output", out)
        svc.cli("enable-channel", "-u", "small", "--subbuf-size", "16k", "--num-subbuf", "8",
                "--switch-timer", "1000", "--read-timer", "1000")
        svc.cli("add-context", "-u", "-c", "small", "-t", "vpid")
        svc.cli("enable-event", "-u", "-c", "small", "stress:*")
        svc.cli("start")
        args = ("--threads", str(THREADS), "--count", str(COUNT), "--signals", str(SIGNALS))
        with_rseq = svc.app(*args, program=STRESS_APP)
        time.sleep(0.3)
        without_rseq = svc.app(*args, program=STRESS_APP,
                               extra_env={"GLIBC_TUNABLES": "glibc.pthread.rseq=0"})
        emitted = {with_rseq.pid: emitted_by(with_rseq, "the application with rseq"),
                   without_rseq.pid: emitted_by(without_rseq, "the application without rseq")}
        check(all(int(line["rseq"]) > 0 for line in emitted[with_rseq.pid]),
                  "the first application has no rseq area")
        check(all(int(line["rseq"]) == 0 for line in emitted[without_rseq.pid]),
                  "the second application has an rseq area")
        svc.cli("stop")
        check(svc.alive(), "tracectld died")

        trace = read_streams(out)
        seen = collections.defaultdict(set)
        for e in trace["events"]:
            key = (e["ctx_vpid"], e["name"], e["thread"])
            check(e["seq"] not in seen[key], f"{key} seq {e['seq']} recorded twice")
            seen[key].add(e["seq"])
        total_emitted = 0
        for pid, lines in emitted.items():
            for line in lines:
                thread, events, signals = int(line["thread"]), int(line["events"]), \
                    int(line["signals"])
                total_emitted += events + signals
                for name, count in (("stress:thread", events), ("stress:signal", signals)):
                    seqs = seen[(pid, name, thread)]
                    check(all(seq < count for seq in seqs),
                          f"{pid} {name} {thread}: a seq beyond {count}")
                log(f"pid {pid} thread {thread}: {events} + {signals} emitted, "
                    f"{len(seen[(pid, 'stress:thread', thread)])} + "
                    f"{len(seen[(pid, 'stress:signal', thread)])} recorded")
        recorded = sum(len(seqs) for seqs in seen.values())
        # A packet's events_discarded is a free-running count, and CTF
        # readers report the difference from the packet before, modulo
        # 2^64: a count that stepped back within a stream shows as a
        # number of discarded events near 2^64.
        for stream, count in trace["discarded"].items():
            check(count < 1 << 63,
                  f"stream {stream}: {count} events discarded: a packet's "
                  f"events_discarded stepped back")
        discarded = sum(trace["discarded"].values())
        log(f"{total_emitted} emitted, {recorded} recorded, {discarded} discarded")
        check(recorded + discarded == total_emitted,
              f"{recorded} recorded + {discarded} discarded != {total_emitted} emitted")
        check(trace["packets_lost"] == 0, "packets were lost in discard mode")
        check(recorded > total_emitted // 10, "hardly anything was recorded")
        svc.cli("destroy", "mixed")


run(test)
