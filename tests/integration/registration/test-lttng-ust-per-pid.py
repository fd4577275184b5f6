#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Per-PID buffers for LTTng-UST applications (lttng enable-channel
--buffers-pid): each application of the session has buffers and a trace
of its own, lttng-ust/pid/<procname>-<pid>-<date>-<time>, holding its
events only, with its pid and name in the trace's environment as
lttng-sessiond writes them; an application that ends has its trace
written out and closed at once, every event in it, while the session
records on; the session's channels all have the first one's scheme; a
snapshot session writes each application's buffers into its own
directory; `save` and `load` keep the scheme as LTTng's PER_PID; and
lttng-sessiond, given the same commands, names its directories and
stream files the same way."""

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import SYSTEM_PYTHON, Service, check, log, require, run, wait_for
from lttnglib import LTTNG_APP, lttng, lttng_sessiond, require_served, require_tools, start_lttng_app

# The ticks of one trace, the pids of its events (vpid context) and its
# environment.
READ = r"""
import bt2, json, sys
ticks, pids, env = [], set(), {}
for msg in bt2.TraceCollectionMessageIterator(sys.argv[1]):
    if type(msg) is bt2._StreamBeginningMessageConst:
        env = {k: (int(v) if isinstance(v, bt2._IntegerValueConst) else str(v))
               for k, v in msg.stream.trace.environment.items()}
    if type(msg) is not bt2._EventMessageConst:
        continue
    ev = msg.event
    pids.add(int(ev.common_context_field["vpid"]))
    if ev.name == "tc_lttng_test:tick":
        ticks.append(int(ev.payload_field["count"]))
