#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A snapshot session (the flight recorder) records LTTng-UST
applications (Debian's liblttng-ust) too: nothing is written while it
records; each `snapshot record` writes what the applications' overwrite
buffers hold, each channel a stream class of its own, without
consuming it, so a later snapshot holds the same oldest events and
newer ones; a snapshot to an lttng-relayd output holds the same ticks
as a local one taken just before, read by babeltrace2 from the relay's
copy; a snapshot after `stop` holds every event up to the stop. The
channels' statistics show the bytes their buffers hold (at most their
size)."""

import glob
import json
import os
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import SYSTEM_PYTHON, Service, check, log, run
from lttnglib import require_served, require_tools, start_lttng_app
from relaylib import Relay


# The ticks' counts and the messages' channels of one trace.
READ = r"""
import bt2, json, sys
ticks, channels = [], set()
for msg in bt2.TraceCollectionMessageIterator(sys.argv[1]):
    if type(msg) is not bt2._EventMessageConst:
        continue
    ev = msg.event
    channels.add(ev.stream.cls.id)
    if ev.name == "tc_lttng_test:tick":
        ticks.append(int(ev.payload_field["count"]))
print(json.dumps({"ticks": ticks, "classes": len(channels)}))
"""


def read(path):
    proc = subprocess.run([SYSTEM_PYTHON, "-c", READ, path], capture_output=True, text=True,
                          timeout=300)
    check(proc.returncode == 0, f"babeltrace2 could not read {path}: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout)


def lttng_part(directory, uid):
    path = os.path.join(directory, "lttng-ust", "uid", str(uid), "64-bit")
    check(os.path.isfile(os.path.join(path, "metadata")),
          f"the snapshot {directory} has no LTTng-UST trace of uid {uid}: "
          f"{sorted(os.listdir(directory)) if os.path.isdir(directory) else 'none'}")
    return path


def consecutive(ticks):
    return bool(ticks) and ticks == list(range(ticks[0], ticks[0] + len(ticks)))


def test():
    require_tools()
    with Service(args=["--lttng-ust"]) as svc, Relay(svc.rundir) as relay:
        require_served(svc)
        alice = svc.add_user("tctest-alice")
        out = os.path.join(alice.home, "fr")

        def cli(*args, check_ok=True):
            return svc.cli(*args, user=alice, check_ok=check_ok)

        cli("create", "fr", "--snapshot", "--output", out)
        cli("enable-channel", "-u", "big", "--subbuf-size", "64k", "--num-subbuf", "4")
        cli("enable-channel", "-u", "small", "--subbuf-size", "4k", "--num-subbuf", "4")
        cli("enable-event", "-u", "-c", "big", "tc_lttng_test:tick")
        cli("enable-event", "-u", "-c", "small", "tc_lttng_test:tick")
        cli("enable-event", "-u", "-c", "small", "tc_lttng_test:message")
        cli("add-context", "-u", "-c", "small", "-t", "vpid")
        cli("start")
        app = start_lttng_app(svc, alice, 30)
        time.sleep(3)
        check(not os.path.exists(os.path.join(out, "lttng-ust")),
              "a snapshot session wrote an LTTng-UST trace while recording")
        first = svc.cli_json("snapshot", "record", user=alice)["directory"]
        # The flight recorder keeps what it recorded: its buffers hold
        # bytes, at most their size (the writers push the oldest out).
        stats = {channel["name"]: channel["statistics"]
                 for channel in svc.cli_json("list", "fr", user=alice)["channels"]}
        log(f"statistics after 3 s: {stats}")
        check(all(0 < s["used_bytes"] <= s["buffer_bytes"] and
                  s["peak_used_bytes"] >= s["used_bytes"] for s in stats.values()),
              f"the flight recorder's buffer usage: {stats}")
        time.sleep(1.5)
        second = svc.cli_json("snapshot", "record", user=alice)["directory"]
        # An lttng-relayd output: the same ticks as a local snapshot of the
        # buffers as they are (the application stopped meanwhile).
        os.kill(app.app_pid, signal.SIGSTOP)
        time.sleep(0.3)
        local = svc.cli_json("snapshot", "record", user=alice)["directory"]
        cli("snapshot", "add-output", "--name", "far", relay.url)
        cli("snapshot", "record", "far")
        cli("snapshot", "del-output", "far")
        os.kill(app.app_pid, signal.SIGCONT)
        relayed = glob.glob(os.path.join(relay.output, socket.gethostname(), "fr-*", "*",
                                         "lttng-ust", "uid", str(alice.uid), "64-bit"))
        check(len(relayed) == 1, f"the relay's copy of the snapshot: {relayed} in "
              f"{[p for p, _, _ in os.walk(relay.output)]}")
        time.sleep(1)
        cli("stop")
        time.sleep(1)
        after_stop = svc.cli_json("snapshot", "record", user=alice)["directory"]
        app.kill()
        app.wait()
        cli("destroy", "fr")
        check(svc.alive(), "tracectld died")

        ticks = {}
        for name, directory in (("first", first), ("second", second), ("after stop", after_stop)):
            found = read(lttng_part(directory, alice.uid))
            ticks[name] = sorted(found["ticks"])
            log(f"{name} snapshot: {len(found['ticks'])} ticks "
                f"({min(found['ticks'], default=None)}..{max(found['ticks'], default=None)}), "
                f"{found['classes']} stream classes")
            check(found["classes"] == 2,
                  f"the {name} snapshot has {found['classes']} stream classes")
        near = sorted(read(lttng_part(local, alice.uid))["ticks"])
        far = sorted(read(relayed[0])["ticks"])
        log(f"local snapshot: {len(near)} ticks, the relay's: {len(far)}")
        check(near and far == near, f"the relay's snapshot has {len(far)} ticks "
              f"({far[:3]}..{far[-3:]}), the local one {len(near)}")
        # Each tick is in both channels: two of each while neither wrapped.
        first_ticks = sorted(set(ticks["first"]))
        check(consecutive(first_ticks) and first_ticks[0] == 0 and len(first_ticks) >= 20 and
              ticks["first"].count(0) == 2, f"the first snapshot's ticks: {ticks['first']}")
        second_ticks = sorted(set(ticks["second"]))
        check(consecutive(second_ticks) and second_ticks[0] == 0 and
              second_ticks[-1] >= first_ticks[-1] + 10,
              f"the second snapshot does not hold the first's and newer ticks: {second_ticks}")
        # Stopped 1 s after the second snapshot (+ the refused one): at
        # least 10 ticks more, each in both channels, none after the stop.
        last = sorted(set(ticks["after stop"]))
        check(consecutive(last) and last[0] == 0 and last[-1] >= second_ticks[-1] + 10 and
              all(ticks["after stop"].count(t) == 2 for t in last),
              f"the snapshot after the stop: {len(last)} ticks, up to {last[-1] if last else None},"
              f" the second's up to {second_ticks[-1]}")

run(test)
