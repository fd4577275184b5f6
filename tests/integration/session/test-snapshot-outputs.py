#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Snapshot outputs (with their own --max-size) and snapshot record
--name/--max-size, through the CLI and busctl: add-output (PATH and
file://PATH), list-output, del-output by id and by name, records into an
output, a named snapshot, a bounded one that keeps the newest packets;
refusals for a relay URL with a path, bad sizes, unknown outputs,
past the per-session limit, and for another user."""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from busctllib import session_call, session_path
from tclib import Service, check, run
from tracelib import babeltrace_text, read_streams


def trace_bytes(path):
    total = 0
    for root, _, files in os.walk(path):
        total += sum(os.path.getsize(os.path.join(root, f)) for f in files
                     if f != "metadata")
    return total


def seqs(path):
    return [e["seq"] for e in read_streams(path)["events"] if e["name"] == "example:all_types"]


def test():
    with Service() as svc:
        alice = svc.add_user("tctest-alice")
        bob = svc.add_user("tctest-bob")
        home = alice.home
        svc.cli("create", "snap", "--snapshot", "--output", os.path.join(home, "snap"),
                user=alice)
        svc.cli("enable-channel", "-u", "c", "--subbuf-size", "4k", "--num-subbuf", "16",
                user=alice)
        svc.cli("enable-event", "-u", "example:*", "-c", "c", user=alice)
        svc.cli("start", user=alice)
        app = svc.app("--forever", "--interval-us", "20", user=alice)
        time.sleep(1.0)

        out = svc.cli("snapshot", "add-output", os.path.join(home, "out1"), user=alice).stdout
        check("Snapshot output 1" in out, out)
        out = svc.cli("snapshot", "add-output", "--name", "keep",
                      "file://" + os.path.join(home, "out2"), user=alice).stdout
        check("Snapshot output 2" in out, out)
        listed = svc.cli("snapshot", "list-output", user=alice).stdout
        check(f"[1] snapshot-1: file://{home}/out1" in listed and
              f"[2] keep: file://{home}/out2" in listed, listed)

        # Refusals.
        bad = svc.cli("snapshot", "add-output", "net://relay.example/trace", user=alice,
                      check_ok=False)
        check(bad.returncode == 1 and "net://relay.example/trace" in bad.stderr, f"{bad}")
        bad = svc.cli("snapshot", "add-output", "relative/dir", user=alice, check_ok=False)
        check(bad.returncode == 1 and "not an absolute path" in bad.stderr, f"{bad}")
        bad = svc.cli("snapshot", "add-output", "--name", "keep", os.path.join(home, "o"),
                      user=alice, check_ok=False)
        check(bad.returncode == 1 and "named 'keep' already" in bad.stderr, f"{bad}")
        bad = svc.cli("snapshot", "del-output", "9", user=alice, check_ok=False)
        check(bad.returncode == 3 and "no snapshot output '9'" in bad.stderr, f"{bad}")
        bad = svc.cli("snapshot", "record", "nosuch", user=alice, check_ok=False)
        check(bad.returncode == 3 and "no snapshot output 'nosuch'" in bad.stderr, f"{bad}")
        for size in ("12x", "0", "-5", ""):
            bad = svc.cli("snapshot", "record", "--max-size", size, user=alice,
                          check_ok=False)
            check(bad.returncode == 2 and "bad --max-size" in bad.stderr, f"{size}: {bad}")
        bad = svc.cli("snapshot", "record", "--max-size", "1k", user=alice, check_ok=False)
        check(bad.returncode == 1 and "cannot hold one sub-buffer" in bad.stderr, f"{bad}")
        bad = svc.cli("snapshot", "frobnicate", user=alice, check_ok=False)
        check(bad.returncode == 2, f"{bad}")

        # Records into outputs, named, bounded.
        first = svc.cli("snapshot", "record", "1", user=alice).stdout.split()[-1]
        check(first.startswith(os.path.join(home, "out1", "snapshot-")), first)
        named = svc.cli("snapshot", "record", "--name", "before-crash", "keep",
                        user=alice).stdout.split()[-1]
        check(os.path.basename(named).startswith("before-crash-") and
              os.path.dirname(named) == os.path.join(home, "out2"), named)
        url = svc.cli("snapshot", "record", "file://" + os.path.join(home, "adhoc"),
                      user=alice).stdout.split()[-1]
        check(url.startswith(os.path.join(home, "adhoc") + "/"), url)
        full = svc.cli("snapshot", "record", user=alice).stdout.split()[-1]
        cpus = os.cpu_count()
        max_size = 2 * 4096 * cpus
        out = svc.cli("snapshot", "add-output", "--name", "small", "--max-size", str(max_size),
                      os.path.join(home, "small"), user=alice).stdout
        check("Snapshot output 3" in out, out)
        check(f"[3] small: file://{home}/small (max size: {max_size} bytes)" in
              svc.cli("snapshot", "list-output", user=alice).stdout, "list-output max size")
        bad = svc.cli("snapshot", "add-output", "--max-size", "1x", os.path.join(home, "x"),
                      user=alice, check_ok=False)
        check(bad.returncode == 2 and "bad --max-size" in bad.stderr, f"{bad}")
        by_output = svc.cli("snapshot", "record", "small", user=alice).stdout.split()[-1]
        small = svc.cli("snapshot", "record", "--max-size", str(max_size),
                        user=alice).stdout.split()[-1]
        app.kill()
        app.wait()
        check(os.stat(first).st_uid == alice.uid, "the output is not alice's")
        for path in (first, named, url, full, small):
            check(babeltrace_text(path).count("example:all_types") > 0, f"empty: {path}")
        check(trace_bytes(small) <= max_size, f"{trace_bytes(small)} > {max_size} bytes")
        check(trace_bytes(by_output) <= max_size, f"output's bound: {trace_bytes(by_output)}")
        check(trace_bytes(full) > trace_bytes(small), "--max-size changed nothing")
        check(max(seqs(small)) > max(seqs(full)), "the bounded snapshot is not the newest")

        # del-output by name and by id.
        svc.cli("snapshot", "del-output", "keep", user=alice)
        svc.cli("snapshot", "del-output", "1", user=alice)
        svc.cli("snapshot", "del-output", "small", user=alice)
        check("(none" in svc.cli("snapshot", "list-output", user=alice).stdout, "not deleted")

        # Another user: refused on the CLI (no such session) and the bus.
        bad = svc.cli("snapshot", "list-output", "-s", "snap", user=bob, check_ok=False)
        check(bad.returncode == 3, f"bob's list-output: {bad}")
        path = session_path(svc, "snap", user=alice)
        for method, signature, args in (
                ("AddSnapshotOutput", "ssa{sv}", ("", "/tmp/bob-out", 0)),
                ("ListSnapshotOutputs", "", ()),
                ("DelSnapshotOutput", "s", ("1",)),
                ("RecordSnapshotWithOptions", "a{sv}", (0,))):
            bad = session_call(svc, path, method, signature, *args, user=bob)
            check(bad.returncode != 0, f"bob's {method}: {bad}")
        check(not os.path.exists("/tmp/bob-out"), "bob's output was made")

        # The owner over the bus, and the per-session limit (16).
        bad = session_call(svc, path, "AddSnapshotOutput", "ssa{sv}", "b", home + "/b", 1,
                           "max-size", "t", 0, user=alice)
        check(bad.returncode != 0 and "more than 0 bytes" in bad.stderr, f"{bad}")
        ok = session_call(svc, path, "AddSnapshotOutput", "ssa{sv}", "bus", home + "/bus", 0,
                          user=alice)
        check(ok.returncode == 0 and ok.stdout.strip() == "u 4", f"{ok}")
        listed = session_call(svc, path, "ListSnapshotOutputs", user=alice)
        check(f'"bus" "file://{home}/bus" 0' in listed.stdout, f"{listed}")
        bad = session_call(svc, path, "RecordSnapshotWithOptions", "a{sv}", 1, "max-size",
                           "s", "big", user=alice)
        check(bad.returncode != 0 and "Unknown RecordSnapshotWithOptions option" in bad.stderr,
              f"{bad}")
        ok = session_call(svc, path, "RecordSnapshotWithOptions", "a{sv}", 2, "output", "s",
                          "bus", "name", "s", "viabus", user=alice)
        check(ok.returncode == 0 and f"{home}/bus/viabus-" in ok.stdout, f"{ok}")
        for i in range(15):
            svc.cli("snapshot", "add-output", os.path.join(home, f"many{i}"), user=alice)
        bad = svc.cli("snapshot", "add-output", os.path.join(home, "one-too-many"),
                      user=alice, check_ok=False)
        check(bad.returncode == 1 and "MaxSnapshotOutputsPerSession" in bad.stderr, f"{bad}")

        # A session that is not a snapshot session has no outputs.
        svc.cli("create", "plain", user=alice)
        bad = svc.cli("snapshot", "add-output", os.path.join(home, "p"), user=alice,
                      check_ok=False)
        check(bad.returncode == 1 and "not a snapshot session" in bad.stderr, f"{bad}")
        svc.cli("destroy", "--all", user=alice)


run(test)
