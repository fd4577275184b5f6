#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Rotation and clear of a session streamed to lttng-relayd, through the
relay's trace chunk commands as LTTng does them: while an application
emits numbered events, each rotation makes the relay archive the chunk
under <relay output>/<host>/<session>-<date>/archives/<begin>-<end>-<n>/;
every archive is a trace babeltrace2 reads on its own without a warning,
and the archives together hold every event exactly once. A clear makes
the relay delete what was recorded: afterwards the relay holds only the
events recorded after the clear; a relay that disallows clearing makes
the clear fail, naming it, and nothing changes. A timer schedule rotates
the same way, and the kernel streams of a session rotate with it. A root
session recording several users' applications (a trace per user, one
trace chunk on the relay for them all) rotates and clears every user's
trace at once. A live session's rotation is refused, as LTTng refuses
it."""

import os
import re
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from relaylib import Relay
from tclib import Service, check, log, mount_tracefs, run
from tracelib import babeltrace_text, read_streams

ARCHIVE_NAME = re.compile(r"^\d{8}T\d{6}[+-]\d{4}-\d{8}T\d{6}[+-]\d{4}-(\d+)$")
COUNT = 6000


def relay_session_dir(relay, hostname, name):
    dirs = [d for d in relay.trace_dirs(hostname) if os.path.basename(d).startswith(name + "-")]
    check(len(dirs) == 1, f"relay directories of {name}: {relay.trace_dirs(hostname)}")
    return dirs[0]


def archives(session_dir):
    found = {}
    root = os.path.join(session_dir, "archives")
    check(os.path.isdir(root), f"no archives on the relay: {os.listdir(session_dir)}")
    for name in os.listdir(root):
        match = ARCHIVE_NAME.match(name)
        check(match is not None, f"archive named {name!r}, not <begin>-<end>-<n>")
        found[int(match.group(1))] = os.path.join(root, name)
    return [found[i] for i in sorted(found)]


def events_of(path, name):
    return [e for e in read_streams(path)["events"] if e["name"] == name]


def seqs_of(path):
    return [e["seq"] for e in events_of(path, "example:all_types")]


def test_rotate(svc, relay, hostname):
    svc.cli("create", "rrot", "--set-url", relay.url)
    svc.cli("enable-event", "-u", "example:*")
    svc.cli("start")
    app = svc.app("--count", str(COUNT), "--interval-us", "400")
    printed = []
    for _ in range(2):
        time.sleep(0.8)
        result = svc.cli("rotate", "rrot").stdout
        check("is now readable at" in result, result)
        printed.append(result.split()[-1])
    _, err = app.communicate(timeout=60)
    check(app.returncode == 0, f"app failed: {err}")
    svc.cli("stop")
    printed.append(svc.cli("rotate").stdout.split()[-1])
    svc.cli("destroy", "rrot")
    session = relay_session_dir(relay, hostname, "rrot")
    paths = archives(session)
    # Printed as the relay names them: under its output directory.
    relative = [os.path.relpath(p, relay.output) for p in paths]
    check(relative == printed, f"archives {relative} on the relay but rotate printed {printed}")
    all_seqs = []
    for path in paths:
        check(os.path.isdir(os.path.join(path, "ust", "uid", str(os.getuid()), "64-bit")),
              f"{path} is not laid out as ust/uid/<uid>/64-bit: {os.listdir(path)}")
        babeltrace_text(path)  # fails on any warning
        seqs = seqs_of(path)
        log(f"{os.path.basename(path)}: {len(seqs)} events"
            + (f" ({min(seqs)}..{max(seqs)})" if seqs else ""))
        all_seqs += seqs
    check(sum(1 for p in paths[:2] if seqs_of(p)) == 2,
          "a rotation while recording archived nothing")
    missing = set(range(COUNT)) - set(all_seqs)
    check(not missing, f"{len(missing)} events in no archive, e.g. {sorted(missing)[:5]}")
    check(len(all_seqs) == COUNT,
          f"{len(all_seqs) - COUNT} events recorded twice across the archives")


def test_rotate_kernel(svc, relay, hostname):
    """The kernel streams of a streamed session rotate with it."""
    mount_tracefs()
    svc.cli("create", "rkrot", "--set-url", relay.url)
    svc.cli("enable-event", "-u", "example:*")
    svc.cli("enable-event", "-k", "sched:sched_switch")
    svc.cli("start")
    app = svc.app("--count", "2000", "--interval-us", "500")
    time.sleep(0.5)
    svc.cli("rotate")
    _, err = app.communicate(timeout=60)
    check(app.returncode == 0, f"app failed: {err}")
    svc.cli("stop")
    svc.cli("rotate")
    svc.cli("destroy", "rkrot")
    paths = archives(relay_session_dir(relay, hostname, "rkrot"))
    check(len(paths) == 2, f"{len(paths)} archives")
    seqs = []
    for path in paths:
        check(os.path.exists(os.path.join(path, "kernel", "metadata")),
              f"no kernel trace in {path}: {os.listdir(path)}")
        babeltrace_text(path)
        names = [e["name"] for e in read_streams(path)["events"]]
        check(any(n.endswith("sched_switch") for n in names), f"no sched_switch in {path}")
        seqs += seqs_of(path)
    check(sorted(seqs) == list(range(2000)), f"{len(seqs)} events, not 2000 once each")


def test_rotate_users(svc, relay, hostname, users):
    """Each rotation archives every user's trace of a root session in one
    archive: per user, every event exactly once across the archives. The
    second user's application starts after the first rotation: its trace
    joins the session's current chunk."""
    count = 3000
    svc.cli("create", "rmulti", "--set-url", relay.url)
    svc.cli("enable-event", "-u", "example:*")
    svc.cli("start")
    apps = [svc.app("--count", str(count), "--interval-us", "500", user=users[0])]
    for rotation in range(2):
        time.sleep(0.6)
        result = svc.cli("rotate", "rmulti").stdout
        check("is now readable at" in result, result)
        if rotation == 0:
            apps += [svc.app("--count", str(count), "--interval-us", "500", user=u)
                     for u in users[1:]]
    for app in apps:
        _, err = app.communicate(timeout=60)
        check(app.returncode == 0, f"app failed: {err}")
    svc.cli("stop")
    svc.cli("rotate")
    svc.cli("destroy", "rmulti")
    session = relay_session_dir(relay, hostname, "rmulti")
    leftovers = [e for e in os.listdir(session) if e.startswith(".tmp")]
    check(not leftovers, f"the relay left {leftovers} in the session's directory")
    paths = archives(session)
    check(len(paths) == 3, f"{len(paths)} archives, not 3: {paths}")
    for user in users:
        seqs = []
        for path in paths:
            trace = os.path.join(path, "ust", "uid", str(user.uid))
            if os.path.isdir(trace):
                seqs += seqs_of(trace)
        log(f"{user.name}: {len(seqs)} events across the archives")
        check(sorted(seqs) == list(range(count)),
              f"{user.name}: {len(seqs)} events across the archives, not {count} once each")
    for path in paths:
        babeltrace_text(path)  # fails on any warning
    check(all(os.path.isdir(os.path.join(paths[1], "ust", "uid", str(u.uid))) for u in users),
          f"the second archive lacks a user's trace: {os.listdir(paths[1])}")


