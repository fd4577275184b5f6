#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The channels of a session, for LTTng-UST applications (Debian's
liblttng-ust): each channel of the session is a channel of the
application's buffers, with its name (its stream files), its geometry
and mode, its own contexts and its own events, and a stream class of
its own in the trace; an event enabled in one channel after the start
reaches only that channel, and one disabled in a channel stops there
while the other channel records on; a channel disabled records nothing
until it is enabled again. No channel is added once the
session started (LTTng-UST takes none into a session it started). The
same commands through lttng-sessiond give the same stream files."""

import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import SYSTEM_PYTHON, Service, check, log, require, run
from lttnglib import LTTNG_APP, lttng, lttng_sessiond, require_served, require_tools, start_lttng_app



# Each event with its stream class id, its stream file, its payload and
# the context fields its stream class gives it.
READ = r"""
import bt2, json, sys
out = []
for msg in bt2.TraceCollectionMessageIterator(sys.argv[1]):
    if type(msg) is not bt2._EventMessageConst:
        continue
    ev = msg.event
    entry = {"name": ev.name, "class": ev.stream.cls.id,
             "file": ev.stream.name or "", "ctx": {}}
    if ev.common_context_field is not None:
        entry["ctx"] = {k: int(v) for k, v in ev.common_context_field.items()}
    if "count" in ev.payload_field:
        entry["count"] = int(ev.payload_field["count"])
    out.append(entry)
print(json.dumps(out))
"""


def read(out):
    proc = subprocess.run([SYSTEM_PYTHON, "-c", READ, out], capture_output=True, text=True,
                          timeout=300)
    check(proc.returncode == 0, f"babeltrace2 could not read {out}: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout)


def stream_files(out):
    """The stream files' channel names under out (metadata and indexes aside)."""
    names = set()
    for path in glob.glob(os.path.join(out, "**", "*_[0-9]*"), recursive=True):
        if os.path.isfile(path) and "/index/" not in path:
            names.add(os.path.basename(path).rsplit("_", 1)[0])
    return names


def with_tracectl(svc, alice):
    out = os.path.join(alice.home, "trace")

    def cli(*args):
        return svc.cli(*args, user=alice)

    cli("create", "s", "--output", out)
    cli("enable-channel", "-u", "big", "--subbuf-size", "64k", "--num-subbuf", "4")
    cli("enable-channel", "-u", "ring", "--overwrite", "--subbuf-size", "8k",
        "--num-subbuf", "4")
    cli("enable-event", "-u", "-c", "big", "tc_lttng_test:tick")
    cli("enable-event", "-u", "-c", "ring", "tc_lttng_test:message")
    cli("add-context", "-u", "-c", "ring", "-t", "vpid")
    cli("start")
    app = start_lttng_app(svc, alice, 7)
    time.sleep(1)
    # After the start: one event in one channel; no channel (LTTng-UST
    # takes none into a session it started); a channel disabled for a
    # second, then enabled again.
    cli("enable-event", "-u", "-c", "big", "tc_lttng_test:failure")
    late = svc.cli("enable-channel", "-u", "late", user=alice, check_ok=False)
    check(late.returncode != 0 and "before it is first started" in late.stderr,
          f"a channel added after the start: {late.returncode} {late.stderr!r}")
    cli("disable-channel", "-u", "big")
    time.sleep(1)
    cli("enable-channel", "-u", "big")
    time.sleep(1)
    cli("disable-event", "-u", "-c", "ring", "tc_lttng_test:message")
    disabled_at = time.monotonic()
    check(app.wait(timeout=30) == 0, f"the application exited with {app.returncode}")
    cli("stop")
    cli("destroy", "s")
    return out, app.app_pid, disabled_at


