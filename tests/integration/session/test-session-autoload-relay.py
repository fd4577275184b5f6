#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Auto-loading of what leaves the local directory: session files of
alice's in the system's directory (tracectld --session-dir) with a relay
URL, with snapshot outputs, and with a relay that is not running. Each
becomes alice's session at start. The streamed one records through her
consumer into lttng-relayd, whose copy babeltrace2 reads; the flight
recorder has its snapshot outputs, a directory named and bounded as the
file says and a relay, and the snapshots recorded into each read back. The session whose relay is
down still exists: its Problem and the service's log name the session,
alice and the relay's URL, and once a relay answers on those ports the
consumer connects on its own and the trace lands there.

Then bob, at another start, has a local session recording and several
sessions streamed to a relay that accepts connections and never answers
(a stopped lttng-relayd): the consumer never waits for that relay, so his
sessions are all there at once, his commands get their answers at once
while the consumer tries it, his local session loses nothing, and each
streamed session's Problem names the relay."""

import concurrent.futures
import glob
import os
import shutil
import socket
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from relaylib import HungRelay, Relay, command_times, free_port
import sessionxmllib
from tclib import Service, check, log, run, wait_for
from tracelib import babeltrace_text, read_streams

K = 100
MAX_SIZE = 1 << 20
# bob's sessions streamed to a relay that never answers. Waiting for each
# one's handshake (2 s) would hold his consumer that long per session.
HUNG_SESSIONS = 4
# A command takes a tenth of a second; one behind a handshake waits up
# to its 2 s timeout, and the loading of the sessions waits for all of
# them (8 s).
COMMAND_BOUND_S = 1.5
LOAD_BOUND_S = 4.0
COMMAND_WINDOW_S = 4.0
LOCAL_EVENTS = 2000

def ust_domain(mode):
    return sessionxmllib.ust_domain([sessionxmllib.channel(
        [sessionxmllib.event("example:*")], mode=mode, switch_timer_us=0, read_timer_us=200000,
        output_type="MMAP")])


def streamed(name, ports):
    """A session streamed to the relay on 127.0.0.1 at ports."""
    return sessionxmllib.session(name, [ust_domain("DISCARD")],
                              output=f"net://127.0.0.1:{ports[0]}:{ports[1]}")


def flight(name, path, extra, ports):
    """A flight recorder with two directory outputs and one relay output."""
    return sessionxmllib.session(name, [ust_domain("OVERWRITE")], snapshot_outputs=[
        sessionxmllib.snapshot_output("snapshot-1", path),
        sessionxmllib.snapshot_output("extra", extra, max_size=MAX_SIZE),
        sessionxmllib.snapshot_output("central", f"net://127.0.0.1:{ports[0]}:{ports[1]}")])


def problem(svc, name, user):
    """The Problem line of `tracectl list NAME` (which asks for it)."""
    for line in svc.cli("list", name, user=user).stdout.splitlines():
        if line.strip().startswith("Problem:"):
            return line.strip()
    return ""


def check_relay_trace(relay, hostname, name, uid, count):
    trace_dir = relay.session_dir(hostname, name, closed=True)
    check(os.path.isdir(os.path.join(trace_dir, "ust", "uid", str(uid), "64-bit")),
          f"no trace of uid {uid} under {trace_dir}: {os.listdir(trace_dir)}")
    events = [e for e in read_streams(trace_dir)["events"] if e["name"] == "example:all_types"]
    check(len(events) == count, f"{len(events)} all_types events of {count} in {trace_dir}")
    check(babeltrace_text(trace_dir).count("example:all_types") == count,
          f"babeltrace2 does not read {count} events in {trace_dir}")
    return trace_dir


def check_streamed(svc, relay, hostname, alice):
    session = svc.session("autostream", user=alice)
    check(session["owner_uid"] == alice.uid and session["state"] == "active",
          f"the streamed session: {session}")
    check(problem(svc, "autostream", alice) == "", "the streamed session has a Problem")
    svc.run_app("--count", str(K), user=alice)
    # Its relay was up at the start: nothing was lost, nothing to say.
    text = problem(svc, "autostream", alice)
    check(text == "", f"the streamed session has a Problem: {text!r}")
    svc.cli("stop", "autostream", user=alice)
    svc.cli("destroy", "autostream", user=alice)
    trace_dir = check_relay_trace(relay, hostname, "autostream", alice.uid, K)
    log(f"streamed session: {K} events through the relay into {trace_dir}")