def test_clear_users(svc, relay, hostname, users):
    """A clear of a root session drops every user's trace on the relay."""
    svc.cli("create", "rmclr", "--set-url", relay.url)
    svc.cli("enable-event", "-u", "example:*")
    svc.cli("start")
    for user in users:
        svc.run_app("--count", "300", user=user)
    svc.cli("stop")
    session = relay_session_dir(relay, hostname, "rmclr")
    check(len(relay_seqs(session)) == 300 * len(users),
          "the relay did not get every user's events before the clear")
    svc.cli("clear", "rmclr")
    seqs = relay_seqs(session)
    check(seqs == [], f"{len(seqs)} events left on the relay after the clear")
    leftovers = [e for e in os.listdir(session) if e.startswith(".tmp")]
    check(not leftovers, f"the relay left {leftovers} in the session's directory")
    svc.cli("start")
    svc.run_app("--count", "40", user=users[0])
    svc.cli("stop")
    svc.cli("destroy", "rmclr")
    seqs = sorted(relay_seqs(session))
    check(seqs == list(range(40)), f"the relay holds {len(seqs)} events, not the 40 after "
          f"the clear")
    for entry in os.listdir(session):
        if entry != "archives":
            babeltrace_text(os.path.join(session, entry))


def relay_events(session_dir, name="example:all_types"):
    """Events of the session's trace on the relay, archives left out."""
    events = []
    for entry in sorted(os.listdir(session_dir)):
        if entry != "archives":
            events += events_of(os.path.join(session_dir, entry), name)
    return events


def relay_seqs(session_dir):
    return [e["seq"] for e in relay_events(session_dir)]


