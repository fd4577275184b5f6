#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The ring buffer under stress, through the whole system, in discard mode.

Two threads, each pinned to its own CPU, emit (thread, seq) events as fast
as they can into small buffers, while signal handlers emit their own
(thread, seq) events in the middle of the threads' writes. From the trace
alone, for every thread: recorded + discarded (from the packet contexts of
its CPU's stream) == emitted, no event twice, none out of order, and
babeltrace2 reads it all. The consumer writes behind: of the megabytes it
wrote, only its last few packets per stream are left in the page cache.

Twice: as glibc sets threads up (an rseq area each: commits on the
buffer's CPU add to its local count, tc-rb-rseq.h), and with rseq turned
off (glibc.pthread.rseq=0: every commit is remote, the CPU comes from
sched_getcpu())."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import STRESS_APP, Service, check, log, page_cache_bytes, run
from tracelib import read_streams

COUNT = 1000000
SIGNALS = 3000


def parse_emitted(out):
    emitted = {}
    for line in out.splitlines():
        fields = dict(part.split("=") for part in line.split())
        emitted[int(fields["thread"])] = {k: int(v) for k, v in fields.items()}
    return emitted


def check_thread_order(events, name, thread):
    seqs = [e["seq"] for e in events if e["name"] == name and e["thread"] == thread]
    check(all(a < b for a, b in zip(seqs, seqs[1:])),
          f"{name} of thread {thread} duplicated or out of order")
    return len(seqs)


def check_write_behind(out):
    streams = [os.path.join(d, f) for d, _, files in os.walk(os.path.join(out, "ust"))
               for f in files if f.startswith("small_")]
    check(streams, "no stream file")
    sizes = []
    for path in streams:
        cached, size = page_cache_bytes(path)
        log(f"{os.path.basename(path)}: {size} bytes, {cached} in the page cache")
        check(cached <= (2 << 20) + 4096, f"{path}: {cached} of {size} bytes left in the page cache")
        sizes.append(size)
    check(max(sizes) >= 3 << 20, f"streams of {sizes} bytes: too small to tell")


def test():
    for rseq in (True, False):
        stress(rseq)


def stress(rseq):
    cpus = os.cpu_count()
    extra_env = None if rseq else {"GLIBC_TUNABLES": "glibc.pthread.rseq=0"}
    log(f"with rseq: {rseq}")
    with Service() as svc:
        out = os.path.join(svc.rundir, "rb-stress")
        svc.cli("create", "stress", "--output", out)
        svc.cli("enable-channel", "-u", "small", "--subbuf-size", "4k", "--num-subbuf", "8",
                "--read-timer", "1000")
        svc.cli("enable-event", "-u", "-c", "small", "stress:*")
        svc.cli("start")
        threads = min(2, cpus)
        emitted = parse_emitted(svc.run_app("--threads", str(threads), "--count", str(COUNT),
                                            "--signals", str(SIGNALS), "--pin",
                                            extra_env=extra_env, program=STRESS_APP,
                                            timeout=240))
        for thread, counts in emitted.items():
            check((counts["rseq"] > 0) == rseq,
                  f"thread {thread}: rseq area of {counts['rseq']} bytes, expected rseq={rseq}")
        svc.cli("stop")
        check(svc.alive(), "tracectld died")
        check_write_behind(out)

        trace = read_streams(out)
        events = trace["events"]
        stream_of_cpu = {e["cpu"]: e["stream"] for e in events}
        total_discarded = 0
        for thread, counts in emitted.items():
            check(counts["cpu"] >= 0, f"thread {thread} could not be pinned")
            mine = [e for e in events if e["thread"] == thread]
            check(all(e["cpu"] == counts["cpu"] for e in mine),
                  f"events of thread {thread} outside its CPU")
            recorded = (check_thread_order(events, "stress:thread", thread) +
                        check_thread_order(events, "stress:signal", thread))
            stream = stream_of_cpu.get(counts["cpu"])
            discarded = trace["discarded"].get(str(stream), 0)
            total_discarded += discarded
            log(f"thread {thread}: {counts['events']} events + {counts['signals']} from "
                f"handlers emitted, {recorded} recorded, {discarded} discarded")
            check(counts["signals"] > 0, f"no signal handler ran on thread {thread}")
            check(recorded + discarded == counts["events"] + counts["signals"],
                  f"thread {thread}: {recorded} + {discarded} != "
                  f"{counts['events']} + {counts['signals']}")
        check(total_discarded > 0, "nothing was discarded: the test did not stress anything")
        check(trace["packets_lost"] == 0, "packets were lost in discard mode")
        svc.cli("destroy", "stress")


run(test)