def check_flight(svc, relay, hostname, alice, extra):
    outputs = svc.cli_json("snapshot", "list-output", "-s", "autoflight",
                           user=alice)["outputs"]
    listed = [(o["name"], o["url"].removeprefix("file://"), o["max_size"]) for o in outputs]
    check(listed == [("extra", extra, MAX_SIZE), ("central", relay.url, 0)],
          f"the snapshot outputs of the file: {outputs}")
    svc.run_app("--count", str(K), user=alice)
    recorded = svc.cli_json("snapshot", "record", "-s", "autoflight", "extra",
                            user=alice)["directory"]
    check(recorded.startswith(extra + "/"), f"snapshot recorded into {recorded}, not {extra}")
    # It recorded alice's application of the streamed session too.
    text = babeltrace_text(recorded)
    check(text.count("example:all_types") == 2 * K,
          f"{text.count('example:all_types')} all_types events of {2 * K} in the snapshot "
          f"{recorded}")
    # The relay output: the snapshot is sent by alice's consumer.
    svc.cli("snapshot", "record", "-s", "autoflight", "--name", "sent", "central", user=alice)
    found = glob.glob(os.path.join(relay.output, hostname, "autoflight-*", "sent-*"))
    check(len(found) == 1, f"the relay's copy of the snapshot: {found}")
    text = babeltrace_text(found[0])
    check(text.count("example:all_types") == 2 * K,
          f"{text.count('example:all_types')} all_types events of {2 * K} in {found[0]}")
    svc.cli("destroy", "autoflight", user=alice)
    log(f"flight recorder: its snapshot outputs hold {2 * K} events in {recorded} "
        f"and {found[0]}")


def check_relay_down(svc, top, hostname, alice, ports):
    url = f"net://127.0.0.1:{ports[0]}:{ports[1]}"
    session = svc.session("autodown", user=alice)
    check(session["owner_uid"] == alice.uid and session["state"] == "active",
          f"the session whose relay is down: {session}")
    text = problem(svc, "autodown", alice)
    check(f"relay {url}" in text and "unreachable" in text, f"Problem: {text!r}")
    with open(svc.log_path, errors="replace") as f:
        logged = f.read()
    check(f"Session 'autodown' of uid {alice.uid}:" in logged and
          f"relay {url} unreachable" in logged,
          f"the service's log does not name the session, alice and {url}")
    log(f"relay down at start: {text}")
    # A relay on those ports: the consumer connects on its own.
    late = Relay(os.path.join(top, "late"))
    late.ports = [ports[0], ports[1], free_port()]
    with late:
        wait_for(lambda: "reconnected" in problem(svc, "autodown", alice), 20,
                 "the consumer to reach the relay started late")
        svc.run_app("--count", str(K), user=alice)
        svc.cli("stop", "autodown", user=alice)
        svc.cli("destroy", "autodown", user=alice)
        # It recorded alice's three applications; the earlier two were in
        # sub-buffers not yet full when the relay came, so none was lost.
        check_relay_trace(late, hostname, "autodown", alice.uid, 3 * K)
    log("relay started late: the session's trace is there")