def with_lttng_sessiond(top):
    """The same channels through Debian's lttng-sessiond: the stream
    files it writes."""
    out = os.path.join(top, "reference")
    with lttng_sessiond(top) as env:
        for args in (["create", "s", "--output", out],
                     ["enable-channel", "-u", "big", "--subbuf-size", "64k", "--num-subbuf",
                      "4"],
                     ["enable-channel", "-u", "ring", "--overwrite", "--subbuf-size", "8k",
                      "--num-subbuf", "4"],
                     ["enable-event", "-u", "-c", "big", "tc_lttng_test:tick"],
                     ["enable-event", "-u", "-c", "ring", "tc_lttng_test:message"],
                     ["start"]):
            lttng(env, *args)
        subprocess.run([LTTNG_APP, "1"], capture_output=True, timeout=60, check=True)
        lttng(env, "destroy", "s")
    return stream_files(out)


def test():
    require_tools()
    for tool in ("lttng-sessiond", "lttng"):
        require(shutil.which(tool), f"{tool} is not installed")
    with Service(args=["--lttng-ust"]) as svc:
        require_served(svc)
        alice = svc.add_user("tctest-alice")
        out, pid, _ = with_tracectl(svc, alice)
        files = stream_files(out)
        log(f"stream files: {sorted(files)}")
        check(files == {"big", "ring"}, f"the channels' stream files: {sorted(files)}")
        events = read(out)
        by_name = {}
        for event in events:
            by_name.setdefault(event["name"], []).append(event)
        ticks, messages = by_name.get("tc_lttng_test:tick", []), by_name.get(
            "tc_lttng_test:message", [])
        failures = by_name.get("tc_lttng_test:failure", [])
        log(f"events: { {name: len(found) for name, found in by_name.items()} }")
        check(set(by_name) == {"tc_lttng_test:tick", "tc_lttng_test:message",
                               "tc_lttng_test:failure"},
              f"events recorded: {sorted(by_name)}")
        # 'big' was disabled for a second, from about 1 s: one gap of
        # about 10 ticks, nothing lost besides.
        counts = [event["count"] for event in ticks]
        gaps = [(a, b) for a, b in zip(counts, counts[1:]) if b != a + 1]
        check(counts and counts[0] == 0 and counts[-1] == 69 and len(gaps) == 1 and
              5 <= gaps[0][1] - gaps[0][0] - 1 <= 15,
              f"the ticks in 'big', disabled for a second: gaps {gaps}, {len(counts)} ticks")
        big_class = {event["class"] for event in ticks + failures}
        ring_class = {event["class"] for event in messages}
        check(len(big_class) == 1 and len(ring_class) == 1 and big_class != ring_class,
              f"stream classes: big {big_class}, ring {ring_class}")
        check(all("/big_" in event["file"] for event in ticks + failures) and
              all("/ring_" in event["file"] for event in messages),
              "an event in another channel's stream files: " +
              str({(e["name"], os.path.basename(e["file"])) for e in events}))
        check(all(event["ctx"] == {} for event in ticks + failures),
              f"a context in 'big': {ticks[0]['ctx'] if ticks else None}")
        check(all(event["ctx"] == {"vpid": pid} for event in messages),
              f"the vpid context in 'ring': {messages[0]['ctx'] if messages else None}")
        # Enabled after the start, in 'big' only: i = 49 (at 4.9 s).
        check(len(failures) == 1, f"{len(failures)} failure events, not 1")
        # Disabled after about 3 s of 7: about 30 messages, never all 70.
        check(15 <= len(messages) <= 50,
              f"{len(messages)} messages recorded in 'ring', disabled at 3 s of 7")
        check(svc.alive(), "tracectld died")
    top = tempfile.mkdtemp(prefix="tctest-lttng-channels-")
    try:
        theirs = with_lttng_sessiond(top)
    finally:
        shutil.rmtree(top, ignore_errors=True)
    log(f"lttng-sessiond's stream files: {sorted(theirs)}")
    check(theirs == files, f"lttng-sessiond wrote {sorted(theirs)}, tracectl {sorted(files)}")


run(test)