print(json.dumps({"ticks": ticks, "pids": sorted(pids), "env": env}))
"""

# lttng-sessiond's name of a per-PID trace: the process name (15
# characters of it), its pid, the date and time of its registration.
DIRECTORY = re.compile(r"^(?P<name>.+)-(?P<pid>[0-9]+)-[0-9]{8}-[0-9]{6}$")


def read(path):
    proc = subprocess.run([SYSTEM_PYTHON, "-c", READ, path], capture_output=True, text=True,
                          timeout=300)
    check(proc.returncode == 0, f"babeltrace2 could not read {path}: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout)


def per_pid_traces(root, top="lttng-ust"):
    """pid -> (directory, its name's parts) of the per-PID traces under root."""
    found = {}
    for path in glob.glob(os.path.join(root, top, "pid", "*")):
        match = DIRECTORY.match(os.path.basename(path))
        check(match is not None, f"a per-PID trace directory named {os.path.basename(path)!r}")
        found[int(match["pid"])] = (path, match["name"])
    return found


def stream_files(path, channel="ch"):
    """The stream files of channel in the trace at path."""
    return sorted(name for name in os.listdir(path) if re.fullmatch(channel + r"_[0-9]+", name))


def recording(svc, alice, out):
    """Two applications in one session with per-PID buffers: the one
    that ends first has its trace complete before the session stops."""
    def cli(*args, check_ok=True):
        return svc.cli(*args, user=alice, check_ok=check_ok)

    cli("create", "s", "--output", out)
    cli("enable-channel", "-u", "--buffers-pid", "ch", "--subbuf-size", "64k")
    # The session's channels share its scheme: per-UID now is refused.
    other = cli("enable-channel", "-u", "--buffers-uid", "other", check_ok=False)
    check(other.returncode != 0 and "per-PID buffers" in other.stderr,
          f"a per-UID channel in a per-PID session: {other.returncode} {other.stderr!r}")
    cli("enable-channel", "-u", "more")
    cli("enable-event", "-u", "-c", "ch", "tc_lttng_test:tick")
    cli("add-context", "-u", "-c", "ch", "-t", "vpid")
    listing = cli("list", "s").stdout
    check("Buffering scheme: per-process" in listing, f"`list s` says:\n{listing}")
    cli("start")
    short = start_lttng_app(svc, alice, 2)
    long = start_lttng_app(svc, alice, 6)
    check(short.wait(timeout=30) == 0, f"the first application exited with {short.returncode}")
    # Its trace is written out and closed once it ends, the session
    # still recording: every tick of its 2 s is there.
    ended = {}

    def complete():
        traces = per_pid_traces(out)
        if short.app_pid not in traces:
            return False
        found = subprocess.run([SYSTEM_PYTHON, "-c", READ, traces[short.app_pid][0]],
                               capture_output=True, text=True, timeout=300)
        if found.returncode != 0:
            return False
        ended.update(json.loads(found.stdout))
        return sorted(ended["ticks"]) == list(range(20))

    wait_for(complete, 10, "the trace of the application that ended, complete")
    check(long.poll() is None, "the second application ended before the first one's check")
    log(f"the first application's trace was complete {len(ended['ticks'])} ticks in, "
        "while the session recorded")
    check(long.wait(timeout=30) == 0, f"the second application exited with {long.returncode}")
    cli("stop")
    save_dir = os.path.join(alice.home, "saved")
    cli("save", "s", "--output-path", save_dir)
    cli("destroy", "s")
    with open(os.path.join(save_dir, "s.lttng")) as f:
        saved = f.read()
    check("<buffer_type>PER_PID</buffer_type>" in saved and "PER_UID" not in saved,
          "the saved session's buffer types: " + str(re.findall(r"<buffer_type>\w+", saved)))
    # Loaded, it writes to the same directory, which must be empty.
    os.rename(out, out + ".kept")
    cli("load", "--input-path", save_dir, "s")
    listing = cli("list", "s").stdout
    check("Buffering scheme: per-process" in listing, f"`list s` after `load`:\n{listing}")
    cli("destroy", "s")
    return {short.app_pid: 20, long.app_pid: 60}


def snapshot(svc, alice):
    """A snapshot session with per-PID buffers: each application's
    buffers in a directory of its own in the snapshot."""
    out = os.path.join(alice.home, "fr")

    def cli(*args):
        return svc.cli(*args, user=alice)

    cli("create", "fr", "--snapshot", "--output", out)
    cli("enable-channel", "-u", "--buffers-pid", "ring", "--subbuf-size", "64k")
    cli("enable-event", "-u", "-c", "ring", "tc_lttng_test:tick")
    cli("add-context", "-u", "-c", "ring", "-t", "vpid")
    cli("start")
    apps = [start_lttng_app(svc, alice, 30), start_lttng_app(svc, alice, 30)]
    time.sleep(2)
    directory = svc.cli_json("snapshot", "record", user=alice)["directory"]
    for app in apps:
        app.kill()
        app.wait()
    cli("destroy", "fr")
    traces = per_pid_traces(directory)
    check(sorted(traces) == sorted(app.app_pid for app in apps),
          f"the snapshot's per-PID traces: {sorted(traces)}, the applications "
          f"{[app.app_pid for app in apps]}")
    for pid, (path, _) in traces.items():
        found = read(path)
        ticks = sorted(found["ticks"])
        check(found["pids"] == [pid] and ticks and ticks[0] == 0 and
              ticks == list(range(len(ticks))) and len(ticks) >= 10,
              f"the snapshot of {pid}: pids {found['pids']}, ticks {ticks[:3]}..{ticks[-3:]}")
    log(f"snapshot: {len(traces)} per-PID traces")


def with_lttng_sessiond(top):
    """The same channel through Debian's lttng-sessiond: its directories'
    names and stream files, and the environment of its traces."""
    out = os.path.join(top, "reference")
    with lttng_sessiond(top) as env:
        for args in (["create", "s", "--output", out],
                     ["enable-channel", "-u", "--buffers-pid", "ch", "--subbuf-size", "64k"],
                     ["enable-event", "-u", "-c", "ch", "tc_lttng_test:tick"],
                     ["add-context", "-u", "-c", "ch", "-t", "vpid"],
                     ["start"]):
            lttng(env, *args)
        subprocess.run([LTTNG_APP, "1"], capture_output=True, timeout=60, check=True)
        lttng(env, "destroy", "s")
    traces = per_pid_traces(out, "ust")
    check(len(traces) == 1, f"lttng-sessiond's per-PID traces: {traces}")
    ((pid, (path, name)),) = traces.items()
    return name, stream_files(path), read(path)["env"]


def check_traces(out, expected):
    """Each application's trace: its own events, every tick, its pid and
    name in its environment. Returns one of them as
    {"name", "files", "env"}."""
    traces = per_pid_traces(out)
    check(sorted(traces) == sorted(expected),
          f"per-PID traces of pids {sorted(traces)}, the applications {sorted(expected)}")
    check(not os.path.exists(os.path.join(out, "lttng-ust", "uid")),
          "a per-UID trace in a per-PID session")
    ours = {}
    for pid, (path, name) in traces.items():
        found = read(path)
        ticks = sorted(found["ticks"])
        log(f"pid {pid} ({name}): {len(ticks)} ticks, files {stream_files(path)}")
        check(found["pids"] == [pid], f"the trace of {pid} holds events of {found['pids']}")
        check(ticks == list(range(expected[pid])),
              f"the trace of {pid}: {len(ticks)} ticks, not 0..{expected[pid] - 1}")
        env = found["env"]
        check(env.get("tracer_buffering_scheme") == "pid" and env.get("vpid") == pid and
              env.get("tracer_buffering_id") == pid and env.get("procname") == name,
              f"the environment of {pid}'s trace: {env}")
        ours = {"name": name, "files": stream_files(path), "env": env}
    return ours


def test():
    require_tools()
    for tool in ("lttng-sessiond", "lttng"):
        require(shutil.which(tool), f"{tool} is not installed")
    with Service(args=["--lttng-ust"]) as svc:
        require_served(svc)
        alice = svc.add_user("tctest-alice")
        out = os.path.join(alice.home, "trace")
        expected = recording(svc, alice, out)
        ours = check_traces(out + ".kept", expected)
        snapshot(svc, alice)
        check(svc.alive(), "tracectld died")
    top = tempfile.mkdtemp(prefix="tctest-lttng-per-pid-")
    try:
        name, files, env = with_lttng_sessiond(top)
    finally:
        shutil.rmtree(top, ignore_errors=True)
    log(f"lttng-sessiond: {name}, files {files}")
    check(name == ours["name"] and files == ours["files"],
          f"lttng-sessiond's trace {name} {files}, tracectl's {ours['name']} {ours['files']}")
    keys = {"tracer_buffering_scheme", "tracer_buffering_id", "vpid", "procname",
            "vpid_datetime"}
    check(keys <= set(env) and keys <= set(ours["env"]),
          f"environment keys: lttng-sessiond's {sorted(env)}, tracectl's {sorted(ours['env'])}")
    check(re.fullmatch(r"[0-9]{8}T[0-9]{6}[+-][0-9]{4}", ours["env"]["vpid_datetime"]),
          f"vpid_datetime {ours['env']['vpid_datetime']!r}, lttng-sessiond's "
          f"{env['vpid_datetime']!r}")


run(test)