def check_hung_relay_at_start(top):
    """bob's local session and HUNG_SESSIONS streamed to a relay that
    accepts and never answers, all loaded at start."""
    directory = os.path.join(top, "bob-sessions")
    os.mkdir(directory, 0o755)
    svc = Service(args=["--session-dir", directory])
    bob = svc.add_user("tctest-arbob")
    hung = HungRelay()
    url = f"net://127.0.0.1:{hung.ports[0]}:{hung.ports[1]}"
    local_dir = os.path.join(bob.home, "autolocal")
    names = [f"autohung{i}" for i in range(HUNG_SESSIONS)]
    sessionxmllib.install(directory, "local.lttng", sessionxmllib.session(
        "autolocal", [ust_domain("DISCARD")], output=local_dir), bob.uid)
    for name in names:
        sessionxmllib.install(directory, f"{name}.lttng", streamed(name, hung.ports), bob.uid)
    try:
        with svc:
            # From the start on, while the sessions load and the consumer
            # tries the relay (each first probe waits 2 s for an answer,
            # then it retries), bob's commands, which need his consumer,
            # and then his local session go on as ever.
            start, offset = time.monotonic(), svc.log_offset()
            # A command that fails fails the test (result() raises it).
            with concurrent.futures.ThreadPoolExecutor(1) as pool:
                commands = pool.submit(command_times, svc, COMMAND_WINDOW_S,
                                       os.path.join(bob.home, "cmds"), user=bob)
                wait_for(lambda: all(svc.cli("list", name, user=bob, check_ok=False)
                                     .returncode == 0 for name in ["autolocal", *names]),
                         timeout=30, what="bob's auto-loaded sessions")
                loaded = time.monotonic() - start
                # The service logs a slow call after its reply; the
                # commands go on meanwhile.
                time.sleep(1.0)
                listed = svc.log_offset()
                times = commands.result()
            # polkitd's stalls (Service.polkit_waits()) hold every check at
            # once, the listings' too: the longest until they were all
            # listed is polkitd's time (a stall of a later command is not).
            held = max((seconds for _, seconds in svc.polkit_waits(offset, bob, end=listed)),
                       default=0)
            if held >= 0.5:
                log(f"bob's sessions listed {loaded:.2f} s after the start, {held:.2f} s "
                    "of it waiting for polkitd, not counted")
                loaded -= held
            app = svc.app("--count", str(LOCAL_EVENTS), "--interval-us", "1000", user=bob)
            out, err = app.communicate(timeout=60)
            check(app.returncode == 0, f"example app failed ({app.returncode}): {out} {err}")
            log(f"bob's sessions listed {loaded:.2f} s after the start; {len(times)} commands "
                f"while his consumer tried a relay that never answers ({len(hung.held)} "
                f"connections held): slowest {max(times):.2f} s")
            check(hung.held, "the consumer never tried the relay")
            # The first may wait for bob's consumer to start.
            check(len(times) > 1 and max(times[1:]) < COMMAND_BOUND_S,
                  f"a command took {max(times[1:], default=0):.2f} s while the consumer "
                  f"tried the relay")
            check(loaded < LOAD_BOUND_S,
                  f"bob's sessions were listed {loaded:.2f} s after the start, waiting "
                  f"for a relay that never answers")
            for name in names:
                wait_for(lambda: f"relay {url} unreachable" in problem(svc, name, bob), 15,
                         f"{name}'s Problem to name {url}")
            log(f"a relay that never answers: {problem(svc, names[0], bob)}")
            svc.cli("stop", "autolocal", user=bob)
            text = babeltrace_text(local_dir)
            check(text.count("example:all_types") == LOCAL_EVENTS,
                  f"{text.count('example:all_types')} all_types events of {LOCAL_EVENTS} "
                  f"in bob's local session {local_dir}")
            # The consumer says once per session that it did not reach the
            # relay, not at each retry.
            with open(svc.log_path, errors="replace") as f:
                logged = f.read()
            warnings = logged.count(f"Cannot stream to the relay at {url}")
            check(warnings == HUNG_SESSIONS,
                  f"{warnings} warnings of bob's consumer naming {url}, for "
                  f"{HUNG_SESSIONS} sessions")
            check(svc.alive(), "tracectld died")
    finally:
        hung.close()
    log(f"a relay that never answers at start: {LOCAL_EVENTS} events in the local session, "
        f"none lost")


def test():
    hostname = socket.gethostname()
    top = tempfile.mkdtemp(prefix="tracectl-autoload-relay-")
    try:
        os.chmod(top, 0o755)
        directory = os.path.join(top, "sessions")
        os.mkdir(directory, 0o755)
        svc = Service(args=["--session-dir", directory])
        alice = svc.add_user("tctest-aralice")
        relay = Relay(top)
        down_ports = [free_port(), free_port()]
        flight_dir = os.path.join(alice.home, "flight")
        extra = os.path.join(alice.home, "extra")
        sessionxmllib.install(directory, "stream.lttng", streamed("autostream", relay.ports),
                           alice.uid)
        sessionxmllib.install(directory, "flight.lttng",
                           flight("autoflight", flight_dir, extra, relay.ports), alice.uid)
        sessionxmllib.install(directory, "down.lttng", streamed("autodown", down_ports), alice.uid)
        with relay, svc:
            # Listed once created, published once every file is loaded.
            wait_for(lambda: all(svc.cli("list", name, user=alice, check_ok=False)
                                 .returncode == 0
                                 for name in ("autostream", "autoflight", "autodown")),
                     timeout=30, what="alice's auto-loaded sessions")
            check_streamed(svc, relay, hostname, alice)
            check_flight(svc, relay, hostname, alice, extra)
            check_relay_down(svc, top, hostname, alice, down_ports)
            check(svc.alive(), "tracectld died")
        check_hung_relay_at_start(top)
    finally:
        shutil.rmtree(top, ignore_errors=True)


run(test)
