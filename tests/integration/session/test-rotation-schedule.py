#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Rotation schedules: a timer rotation and a size rotation each produce
archives on their own while an application records, every archive reads
in babeltrace2 without a warning and, with the chunk left at the end, they
hold every event exactly once; no rotation happens once the schedule is
turned off or while the session is stopped. A rotation that fails is an
error naming the archive, and a scheduled one is retried later."""

import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, check, log, run, wait_for
from tracelib import babeltrace_text, read_streams

ARCHIVE_NAME = re.compile(r"^\d{8}T\d{6}[+-]\d{4}-\d{8}T\d{6}[+-]\d{4}-(\d+)$")


def archives(out):
    directory = os.path.join(out, "archives")
    if not os.path.isdir(directory):
        return []
    found = {}
    for name in os.listdir(directory):
        match = ARCHIVE_NAME.match(name)
        check(match is not None, f"archive named {name!r}")
        found[int(match.group(1))] = os.path.join(directory, name)
    check(sorted(found) == list(range(len(found))), f"archive indexes {sorted(found)}")
    return [found[i] for i in sorted(found)]


def check_every_event_once(paths, count):
    seqs = []
    for path in paths:
        babeltrace_text(path)
        seqs += [e["seq"] for e in read_streams(path)["events"]
                 if e["name"] == "example:all_types"]
    check(sorted(seqs) == list(range(count)),
          f"{len(seqs)} events for {count}, {len(set(range(count)) - set(seqs))} missing")


def test_timer(svc):
    out = os.path.join(svc.rundir, "timer")
    svc.cli("create", "timer", "--output", out)
    svc.cli("enable-event", "-u", "example:*")
    printed = svc.cli("enable-rotation", "--timer", "1s").stdout
    check("every 1000000 us" in printed, printed)
    svc.cli("start")
    app = svc.app("--count", "3500", "--interval-us", "1000")
    _, err = app.communicate(timeout=60)
    check(app.returncode == 0, f"app failed: {err}")
    svc.cli("disable-rotation", "--timer")
    svc.cli("stop")
    paths = archives(out)
    log(f"timer: {len(paths)} archives")
    check(len(paths) >= 2, f"{len(paths)} archives after 3.5 s of a 1 s timer")
    time.sleep(1.2)
    check(len(archives(out)) == len(paths), "rotated after the schedule was turned off")
    check_every_event_once(paths + [os.path.join(out, "ust")], 3500)
    svc.cli("destroy", "timer")


def test_size(svc):
    out = os.path.join(svc.rundir, "size")
    svc.cli("create", "size", "--output", out)
    svc.cli("enable-channel", "-u", "small", "--subbuf-size", "16k", "--num-subbuf", "8")
    svc.cli("enable-event", "-u", "example:*", "-c", "small")
    printed = svc.cli("enable-rotation", "--size", "64k").stdout
    check("at 65536 bytes" in printed, printed)
    svc.cli("start")
    app = svc.app("--count", "8000", "--interval-us", "200")
    _, err = app.communicate(timeout=60)
    check(app.returncode == 0, f"app failed: {err}")
    svc.cli("stop")
    time.sleep(0.5)  # stopped: no rotation, whatever the size
    paths = archives(out)
    log(f"size: {len(paths)} archives")
    check(len(paths) >= 2, f"{len(paths)} archives for about a megabyte at 64 KiB")
    check(len(archives(out)) == len(paths), "rotated while stopped")
    check_every_event_once(paths + [os.path.join(out, "ust")], 8000)
    svc.cli("destroy", "size")


def test_failure(svc):
    """A rotation that cannot be made is an error naming the archive; a
    scheduled one is logged once and retried later, and recording goes on."""
    out = os.path.join(svc.rundir, "blocked")
    svc.cli("create", "blocked", "--output", out)
    svc.cli("enable-event", "-u", "example:*")
    svc.cli("start")
    with open(os.path.join(out, "archives"), "w"):
        pass  # a file where the archives directory goes
    result = svc.cli("rotate", check_ok=False)
    check(result.returncode == 1 and "cannot archive into" in result.stderr and
          os.path.join(out, "archives") in result.stderr, f"rotate: {result}")
    svc.cli("enable-rotation", "--timer", "1s")
    svc.run_app("--count", "100")

    def failures():
        with open(svc.log_path, errors="replace") as f:
            return f.read().count("Session 'blocked' of uid 0: scheduled rotation failed, "
                                  "next try in 10 s")
    # The first failure, however late the timer fires on a slow machine;
    # then a period and a half more, in which a retry on every tick would
    # fail again, long before the next try.
    wait_for(lambda: failures() >= 1, 8, "the scheduled rotation's failure to be logged")
    time.sleep(1.5)
    check(failures() == 1, f"{failures()} logged failures of the scheduled rotation")
    svc.cli("stop")
    seqs = [e["seq"] for e in read_streams(os.path.join(out, "ust"))["events"]
            if e["name"] == "example:all_types"]
    check(sorted(seqs) == list(range(100)), f"{len(seqs)} events recorded")
    svc.cli("destroy", "blocked")


def test():
    with Service() as svc:
        test_timer(svc)
        test_size(svc)
        test_failure(svc)


run(test)
