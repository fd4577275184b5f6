#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""libtracectl-tracef's SDT probes (probes/include/tracectl/tracef.h):

- readelf finds two probes in the library, tracectl_tracef:event with the
  message and tracectl_tracelog:message with the level, file, line,
  function and message, each with a semaphore;
- under perf with no tracectl at all, a program built with TRACECTL_SDT
  fires them once per call that has a message (tracef-app 10: ten
  messages and a long one; fifteen log levels, the two out of range
  none), its arguments evaluated once a call; and perf reads the
  message's text and the level from the probe's operands;
- the same program built without TRACECTL_SDT reaches them only while
  tracectl records the events: under perf alone, no hit and no argument
  evaluated; with a session recording tracectl_tracef:* and
  tracectl_tracelog:*, as many hits as tracectl records.

perf's probes are uprobe events named after the probe (sdt_tracectl_*),
one set for the whole machine: the test fails at once if some are there
already, and removes its own. perf's build-id cache is a private one."""

import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import BUILD, TRACEFS, Service, check, mount_tracefs, require, run
from tracelib import read_trace

APPS = os.path.join(BUILD, "tests", "integration", "apps")
SDT_APP = os.path.join(APPS, "tracectl-tracef-app-sdt")
PLAIN_APP = os.path.join(APPS, "tracectl-tracef-app")
LIBRARY = os.path.realpath(os.path.join(BUILD, "probes", "libtracectl-tracef.so"))
COUNT = 10
# tracef-app COUNT: COUNT messages and a long one; a message per log level.
TRACEF_HITS = COUNT + 1
TRACELOG_HITS = 15
# Operand sizes as sys/sdt.h writes them, negative when signed.
PROBES = {("tracectl_tracef", "event"): ["8"],
          ("tracectl_tracelog", "message"): ["-4", "8", "-4", "8", "8"]}
GROUPS = ("sdt_tracectl_tracef", "sdt_tracectl_tracelog")


def library_notes():
    out = subprocess.run(["readelf", "--notes", "--wide", LIBRARY], capture_output=True,
                         text=True, check=True).stdout
    notes = {}
    for block in out.split("NT_STAPSDT")[1:]:
        provider = re.search(r"Provider: (\S+)", block).group(1)
        name = re.search(r"Name: (\S+)", block).group(1)
        semaphore = int(re.search(r"Semaphore: (0x[0-9a-f]+)", block).group(1), 16)
        arguments = re.search(r"Arguments:(.*)", block).group(1).split()
        notes.setdefault((provider, name), []).append(
            ([arg.split("@")[0] for arg in arguments], semaphore))
    return notes


def check_notes():
    notes = library_notes()
    check(set(notes) == set(PROBES), f"{LIBRARY}'s SDT probes: {sorted(notes)}")
    for key, sizes in PROBES.items():
        check(len(notes[key]) == 1, f"{key} has {len(notes[key])} notes, one expected")
        arguments, semaphore = notes[key][0]
        check(arguments == sizes, f"{key} carries operands of sizes {arguments}, not {sizes}")
        check(semaphore != 0, f"{key} has no semaphore")


def uprobe_lines():
    with open(os.path.join(TRACEFS, "uprobe_events")) as f:
        return [line for line in f.read().splitlines()
                if any(f"{group}/" in line for group in GROUPS)]


class Perf:
    def __init__(self, tmp):
        self.tmp = tmp
        self.buildid_dir = os.path.join(tmp, "buildid")
        os.makedirs(self.buildid_dir)

    def __call__(self, *args, env=None):
        proc = subprocess.run(["perf", "--buildid-dir", self.buildid_dir, *args],
                              capture_output=True, text=True, env=env, timeout=300)
        check(proc.returncode == 0, f"perf {' '.join(args)} failed: {proc.stderr[-2000:]}")
        return proc.stdout

    def add_probes(self):
        self("probe", "--quiet", "-x", LIBRARY, "sdt_tracectl_tracef:event")
        self("probe", "--quiet", "-x", LIBRARY, "sdt_tracectl_tracelog:message")
        lines = uprobe_lines()
        check(len(lines) == 2 and all(re.search(r":0x[0-9a-f]+\(0x[0-9a-f]+\)", line)
                                      for line in lines),
              f"perf's probes on the library, with their semaphores: {lines}")

    def delete_probes(self):
        for group in GROUPS:
            self("probe", "--quiet", "-d", f"{group}:*")

    def record(self, program, env, name):
        """(hits of each probe, the program's argument evaluations)."""
        data = os.path.join(self.tmp, f"{name}.data")
        out = os.path.join(self.tmp, f"{name}.out")
        self("record", "-q", "-o", data, "-e", "sdt_tracectl_tracef:event",
             "-e", "sdt_tracectl_tracelog:message", "--", "sh", "-c", f'exec "$0" {COUNT} > {out}',
             program, env=env)
        hits = {"tracef": [], "tracelog": []}
        for line in self("script", "-F", "event,trace", "-i", data).splitlines():
            match = re.match(r"\s*sdt_tracectl_(tracef|tracelog):\w+:\s*\(\w+\)(.*)", line)
            if match:
                hits[match.group(1)].append(match.group(2))
        with open(out) as f:
            evaluations = int(re.search(r"evaluations (\d+)", f.read()).group(1))
        return hits, evaluations


