#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A program built with TRACECTL_SDT carries an SDT probe at each
tracepoint, with the tracepoint's arguments (probes/include/tracectl/
tracepoint.h): readelf lists the notes, gdb finds the probes, and perf
records the same calls tracectl records, at the same time, with the
arguments' values. Built without it, the program has no SDT note."""

import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import BUILD, EXAMPLE_APP, TRACEFS, Service, check, mount_tracefs, require, run
from tracelib import read_trace

SDT_APP = os.path.join(BUILD, "tests", "integration", "apps", "tracectl-example-app-sdt")
# The example provider's events and the count of their tracepoints'
# arguments (probes/examples/example-tp.h).
EVENTS = {"startup": 1, "all_types": 4, "done": 1}
K = 25


def sdt_notes(program):
    """{name: [argument, ...]} of program's stapsdt notes, as readelf reads them."""
    out = subprocess.run(["readelf", "--notes", "--wide", program], capture_output=True,
                         text=True, check=True).stdout
    notes = {}
    for block in out.split("NT_STAPSDT")[1:]:
        provider = re.search(r"Provider: (\S+)", block)
        name = re.search(r"Name: (\S+)", block)
        arguments = re.search(r"Arguments:(.*)", block)
        check(provider and name, f"a stapsdt note readelf cannot read: {block!r}")
        check(provider.group(1) == "example", f"a probe of another provider: {block!r}")
        notes[name.group(1)] = arguments.group(1).split() if arguments else []
    return notes


def check_notes():
    notes = sdt_notes(SDT_APP)
    check(set(notes) == set(EVENTS), f"SDT probes {sorted(notes)}, expected {sorted(EVENTS)}")
    for name, count in EVENTS.items():
        check(len(notes[name]) == count,
              f"example:{name} carries {notes[name]}, expected {count} arguments")
        check(all(re.fullmatch(r"-?[1248]@\S+", arg) for arg in notes[name]),
              f"example:{name}'s arguments are not sized operands: {notes[name]}")
    check(sdt_notes(EXAMPLE_APP) == {}, "the program built without TRACECTL_SDT has SDT notes")


def check_gdb():
    out = subprocess.run(["gdb", "-nx", "-batch", "-ex", "info probes stap", SDT_APP],
                         capture_output=True, text=True, timeout=120).stdout
    for name in EVENTS:
        check(re.search(rf"^stap\s+example\s+{name}\s", out, re.M),
              f"gdb does not list example:{name}: {out}")


def perf(*args, env=None):
    proc = subprocess.run(["perf", *args], capture_output=True, text=True, env=env,
                          timeout=300)
    check(proc.returncode == 0, f"perf {' '.join(args)} failed: {proc.stderr[-2000:]}")
    return proc.stdout


def perf_hits(perf_env, data):
    """[(event, pid, {argument: value})] of what perf recorded."""
    hits = []
    for line in perf(*"script -F pid,event,trace -i".split(), data, env=perf_env).splitlines():
        match = re.match(r"\s*(\d+)\s+sdt_example:(\w+):\s*\(\w+\)(.*)", line)
        if match:
            values = dict(re.findall(r"(\w+)=(\S+)", match.group(3)))
            hits.append((match.group(2), int(match.group(1)), values))
    return hits


def uprobe_lines():
    with open(os.path.join(TRACEFS, "uprobe_events")) as f:
        return [line for line in f.read().splitlines() if "sdt_example" in line]


def record_both(svc, perf_env, tmp):
    """Runs the SDT program under perf while a session records it."""
    out = os.path.join(svc.rundir, "trace")
    svc.cli("create", "sdt", "--output", out)
    svc.cli("enable-event", "-u", "example:*")
    svc.cli("start")
    data = os.path.join(tmp, "perf.data")
    app_env = dict(svc.env(), TRACECTL_UST_REGISTER_TIMEOUT="5000", **perf_env)
    perf("record", "-q", "-o", data, "-e", "sdt_example:startup", "-e", "sdt_example:done",
         "--", SDT_APP, "--count", str(K), env=app_env)
    svc.cli("stop")
    return read_trace(out), perf_hits(perf_env, data)


def check_same_calls(events, hits):
    startups = [fields for name, fields in events if name == "example:startup"]
    check(len(startups) == 1, f"tracectl recorded {len(startups)} example:startup")
    pid = startups[0]["pid"]
    check(sum(name == "example:all_types" for name, _ in events) == K,
          "tracectl did not record every example:all_types")
    dones = [fields for name, fields in events if name == "example:done"]
    check(len(dones) == 1 and dones[0]["count"] == K, f"tracectl's example:done: {dones}")
    check([(event, hit_pid) for event, hit_pid, _ in hits] ==
          [("startup", pid), ("done", pid)],
          f"perf saw {hits}, expected startup then done of pid {pid}")
    # The argument perf fetched is the one the tracepoint was given.
    check(hits[0][2].get("arg1") == str(pid),
          f"perf's example:startup argument is {hits[0][2]}, the pid is {pid}")


def test():
    require(os.path.exists(SDT_APP), "built without <sys/sdt.h> (apt-get install "
            "systemtap-sdt-dev)")
    for tool in ("readelf", "gdb", "perf"):
        require(shutil.which(tool), f"{tool} is not installed")
    mount_tracefs()
    require(os.path.exists(os.path.join(TRACEFS, "uprobe_events")),
            "this kernel has no uprobe events")
    check_notes()
    check_gdb()
    tmp = tempfile.mkdtemp(prefix="tracectl-sdt-")
    # perf keeps the SDT programs it knows in a build-id cache: a private one.
    perf_env = dict(os.environ, PERF_BUILDID_DIR=os.path.join(tmp, "buildid"))
    try:
        perf("buildid-cache", "--add", SDT_APP, env=perf_env)
        listed = perf("list", "sdt", env=perf_env)
        for name in EVENTS:
            check(f"sdt_example:{name}" in listed, f"perf list sdt misses {name}: {listed}")
        for name in ("startup", "done"):
            perf("probe", "--quiet", f"sdt_example:{name}", env=perf_env)
        check(any("arg1=" in line for line in uprobe_lines() if "startup" in line),
              f"perf's probe on example:startup fetches no argument: {uprobe_lines()}")
        with Service() as svc:
            events, hits = record_both(svc, perf_env, tmp)
        check_same_calls(events, hits)
    finally:
        subprocess.run(["perf", "probe", "--quiet", "--del", "sdt_example:*"], env=perf_env,
                       capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)
    check(uprobe_lines() == [], f"perf's probes were not removed: {uprobe_lines()}")


run(test)