def test_clear(svc, relay, hostname):
    svc.cli("create", "rclr", "--set-url", relay.url)
    svc.cli("enable-event", "-u", "example:*")
    svc.cli("start")
    svc.run_app("--count", "500")
    svc.cli("stop")
    session = relay_session_dir(relay, hostname, "rclr")
    check(len(relay_seqs(session)) == 500, "the relay did not get the events before the clear")
    printed = svc.cli("clear", "rclr").stdout
    check("Session rclr cleared" in printed, printed)
    seqs = relay_seqs(session)
    check(seqs == [], f"{len(seqs)} events left on the relay after the clear")
    svc.cli("start")
    svc.run_app("--count", "70")
    svc.cli("stop")
    svc.cli("destroy", "rclr")
    trace = [os.path.join(session, e) for e in os.listdir(session) if e != "archives"]
    for path in trace:
        babeltrace_text(path)
    seqs = sorted(relay_seqs(session))
    log(f"after the clear: {len(seqs)} events on the relay")
    check(seqs == list(range(70)), f"the relay holds {len(seqs)} events, not the 70 after "
          f"the clear")
    check(len(relay_events(session, "example:startup")) == 1,
          "events of before the clear are left on the relay")


def test_schedule(svc, relay, hostname):
    """A timer schedule rotates a streamed session through the same path."""
    svc.cli("create", "rsched", "--set-url", relay.url)
    svc.cli("enable-event", "-u", "example:*")
    svc.cli("enable-rotation", "--timer", "1s")
    svc.cli("start")
    app = svc.app("--count", "4000", "--interval-us", "500")
    _, err = app.communicate(timeout=60)
    check(app.returncode == 0, f"app failed: {err}")
    svc.cli("stop")
    svc.cli("rotate")
    svc.cli("destroy", "rsched")
    paths = archives(relay_session_dir(relay, hostname, "rsched"))
    check(len(paths) >= 2, f"the timer made {len(paths) - 1} archives in 2 s")
    seqs = []
    for path in paths:
        babeltrace_text(path)
        seqs += seqs_of(path)
    check(sorted(seqs) == list(range(4000)),
          f"{len(seqs)} events across {len(paths)} scheduled archives, not 4000 once each")
    log(f"timer schedule: {len(paths)} archives on the relay")


def test_clear_disallowed(svc):
    """A relay that does not allow clearing: a clear refusal naming it,
    nothing deleted, and the session goes on streaming."""
    with Relay(os.path.join(svc.rundir, "noclear"), "--disallow-clear") as relay:
        svc.cli("create", "rnoclr", "--set-url", relay.url)
        svc.cli("enable-event", "-u", "example:*")
        svc.cli("start")
        svc.run_app("--count", "50")
        svc.cli("stop")
        result = svc.cli("clear", "rnoclr", check_ok=False)
        check(result.returncode == 1 and "does not allow clearing" in result.stderr
              and relay.url in result.stderr, f"clear on --disallow-clear: {result}")
        svc.cli("start")
        svc.run_app("--count", "50")
        svc.cli("stop")
        svc.cli("destroy", "rnoclr")
        session = relay_session_dir(relay, socket.gethostname(), "rnoclr")
        check(sorted(relay_seqs(session)) == sorted(list(range(50)) * 2),
              "the refused clear changed what the relay holds")


def test_live_refused(svc, relay):
    svc.cli("create", "rlive", "--set-url", relay.url, "--live=1000000")
    svc.cli("enable-event", "-u", "example:*")
    svc.cli("start")
    svc.run_app("--count", "10")
    result = svc.cli("rotate", "rlive", check_ok=False)
    check(result.returncode == 1 and "live session" in result.stderr, f"live rotate: {result}")
    # Clear is allowed on live sessions, as with LTTng.
    svc.cli("stop")
    svc.cli("clear", "rlive")
    svc.cli("start")
    svc.run_app("--count", "20")
    svc.cli("stop")
    svc.cli("destroy", "rlive")
    session = relay_session_dir(relay, socket.gethostname(), "rlive")
    check(sorted(relay_seqs(session)) == list(range(20)),
          "a live session's clear left events of before it, or lost later ones")
    for entry in os.listdir(session):
        babeltrace_text(os.path.join(session, entry))


def test():
    hostname = socket.gethostname()
    with Service() as svc, Relay(svc.rundir) as relay:
        test_rotate(svc, relay, hostname)
        users = [svc.add_user("tctest-alice"), svc.add_user("tctest-bob")]
        test_rotate_users(svc, relay, hostname, users)
        test_clear_users(svc, relay, hostname, users)
        test_clear(svc, relay, hostname)
        test_schedule(svc, relay, hostname)
        test_rotate_kernel(svc, relay, hostname)
        test_live_refused(svc, relay)
        test_clear_disallowed(svc)
        check(svc.alive(), "tracectld died")


run(test)