def check_sdt_build(perf):
    hits, evaluations = perf.record(SDT_APP, dict(os.environ, TRACECTL_RUNDIR="/nonexistent"),
                                    "sdt")
    check(len(hits["tracef"]) == TRACEF_HITS and len(hits["tracelog"]) == TRACELOG_HITS,
          f"TRACECTL_SDT build under perf alone: {len(hits['tracef'])} tracef and "
          f"{len(hits['tracelog'])} tracelog hits, expected {TRACEF_HITS} and {TRACELOG_HITS}")
    check(evaluations == COUNT, f"its arguments were evaluated {evaluations} times, not {COUNT}")
    levels = [int(re.search(r"arg1=(-?\d+)", hit).group(1)) for hit in hits["tracelog"]]
    check(levels == list(range(TRACELOG_HITS)), f"tracelog levels under perf: {levels}")


def check_plain_build(perf):
    hits, evaluations = perf.record(PLAIN_APP,
                                    dict(os.environ, TRACECTL_RUNDIR="/nonexistent"), "plain")
    check(hits == {"tracef": [], "tracelog": []} and evaluations == 0,
          f"the build without TRACECTL_SDT reached the probes unrecorded: {hits}, "
          f"{evaluations} evaluations")
    with Service() as svc:
        out = os.path.join(svc.rundir, "tracef")
        svc.cli("create", "tracef", "--output", out)
        svc.cli("enable-event", "-u", "tracectl_tracef:*,tracectl_tracelog:*")
        svc.cli("start")
        env = dict(svc.env(), TRACECTL_UST_REGISTER_TIMEOUT="5000")
        hits, evaluations = perf.record(PLAIN_APP, env, "recorded")
        svc.cli("stop")
        svc.cli("destroy")
        names = [name for name, _ in read_trace(out)]
    recorded = (names.count("tracectl_tracef:event"),
                sum(name.startswith("tracectl_tracelog:") for name in names))
    check(recorded == (TRACEF_HITS, TRACELOG_HITS),
          f"tracectl recorded {recorded}, expected {(TRACEF_HITS, TRACELOG_HITS)}")
    check((len(hits["tracef"]), len(hits["tracelog"])) == recorded and evaluations == COUNT,
          f"while recorded, perf saw {len(hits['tracef'])} and {len(hits['tracelog'])} "
          f"hits ({evaluations} evaluations), tracectl recorded {recorded}")


def test():
    require(os.path.exists(SDT_APP), "built without <sys/sdt.h> (systemtap-sdt-dev)")
    for tool in ("readelf", "perf"):
        require(shutil.which(tool), f"{tool} is not installed")
    mount_tracefs()
    require(os.path.exists(os.path.join(TRACEFS, "uprobe_events")),
            "this kernel has no uprobe events")
    check(uprobe_lines() == [], f"perf's sdt_tracectl probes are there already: {uprobe_lines()}")
    check_notes()
    tmp = tempfile.mkdtemp(prefix="tracectl-tracef-sdt-")
    try:
        perf = Perf(tmp)
        perf.add_probes()
        check_sdt_build(perf)
        check_plain_build(perf)
        perf.delete_probes()
    finally:
        if uprobe_lines():
            for group in GROUPS:
                subprocess.run(["perf", "probe", "--quiet", "-d", f"{group}:*"],
                               capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)
    check(uprobe_lines() == [], f"perf's probes were not removed: {uprobe_lines()}")


run(test)
