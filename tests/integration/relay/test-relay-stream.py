#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Streaming through lttng-relayd against local recording: the same
workload recorded once into a local directory and once through the relay
gives traces with the same events, field values and discarded counts,
and nothing is written locally for the streamed session. Metadata is
streamed as it grows: an application started after the first one
recorded, a user-space event and kernel events enabled while recording,
are in the relay's trace, which babeltrace2 reads without a warning. net6:// and tcp6://
URLs reach a relay on ::1, separate control and data URLs one on
127.0.0.1. A user's relay connections are held by that user's consumer,
never by the service."""

import os
import signal
import socket
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from relaylib import Relay, connection_holders
from tclib import Service, check, log, mount_tracefs, run, wait_for
from tracelib import babeltrace_text, expected_all_types, read_streams

K = 200


def record(svc, name, *create_args):
    svc.cli("create", name, *create_args)
    svc.cli("enable-event", "-u", "example:*")
    svc.cli("start")
    svc.run_app("--count", str(K))
    svc.cli("stop")
    svc.cli("destroy", name)


def comparable(trace):
    """Events without what differs between two runs (timestamps, CPUs, pids),
    sorted, and the discarded counts."""
    events = sorted((e["name"], e.get("seq", -1), tuple(sorted(
        (k, str(v)) for k, v in e.items() if k not in ("ts", "cpu", "stream", "pid"))))
        for e in trace["events"])
    return events, trace["discarded"], trace["packets_lost"]


def test_same_as_local(svc, relay, hostname):
    local = os.path.join(svc.rundir, "local")
    record(svc, "local", "--output", local)
    record(svc, "streamed", "--set-url", relay.url)
    streamed = relay.session_dir(hostname, "streamed", closed=True)
    check(os.path.isdir(os.path.join(streamed, "ust", "uid", "0", "64-bit")),
          f"no user-space trace under {streamed}: {os.listdir(streamed)}")
    here, there = comparable(read_streams(local)), comparable(read_streams(streamed))
    diff = [(a, b) for a, b in zip(here[0], there[0]) if a != b][:3]
    check(here == there, f"local and streamed traces differ: {len(here[0])} and "
          f"{len(there[0])} events, first differences {diff}, discarded {here[1:]} "
          f"{there[1:]}")
    there = read_streams(streamed)
    values = sorted((e for e in there["events"] if e["name"] == "example:all_types"),
                    key=lambda e: e["seq"])
    check(len(values) == K, f"{len(values)} all_types events through the relay")
    for i, event in enumerate(values):
        fields = {k: v for k, v in event.items() if k not in ("name", "stream", "cpu", "ts")}
        check(fields == expected_all_types(i), f"event {i}: {fields}")
    babeltrace_text(streamed)
    log(f"{len(there['events'])} events, the same locally and through the relay")


def check_streamed(relay, hostname, name):
    """The relay's trace of session name has the example application's
    events, all of them."""
    trace = read_streams(relay.session_dir(hostname, name, closed=True))
    names = [e["name"] for e in trace["events"]]
    check(names.count("example:all_types") == K and names.count("example:done") == 1,
          f"{name}: {names.count('example:all_types')} all_types events through the relay")


def test_ipv6_and_split_urls(svc, relay, hostname):
    """net6:// and tcp6:// reach a relay listening on ::1 only; separate
    control and data URLs reach the IPv4 one."""
    with Relay(os.path.join(svc.rundir, "ipv6"), host="::1") as relay6:
        record(svc, "six", "--set-url", relay6.url)
        check_streamed(relay6, hostname, "six")
        record(svc, "six-split", "--ctrl-url", f"tcp6://[::1]:{relay6.ports[0]}",
               "--data-url", f"tcp6://[::1]:{relay6.ports[1]}")
        check_streamed(relay6, hostname, "six-split")
    record(svc, "split", "--ctrl-url", f"tcp://127.0.0.1:{relay.ports[0]}",
           "--data-url", f"tcp://127.0.0.1:{relay.ports[1]}")
    check_streamed(relay, hostname, "split")


def process_ids(pid):
    """The name and the real, effective, saved and file-system uids of pid."""
    with open(f"/proc/{pid}/status") as f:
        status = dict(line.split(":\t", 1) for line in f.read().splitlines())
    return status["Name"], status["Uid"].split()


def test_connections_of_owner(svc, relay, hostname):
    """The relay connections of a user's session are held by that user's
    consumer, running as the user: the service opens none."""
    user = svc.add_user("tctest-relay")
    svc.cli("create", "owned", "--set-url", relay.url, user=user)
    svc.cli("enable-channel", "-u", "chan", "--switch-timer", "100000", user=user)
    svc.cli("enable-event", "-u", "-c", "chan", "example:*", user=user)
    svc.cli("start", user=user)
    svc.run_app("--count", str(K), user=user)
    # Events are on their way while the connections are looked at.
    app = svc.app("--forever", "--interval-us", "1000", user=user)
    try:
        holders = connection_holders(relay.ports[:2])
        check(set().union(*holders.values()) == set(relay.ports[:2]),
              f"connections to control and data ports {relay.ports[:2]}: {holders}")
        check(svc.proc.pid not in holders, f"tracectld holds relay connections: {holders}")
        log(f"relay connections of {user.name}'s session: {holders}")
        for pid in holders:
            name, uids = process_ids(pid)
            check(name.startswith("tracectl-consum") and uids == [str(user.uid)] * 4,
                  f"pid {pid} ({name}, uids {uids}) holds a relay connection, "
                  f"not a consumer of uid {user.uid}")
    finally:
        app.kill()
        app.wait()
    svc.cli("stop", user=user)
    svc.cli("destroy", "owned", user=user)
    session = relay.session_dir(hostname, "owned", closed=True)
    check(os.path.isdir(os.path.join(session, "ust", "uid", str(user.uid))),
          f"no trace of uid {user.uid} under {session}: {os.listdir(session)}")
    names = [e["name"] for e in read_streams(session)["events"]]
    check(names.count("example:all_types") >= K,
          f"{names.count('example:all_types')} all_types events of {user.name} "
          "through the relay")


def relay_metadata(relay, hostname, name):
    """What the relay holds of the user-space metadata of session name."""
    path = os.path.join(relay.session_dir(hostname, name), "ust", "uid", "0", "64-bit",
                        "metadata")
    with open(path, "rb") as f:
        return f.read()


def test_user_event_enabled_midway(svc, relay, hostname):
    """A user-space event enabled while the session streams, in an
    application registered before: its events reach the relay from then
    on, described by the metadata the relay got since."""
    svc.cli("create", "midway", "--set-url", relay.url)
    svc.cli("enable-channel", "-u", "chan", "--switch-timer", "100000")
    svc.cli("enable-event", "-u", "-c", "chan", "example:all_types")
    svc.cli("start")
    waiting = svc.app("--pause", "--count", str(K // 2), wait_ready=True)
    # Its example:done comes before the event is enabled: not recorded.
    svc.run_app("--count", str(K))
    wait_for(lambda: b"example:all_types" in relay_metadata(relay, hostname, "midway"), 10,
             "the metadata of all_types on the relay")
    # Event classes are described as they are enabled, as with LTTng.
    before = relay_metadata(relay, hostname, "midway")
    check(b"example:done" not in before, "example:done described before it was enabled")
    svc.cli("enable-event", "-u", "-c", "chan", "example:done")
    waiting.send_signal(signal.SIGUSR1)
    out, err = waiting.communicate(timeout=60)
    check(waiting.returncode == 0 and err == "", f"example app: {waiting.returncode} {err!r}")
    svc.cli("stop")
    svc.cli("destroy", "midway")
    after = relay_metadata(relay, hostname, "midway")
    check(b"example:done" in after and after.startswith(before),
          f"the relay's metadata did not grow by example:done: {len(before)} then "
          f"{len(after)} bytes")
    events = read_streams(relay.session_dir(hostname, "midway", closed=True))["events"]
    names = [e["name"] for e in events]
    done = [e["count"] for e in events if e["name"] == "example:done"]
    check(names.count("example:all_types") == K + K // 2 and done == [K // 2],
          f"{names.count('example:all_types')} all_types events, done events {done}: "
          f"expected {K + K // 2} and [{K // 2}]")
    babeltrace_text(relay.session_dir(hostname, "midway", closed=True))


def test_growing_metadata(svc, relay, hostname):
    mount_tracefs()
    svc.cli("create", "growing", "--set-url", relay.url)
    svc.cli("enable-event", "-u", "example:*")
    svc.cli("enable-event", "-k", "sched:sched_switch")
    svc.cli("start")
    svc.run_app("--count", str(K))
    # A kernel event enabled while recording: its metadata follows, and
    # the second application's exit is recorded.
    svc.cli("enable-event", "-k", "sched:sched_process_exit")
    svc.run_app("--count", str(K))
    svc.cli("stop")
    svc.cli("destroy", "growing")
    session = relay.session_dir(hostname, "growing", closed=True)
    trace = read_streams(session)
    names = [e["name"] for e in trace["events"]]
    check(names.count("example:all_types") == 2 * K,
          f"{names.count('example:all_types')} all_types events of two applications")
    check(names.count("example:startup") == 2, "the second application's events are missing")
    check(os.path.exists(os.path.join(session, "kernel", "metadata")),
          f"no kernel trace on the relay: {os.listdir(session)}")
    for event in ("sched_switch", "sched_process_exit"):
        check(any(n == event or n.endswith(":" + event) for n in names),
              f"no {event} events through the relay: {sorted(set(names))}")
    babeltrace_text(session)


def test():
    hostname = socket.gethostname()
    with Service() as svc, Relay(svc.rundir) as relay:
        test_same_as_local(svc, relay, hostname)
        test_growing_metadata(svc, relay, hostname)
        test_ipv6_and_split_urls(svc, relay, hostname)
        # A relay of its own: the earlier sessions' connections, closed
        # as they end, are none of its business.
        with Relay(os.path.join(svc.rundir, "owned")) as own:
            test_connections_of_owner(svc, own, hostname)
        test_user_event_enabled_midway(svc, relay, hostname)
        check(svc.alive(), "tracectld died")


run(test)
