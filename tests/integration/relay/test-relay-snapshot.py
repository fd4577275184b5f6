#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Snapshots of a flight-recorder session sent to lttng-relayd, as with
lttng: `snapshot record net://HOST:CTRL:DATA` and a `snapshot add-output`
naming the relay. The relay files each under
<hostname>/<session>-<date>/<name>-<date>-<n>/; babeltrace2 reads it
without a warning and it holds the same events, field values and
timestamps as a local snapshot of the same buffers. Recording goes on,
and an unreachable relay is an error naming it. A snapshot session
created with a relay URL sends its snapshots there, and is never live."""

import glob
import os
import socket
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from relaylib import Relay, free_ports
from tclib import Service, check, log, run
from tracelib import babeltrace_text, read_streams

K = 300


def relay_snapshot_dir(relay, hostname, session, name):
    """The trace directory of the relay's copy of one snapshot."""
    found = glob.glob(os.path.join(relay.output, hostname, session + "-*", name + "-*",
                                   "ust", "uid", "*", "*-bit"))
    check(len(found) == 1, f"relay snapshot {name}: {found} in "
          f"{[p for p, _, _ in os.walk(relay.output)]}")
    return found[0]


def same_events(local, remote, what):
    check(local["events"] == remote["events"] and local["discarded"] == remote["discarded"],
          f"{what}: {len(local['events'])} local events, {len(remote['events'])} relayed; "
          f"first differing: {next(((a, b) for a, b in zip(local['events'], remote['events']) if a != b), None)}")


def test():
    hostname = socket.gethostname()
    with Service() as svc, Relay(svc.rundir) as relay:
        out = os.path.join(svc.rundir, "snapshots")
        svc.cli("create", "flight", "--snapshot", "--output", out)
        svc.cli("enable-event", "-u", "example:*")
        svc.cli("start")
        svc.run_app("--count", str(K))
        # The buffers hold still now: a local and a relayed snapshot of them.
        local = svc.cli_json("snapshot", "record")["directory"]
        sent = svc.cli_json("snapshot", "record", relay.url)["directory"]
        log(f"local {local}, relayed {sent}")
        check(sent.startswith(relay.url + f"/{hostname}/flight-"), sent)
        local_trace = read_streams(local)
        check(len([e for e in local_trace["events"] if e["name"] == "example:all_types"]) == K,
              f"{len(local_trace['events'])} events in the local snapshot")
        relayed = relay_snapshot_dir(relay, hostname, "flight", "snapshot")
        check(babeltrace_text(relayed).count("example:all_types") == K, "babeltrace2 output")
        same_events(local_trace, read_streams(relayed), "record URL")

        # An output naming the relay, and a named snapshot into it.
        added = svc.cli("snapshot", "add-output", "--name", "central", relay.url).stdout
        check("Snapshot output 1" in added, added)
        listed = svc.cli("snapshot", "list-output").stdout
        check(f"central: {relay.url}" in listed, listed)
        svc.cli("snapshot", "record", "--name", "named", "central")
        same_events(local_trace, read_streams(relay_snapshot_dir(relay, hostname, "flight",
                                                                 "named")), "add-output")

        # Recording goes on; a relay nobody listens on is an error naming it.
        svc.run_app("--count", "10")
        gone = "net://127.0.0.1:{}:{}".format(*free_ports(2))
        bad, took = svc.timed_cli("snapshot", "record", gone, check_ok=False)
        log(f"snapshot to {gone}: {took:.1f} s: {bad.stderr.strip()}")
        check(bad.returncode == 1 and gone in bad.stderr,
              f"expected an error naming {gone}: {bad}")
        check(took < 10, "an unreachable relay held the snapshot")
        later = svc.cli_json("snapshot", "record")["directory"]
        check(len(read_streams(later)["events"]) > len(local_trace["events"]),
              "no newer events after the relayed snapshots")
        svc.cli("destroy", "flight")
        session_with_relay(svc, relay, hostname)
        check(svc.alive(), "tracectld died")


def session_with_relay(svc, relay, hostname):
    """create --snapshot --set-url net://…: the session's snapshots go to
    its relay; such a session is not live."""
    live = svc.cli("create", "bad", "--snapshot", "--set-url", relay.url, "--live=200000",
                   check_ok=False)
    check(live.returncode == 1 and "not live" in live.stderr, f"{live}")
    svc.cli("create", "remote", "--snapshot", "--set-url", relay.url)
    svc.cli("enable-event", "-u", "example:*")
    svc.cli("start")
    svc.run_app("--count", str(K))
    sent = svc.cli_json("snapshot", "record")["directory"]
    check(sent.startswith(relay.url + f"/{hostname}/remote-"), sent)
    relayed = relay_snapshot_dir(relay, hostname, "remote", "snapshot")
    check(babeltrace_text(relayed).count("example:all_types") == K,
          f"babeltrace2 output of {relayed}")
    svc.cli("destroy", "remote")


run(test)
