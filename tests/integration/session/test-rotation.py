#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Rotation while an application emits a known sequence: every archive
under <output>/archives/<begin>-<end>-<n> is a trace that babeltrace2
reads without a warning, and the archives together hold every event the
application emitted exactly once; a root session's per-uid traces are
archived together. Refusals: a rotation schedule of size 0
or a timer below its bound, rotating a snapshot session, another user's
session."""

import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, check, log, run
from tracelib import babeltrace_text, read_streams

DENIED = "org.tracectl.Tracing1.Error.PermissionDenied"
ARCHIVE_NAME = re.compile(r"^\d{8}T\d{6}[+-]\d{4}-\d{8}T\d{6}[+-]\d{4}-(\d+)$")
COUNT = 6000


def archives(out):
    """The archive directories of a session, by index."""
    found = {}
    for name in os.listdir(os.path.join(out, "archives")):
        match = ARCHIVE_NAME.match(name)
        check(match is not None, f"archive named {name!r}, not <begin>-<end>-<n>")
        found[int(match.group(1))] = os.path.join(out, "archives", name)
    return [found[i] for i in sorted(found)]


def seqs_of(path):
    return [e["seq"] for e in read_streams(path)["events"] if e["name"] == "example:all_types"]


def check_every_event_once(paths, count):
    all_seqs = []
    for path in paths:
        babeltrace_text(path)  # fails on any warning
        seqs = seqs_of(path)
        log(f"{os.path.basename(path)}: {len(seqs)} events"
            + (f" ({min(seqs)}..{max(seqs)})" if seqs else ""))
        all_seqs += seqs
    missing = set(range(count)) - set(all_seqs)
    check(not missing, f"{len(missing)} events in no archive, e.g. {sorted(missing)[:5]}")
    check(len(all_seqs) == count,
          f"{len(all_seqs) - count} events recorded twice across the archives")


def session_path(svc, user, name):
    result = svc.gdbus("--object-path", "/org/tracectl/Tracing1",
                       "--method", "org.tracectl.Tracing1.Manager.FindSession", name,
                       user=user)
    check(result.returncode == 0, f"FindSession failed: {result}")
    return result.stdout.strip().split("'")[1]


def test_rotate_while_recording(svc):
    out = os.path.join(svc.rundir, "rot")
    svc.cli("create", "rot", "--output", out)
    svc.cli("enable-event", "-u", "example:*")
    early = svc.cli("rotate", check_ok=False)
    check(early.returncode == 1 and "never started" in early.stderr, f"early: {early}")
    svc.cli("start")
    app = svc.app("--count", str(COUNT), "--interval-us", "400")
    printed = []
    object_path = session_path(svc, None, "rot")
    for i in range(3):
        time.sleep(0.6)
        if i == 1:  # the same over the bus, with busctl
            result = subprocess.run(["busctl", f"--address={svc.address}", "call",
                                     "org.tracectl.Tracing1", object_path,
                                     "org.tracectl.Tracing1.Session", "Rotate"],
                                    capture_output=True, text=True, timeout=60)
            check(result.returncode == 0 and result.stdout.startswith('s "'),
                  f"busctl Rotate: {result}")
            printed.append(result.stdout.split('"')[1])
            continue
        result = svc.cli("rotate", "rot").stdout
        check("is now readable at" in result, result)
        printed.append(result.split()[-1])
    out_text, err = app.communicate(timeout=60)
    check(app.returncode == 0, f"app failed: {err}")
    svc.cli("stop")
    printed.append(svc.cli("rotate").stdout.split()[-1])
    again = svc.cli("rotate", check_ok=False)
    check(again.returncode == 1 and "archived already" in again.stderr, f"second: {again}")
    paths = archives(out)
    check(paths == printed, f"archives {paths} but rotate printed {printed}")
    check(len(paths) == 4, f"{len(paths)} archives")
    for path in paths:
        check(os.path.isdir(os.path.join(path, "ust", "uid", "0", "64-bit")),
              f"{path} is not laid out as ust/uid/<uid>/64-bit")
    check(sum(1 for p in paths[:3] if seqs_of(p)) >= 2,
          "the rotations while recording archived nothing")
    check_every_event_once(paths, COUNT)
    last = svc.gdbus("--object-path", object_path, "--method",
                     "org.freedesktop.DBus.Properties.Get", "org.tracectl.Tracing1.Session",
                     "LastArchive")
    check(paths[-1] in last.stdout, f"LastArchive: {last}")
    listing = svc.cli("list", "rot").stdout
    check(f"Last archive: {paths[-1]}" in listing, listing)
    with open(svc.log_path, errors="replace") as f:
        daemon_log = f.read()
    check(f"Session 'rot' of uid 0: archive 3 complete in '{paths[-1]}'" in daemon_log,
          "no log line for the completed archive")
    svc.cli("destroy", "rot")


def test_refusals(svc):
    out = os.path.join(svc.rundir, "bad")
    svc.cli("create", "bad", "--output", out)
    svc.cli("enable-event", "-u", "example:*")
    for args, expected in ((["--size", "0"], "at least 4096 bytes"),
                           (["--size", "100"], "at least 4096 bytes"),
                           (["--timer", "10"], "1000000 to"),
                           (["--timer", "999ms"], "1000000 to")):
        result = svc.cli("enable-rotation", *args, check_ok=False)
        check(result.returncode == 1 and expected in result.stderr,
              f"enable-rotation {args}: {result}")
    result = svc.cli("enable-rotation", "--timer", "soon", check_ok=False)
    check(result.returncode == 2 and "invalid period" in result.stderr, f"bad period: {result}")
    result = svc.cli("disable-rotation", "--timer", check_ok=False)
    check(result.returncode == 1 and "no timer rotation" in result.stderr, f"disable: {result}")
    path = session_path(svc, None, "bad")
    result = svc.gdbus("--object-path", path, "--method",
                       "org.tracectl.Tracing1.Session.SetRotationSchedule",
                       "{'timer': <uint64 5000000>}")
    check(result.returncode != 0 and "Unknown rotation schedule" in result.stderr,
          f"unknown key: {result}")
    result = svc.gdbus("--object-path", path, "--method",
                       "org.tracectl.Tracing1.Session.SetRotationSchedule",
                       "{'size-bytes': <uint32 5000000>}")
    check(result.returncode != 0 and "is a uint64" in result.stderr, f"wrong type: {result}")
    svc.cli("enable-rotation", "--timer", "5s", "--size", "1M")
    for prop, value in (("RotationTimer", "5000000"), ("RotationSize", "1048576")):
        result = svc.gdbus("--object-path", path, "--method",
                           "org.freedesktop.DBus.Properties.Get",
                           "org.tracectl.Tracing1.Session", prop)
        check(value in result.stdout, f"{prop}: {result}")
    status = svc.cli("status").stdout
    check("Rotation: every 5000000 us" in status and "Rotation: at 1048576 bytes" in status,
          status)
    svc.cli("disable-rotation", "--timer", "--size")
    check("Rotation:" not in svc.cli("status").stdout, "schedule still shown")
    svc.cli("destroy", "bad")

    snap = os.path.join(svc.rundir, "snap")
    svc.cli("create", "snap", "--snapshot", "--output", snap)
    svc.cli("enable-event", "-u", "example:*")
    svc.cli("start")
    for args in (["rotate"], ["enable-rotation", "--timer", "2s"]):
        result = svc.cli(*args, check_ok=False)
        check(result.returncode == 1 and "snapshot session" in result.stderr,
              f"{args} on a snapshot session: {result}")
    svc.cli("destroy", "snap")

    alice = svc.add_user("tctest-alice")
    bob = svc.add_user("tctest-bob")
    svc.cli("create", "work", user=alice)
    svc.cli("enable-event", "-u", "example:*", user=alice)
    svc.cli("start", user=alice)
    path = session_path(svc, alice, "work")
    for method, args in (("Rotate", []), ("Clear", []),
                         ("SetRotationSchedule", ["{'timer-us': <uint64 5000000>}"]),
                         ("UnsetRotationSchedule", ["[]"])):
        result = svc.gdbus("--object-path", path, "--method",
                           f"org.tracectl.Tracing1.Session.{method}", *args, user=bob)
        check(result.returncode != 0 and DENIED in result.stderr,
              f"bob's {method} on alice's session: {result}")
    result = svc.cli("rotate", "work", user=bob, check_ok=False)  # 3: not found
    check(result.returncode == 3, f"bob rotated a session named like alice's: {result}")
    alice_out = svc.gdbus("--object-path", path, "--method",
                          "org.freedesktop.DBus.Properties.Get",
                          "org.tracectl.Tracing1.Session", "OutputDirectory", user=alice)
    out_dir = alice_out.stdout.split("'")[1]
    check(not os.path.exists(os.path.join(out_dir, "archives")), "bob's rotation archived")
    # Alice's own rotation works, and her archive is hers.
    archive = svc.cli("rotate", user=alice).stdout.split()[-1]
    check(os.stat(archive).st_uid == alice.uid, f"{archive} is not alice's")
    svc.cli("destroy", "work", user=alice)


def test_root_session(svc):
    """Root's session records every user's applications, each in a per-uid
    trace: a rotation archives all of them, in the same archive."""
    alice = svc.add_user("tctest-alice")
    out = os.path.join(svc.rundir, "all")
    svc.cli("create", "all", "--output", out)
    svc.cli("enable-event", "-u", "example:*")
    svc.cli("start")
    svc.run_app("--count", "300", user=alice)
    svc.run_app("--count", "200")
    archive = svc.cli("rotate").stdout.split()[-1]
    svc.run_app("--count", "50", user=alice)
    svc.cli("stop")
    for uid, count in ((0, 200), (alice.uid, 300)):
        trace = os.path.join(archive, "ust", "uid", str(uid), "64-bit")
        babeltrace_text(trace)
        check(sorted(seqs_of(trace)) == list(range(count)), f"uid {uid} in {archive}")
    current = os.path.join(out, "ust", "uid", str(alice.uid), "64-bit")
    check(sorted(seqs_of(current)) == list(range(50)), "alice's events after the rotation")
    svc.cli("destroy", "all")


def test():
    with Service() as svc:
        test_rotate_while_recording(svc)
        test_refusals(svc)
        test_root_session(svc)


run(test)
