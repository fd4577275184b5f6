#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""tracectl track/untrack in user space, checked event by event.

alice's session tracks one application's vpid: only its events are in
the trace, not those of her other application running beside it. A
tracked application that is untracked while it runs records nothing
more. An application in a user and pid namespace of its own is root
and pid 1 there: tracking vuid 0 and vpid 1 keeps it and not alice's
plain one (ids read from /proc, not from the application). Root's
session tracking alice's uid records her application that
registers later, and neither bob's nor a trace directory for him; a pid
(SO_PEERCRED's) tracked beside it keeps only that one of her two. `list` shows the sets; bob cannot track in alice's session or read its
Tracking property (busctl), values that are not tracked are refused, and
the per-session limit of tracked values holds."""

import os
import signal
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import EXAMPLE_APP, Service, check, children, log, run, wait_for
from tracelib import read_streams

LIMIT = 4


def busctl(svc, *args, user=None):
    proc = subprocess.run(svc._as(user) + ["busctl", "--system", *args], env=svc.env(user),
                          capture_output=True, text=True, timeout=60)
    return proc


def session_path(svc, user, name):
    result = busctl(svc, "call", "org.tracectl.Tracing1", "/org/tracectl/Tracing1",
                    "org.tracectl.Tracing1.Manager", "FindSession", "s", name, user=user)
    check(result.returncode == 0, f"FindSession: {result.stderr}")
    return result.stdout.split('"')[1]


def registered(svc, app, user=None):
    wait_for(lambda: app.pid in svc.listed_pids(user=user), 5,
             f"application {app.pid} to register")


def release(*apps):
    for app in apps:
        app.send_signal(signal.SIGUSR1)
    for app in apps:
        app.communicate(timeout=60)
        check(app.returncode == 0, f"application {app.pid} failed")


def by_vpid(events, name="example:all_types"):
    counts = {}
    for e in events:
        if e["name"] == name:
            counts[e["ctx_vpid"]] = counts.get(e["ctx_vpid"], 0) + 1
    return counts


def owner_tracks_vpid(svc, alice, bob):
    out = os.path.join(alice.home, "tracked")
    svc.cli("create", "t", "--output", out, user=alice)
    svc.cli("add-context", "-u", "-t", "vpid", user=alice)
    svc.cli("enable-event", "-u", "example:*", user=alice)
    svc.cli("start", user=alice)
    kept = svc.app("--pause", "--count", "5", user=alice, wait_ready=True)
    other = svc.app("--pause", "--count", "7", user=alice, wait_ready=True)
    late = svc.app("--pause", "--count", "11", user=alice, wait_ready=True)
    for app in (kept, other, late):
        registered(svc, app, alice)

    result = svc.cli("track", "-u", f"--vpid={kept.pid},{late.pid}", user=alice)
    check(f"UST vpid {kept.pid} tracked in session t" in result.stdout, result.stdout)
    listing = svc.cli("list", "t", user=alice).stdout
    check("Tracking:" in listing and f"vpid: {kept.pid}, {late.pid}" in listing,
          f"list does not show the vpid set: {listing}")

    # bob: refused over the bus, for the method and for the property.
    path = session_path(svc, alice, "t")
    result = busctl(svc, "call", "org.tracectl.Tracing1", path, "org.tracectl.Tracing1.Session",
                    "Track", "ssau", "ust", "vpid", "1", str(os.getpid()), user=bob)
    check(result.returncode != 0 and "belongs to another user" in result.stderr,
          f"bob's Track on alice's session: {result.stderr}")
    result = busctl(svc, "get-property", "org.tracectl.Tracing1", path,
                    "org.tracectl.Tracing1.Session", "Tracking", user=bob)
    check(result.returncode != 0, f"bob read alice's Tracking: {result.stdout}")
    result = busctl(svc, "get-property", "org.tracectl.Tracing1", path,
                    "org.tracectl.Tracing1.Session", "Tracking", user=alice)
    check(result.returncode == 0 and '"ust" "vpid" false 2' in result.stdout,
          f"alice's Tracking: {result.stdout} {result.stderr}")

    # Untracking what is not tracked changes nothing (exit status 3: not found).
    result = svc.cli("untrack", "-u", "--vpid=1", user=alice, check_ok=False)
    check(result.returncode == 3 and "vpid 1 is not tracked" in result.stderr, f"{result}")
    # The kernel tracks uids too (test-track-kernel-ids.py records with it).
    result = busctl(svc, "call", "org.tracectl.Tracing1", path, "org.tracectl.Tracing1.Session",
                    "Track", "ssau", "kernel", "uid", "1", "0")
    check(result.returncode == 0, f"kernel uid tracking: {result.stderr}")
    busctl(svc, "call", "org.tracectl.Tracing1", path, "org.tracectl.Tracing1.Session",
           "TrackAll", "ss", "kernel", "uid")
    # The limit of values per session.
    many = ",".join(str(v) for v in range(100000, 100000 + LIMIT))
    result = svc.cli("track", "-u", f"--vuid={many}", user=alice, check_ok=False)
    check(result.returncode == 1 and "MaxTrackedValuesPerSession" in result.stderr,
          f"over the limit: {result}")

    # A running application untracked: it records nothing more.
    svc.cli("untrack", "-u", f"--vpid={late.pid}", user=alice)
    release(kept, other, late)
    svc.cli("stop", user=alice)
    events = read_streams(out)["events"]
    counts = by_vpid(events)
    check(counts == {kept.pid: 5}, f"all_types per vpid: {counts}")
    # Its startup came while everything was tracked (before track).
    starts = by_vpid(events, "example:startup")
    check(starts == {kept.pid: 1, other.pid: 1, late.pid: 1}, f"startup per vpid: {starts}")
    done = by_vpid(events, "example:done")
    check(done == {kept.pid: 1}, f"done per vpid: {done}")

    # --all: untrack empties the set, track puts every value back.
    svc.cli("untrack", "-u", "--all", "--vpid", user=alice)
    listing = svc.cli("status", user=alice).stdout
    check("vpid: (none: nothing records)" in listing, listing)
    svc.cli("track", "-u", "--all", "--vpid", user=alice)
    listing = svc.cli("status", user=alice).stdout
    check("every process" in listing, listing)
    svc.cli("destroy", user=alice)


def namespaced_app(svc, user, count):
    """The example application in a user and pid namespace of its own, as
    root of it (uid 0, pid 1 there); (unshare's process, the application's
    pid), or None where user namespaces are not allowed."""
    proc = svc.app("--user", "--map-root-user", "--pid", "--fork", EXAMPLE_APP, "--pause",
                   "--count", str(count), user=user, program="/usr/bin/unshare")
    line = proc.stdout.readline()
    if line.strip() != "ready":
        log(f"no user namespace for {user.name}: {line!r} {proc.stderr.read()!r}")
        return None
    found = children(proc.pid)
    check(len(found) == 1, f"unshare's children: {found}")
    return proc, found[0]


def owner_tracks_virtual_ids(svc, alice):
    """vuid and vpid come from the kernel's view of the application's
    namespaces: root and pid 1 inside one, alice and her pid outside."""
    out = os.path.join(alice.home, "virtual")
    svc.cli("create", "v", "--output", out, user=alice)
    svc.cli("add-context", "-u", "-t", "vpid", user=alice)
    svc.cli("enable-event", "-u", "example:all_types", user=alice)
    svc.cli("track", "-u", "--vuid=0", "--vpid=1", user=alice)
    svc.cli("start", user=alice)
    plain = svc.app("--pause", "--count", "3", user=alice, wait_ready=True)
    inside = namespaced_app(svc, alice, 4)
    if inside is None:
        svc.cli("destroy", user=alice)
        return
    unshare, pid = inside
    registered(svc, plain, alice)
    wait_for(lambda: pid in svc.listed_pids(user=alice), 5, "the namespaced application")
    os.kill(pid, signal.SIGUSR1)
    release(plain)
    unshare.communicate(timeout=60)
    check(unshare.returncode == 0, "the namespaced application failed")
    svc.cli("stop", user=alice)
    counts = by_vpid(read_streams(out)["events"])
    check(counts == {1: 4}, f"all_types per vpid: {counts}, only the namespaced one's "
          "(vpid 1) tracked")
    svc.cli("destroy", user=alice)


def root_tracks_uid(svc, alice, bob):
    out = os.path.join(svc.rundir, "root")
    svc.cli("create", "all", "--output", out)
    svc.cli("add-context", "-u", "-t", "vpid")
    svc.cli("enable-event", "-u", "example:*")
    svc.cli("track", "-u", f"--uid={alice.name}")
    svc.cli("start")
    # Both register after the tracking: only alice's is recorded.
    alice_app = svc.app("--pause", "--count", "3", user=alice, wait_ready=True)
    bob_app = svc.app("--pause", "--count", "4", user=bob, wait_ready=True)
    # And of alice's two, only the pid tracked once both run.
    alice_other = svc.app("--pause", "--count", "5", user=alice, wait_ready=True)
    for app in (alice_app, bob_app, alice_other):
        registered(svc, app)
    svc.cli("track", "-u", f"--pid={alice_app.pid}")
    release(alice_app, bob_app, alice_other)
    svc.cli("stop")
    check(not os.path.exists(os.path.join(out, "ust", "uid", str(bob.uid))),
          "root's session made a trace for bob, whom it does not track")
    events = read_streams(os.path.join(out, "ust", "uid", str(alice.uid), "64-bit"))["events"]
    counts = by_vpid(events)
    check(counts == {alice_app.pid: 3}, f"root's trace of alice: {counts}")
    svc.cli("destroy", "all")


def test():
    config = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"tracectld-track-{os.getpid()}.conf")
    with open(config, "w") as f:
        f.write(f"[Limits]\nMaxTrackedValuesPerSession={LIMIT}\n")
    try:
        with Service(args=["--config", config]) as svc:
            alice = svc.add_user("tctest-alice")
            bob = svc.add_user("tctest-bob")
            owner_tracks_vpid(svc, alice, bob)
            owner_tracks_virtual_ids(svc, alice)
            root_tracks_uid(svc, alice, bob)
    finally:
        os.unlink(config)


run(test)
