#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A program built with TRACECTL_SDT carries an SDT probe at each
tracepoint, provider and name those of the event, with the event's
declared arguments (probes/include/tracectl/tracepoint.h):

- readelf lists one note per call site, each with the argument count and
  the operand sizes and signs of the event's declared types, and no
  semaphore; the program built with _SDT_HAS_SEMAPHORES too names one;
  the program built without TRACECTL_SDT has no note at all;
- gdb finds the probes;
- perf (`perf probe -x PROGRAM sdt_example:NAME`) records the same calls
  that a tracectl session records at the same time, as many, with the
  values tracectl records (the pid, every sequence number, the count);
- built with semaphores, the probes fire under perf with no tracectl
  session at all (perf raises the semaphore, so the example's
  tracectl_tracepoint_enabled() guard lets its all_types tracepoints
  through), and a tracectl session still records the program as usual.

perf's probes are uprobe events named after the probe (sdt_example:*),
one set for the whole machine: the test fails at once if some are there
already (another run's), and removes its own with `perf probe -d`. perf's
build-id cache is a private one."""

import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import BUILD, EXAMPLE_APP, TRACEFS, Service, check, mount_tracefs, require, run
from tracelib import read_trace

APPS = os.path.join(BUILD, "tests", "integration", "apps")
SDT_APP = os.path.join(APPS, "tracectl-example-app-sdt")
SEMAPHORE_APP = os.path.join(APPS, "tracectl-example-app-sdt-semaphores")
# The example provider's events (probes/examples/example-tp.h) and their
# declared arguments as sys/sdt.h writes their operands' sizes, negative
# when signed: startup (int32_t pid), all_types (uint64_t i, const char
# *msg, const void *buf, uint32_t len), done (uint64_t count).
EVENTS = {"startup": ["-4"], "all_types": ["8", "8", "8", "4"], "done": ["8"]}
K = 25


def sdt_notes(program):
    """{name: [(arguments, semaphore), ...]}, a pair per stapsdt note of
    program, as readelf reads them; every note must be the example's."""
    out = subprocess.run(["readelf", "--notes", "--wide", program], capture_output=True,
                         text=True, check=True).stdout
    notes = {}
    for block in out.split("NT_STAPSDT")[1:]:
        provider = re.search(r"Provider: (\S+)", block)
        name = re.search(r"Name: (\S+)", block)
        semaphore = re.search(r"Semaphore: (0x[0-9a-f]+)", block)
        arguments = re.search(r"Arguments:(.*)", block)
        check(provider and name and semaphore, f"a stapsdt note readelf cannot read: {block!r}")
        check(provider.group(1) == "example", f"a probe of another provider: {block!r}")
        notes.setdefault(name.group(1), []).append(
            (arguments.group(1).split() if arguments else [], int(semaphore.group(1), 16)))
    return notes


def check_notes(program, has_semaphores):
    notes = sdt_notes(program)
    check(set(notes) == set(EVENTS), f"SDT probes {sorted(notes)}, expected {sorted(EVENTS)}")
    for name, sizes in EVENTS.items():
        for arguments, semaphore in notes[name]:
            check([arg.split("@")[0].rstrip("f") for arg in arguments] == sizes,
                  f"example:{name} carries {arguments}, expected operands of sizes {sizes}")
            check(all(re.fullmatch(r"-?[1248]f?@\S+", arg) for arg in arguments),
                  f"example:{name}'s arguments are not sized operands: {arguments}")
            check(bool(semaphore) == has_semaphores,
                  f"{os.path.basename(program)}: example:{name}'s semaphore is {semaphore:#x}")
        check(len({semaphore for _, semaphore in notes[name]}) == 1,
              f"example:{name}'s call sites name different semaphores: {notes[name]}")


def check_gdb():
    out = subprocess.run(["gdb", "-nx", "-batch", "-ex", "info probes stap", SDT_APP],
                         capture_output=True, text=True, timeout=120).stdout
    for name in EVENTS:
        check(re.search(rf"^stap\s+example\s+{name}\s", out, re.M),
              f"gdb does not list example:{name}: {out}")


class Perf:
    """perf with a build-id cache of its own (perf writes one at $HOME/.debug
    otherwise), and the probes it added."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.buildid_dir = os.path.join(tmp, "buildid")
        os.makedirs(self.buildid_dir)

    def __call__(self, *args, env=None):
        proc = subprocess.run(["perf", "--buildid-dir", self.buildid_dir, *args],
                              capture_output=True, text=True, env=env, timeout=300)
        check(proc.returncode == 0, f"perf {' '.join(args)} failed: {proc.stderr[-2000:]}")
        return proc.stdout

    def add_probes(self, program):
        for name in EVENTS:
            self("probe", "--quiet", "-x", program, f"sdt_example:{name}")
        lines = uprobe_lines()
        check(len(lines) == len(EVENTS) and all(program in line for line in lines),
              f"perf's probes on {program}: {lines}")
        return lines

    def delete_probes(self):
        self("probe", "--quiet", "-d", "sdt_example:*")
        check(uprobe_lines() == [], f"perf's probes were not removed: {uprobe_lines()}")

    def record(self, program, env, name):
        """{event: [(pid, {argument: value}), ...]} of what perf recorded of
        a run of program --count K."""
        data = os.path.join(self.tmp, f"{name}.data")
        events = [arg for event in EVENTS for arg in ("-e", f"sdt_example:{event}")]
        self("record", "-q", "-o", data, *events, "--", program, "--count", str(K), env=env)
        hits = {name: [] for name in EVENTS}
        for line in self("script", "-F", "pid,event,trace", "-i", data).splitlines():
            match = re.match(r"\s*(\d+)\s+sdt_example:(\w+):\s*\(\w+\)(.*)", line)
            if match:
                hits[match.group(2)].append(
                    (int(match.group(1)), dict(re.findall(r"(\w+)=(\S+)", match.group(3)))))
        return hits


def uprobe_lines():
    with open(os.path.join(TRACEFS, "uprobe_events")) as f:
        return [line for line in f.read().splitlines() if "sdt_example/" in line]


def session_start(svc, name):
    out = os.path.join(svc.rundir, name)
    svc.cli("create", name, "--output", out)
    svc.cli("enable-event", "-u", "example:*")
    svc.cli("start")
    return out


def session_end(svc, out):
    svc.cli("stop")
    svc.cli("destroy")
    return read_trace(out)


def check_recorded(events, what):
    """tracectl's trace of one run of the example --count K: startup, K
    all_types numbered 0 to K - 1, done; returns the run's pid."""
    startups = [fields for name, fields in events if name == "example:startup"]
    check(len(startups) == 1, f"{what}: tracectl recorded {len(startups)} example:startup")
    seqs = sorted(fields["seq"] for name, fields in events if name == "example:all_types")
    check(seqs == list(range(K)), f"{what}: tracectl's example:all_types numbers {seqs}")
    dones = [fields for name, fields in events if name == "example:done"]
    check(len(dones) == 1 and dones[0]["count"] == K, f"{what}: tracectl's example:done: {dones}")
    return startups[0]["pid"]


def check_hits(hits, pid, what):
    """perf's hits of one run of the example --count K: each event as many
    times as the program made the call, from pid, with the arguments the
    tracepoints were given."""
    for name, count in (("startup", 1), ("all_types", K), ("done", 1)):
        check(len(hits[name]) == count and all(p == pid for p, _ in hits[name]),
              f"{what}: perf saw example:{name} {hits[name]}, expected {count} of pid {pid}")
    check(hits["startup"][0][1].get("arg1") == str(pid),
          f"{what}: perf's example:startup argument is {hits['startup'][0][1]}, the pid {pid}")
    seqs = sorted(int(values.get("arg1", -1)) for _, values in hits["all_types"])
    check(seqs == list(range(K)), f"{what}: perf's example:all_types first arguments {seqs}")
    check(hits["done"][0][1].get("arg1") == str(K),
          f"{what}: perf's example:done argument is {hits['done'][0][1]}, expected {K}")


def check_perf_and_session(perf):
    """The plain SDT build under perf while a session records it."""
    perf.add_probes(SDT_APP)
    with Service() as svc:
        out = session_start(svc, "sdt")
        env = dict(svc.env(), TRACECTL_UST_REGISTER_TIMEOUT="5000")
        hits = perf.record(SDT_APP, env, "sdt")
        pid = check_recorded(session_end(svc, out), "SDT build under perf")
    check_hits(hits, pid, "SDT build with a session")
    perf.delete_probes()


def check_semaphores(perf):
    """The semaphore build: under perf with no service at all, then in a
    session without perf."""
    lines = perf.add_probes(SEMAPHORE_APP)
    check(all(re.search(r":0x[0-9a-f]+\(0x[0-9a-f]+\)", line) for line in lines),
          f"perf's probes do not raise the semaphores (no reference counter): {lines}")
    nowhere = os.path.join(perf.tmp, "no-service")
    hits = perf.record(SEMAPHORE_APP, dict(os.environ, TRACECTL_RUNDIR=nowhere), "semaphores")
    pids = {pid for pid, _ in hits["startup"]}
    check(len(pids) == 1, f"semaphore build under perf: example:startup from {pids}")
    check_hits(hits, pids.pop(), "semaphore build without tracectl")
    perf.delete_probes()
    with Service() as svc:
        out = session_start(svc, "semaphores")
        subprocess.run([SEMAPHORE_APP, "--count", str(K)], check=True, timeout=60,
                       env=dict(svc.env(), TRACECTL_UST_REGISTER_TIMEOUT="5000"))
        check_recorded(session_end(svc, out), "semaphore build without perf")


def test():
    require(os.path.exists(SDT_APP) and os.path.exists(SEMAPHORE_APP),
            "built without <sys/sdt.h> (apt-get install systemtap-sdt-dev)")
    for tool in ("readelf", "gdb", "perf"):
        require(shutil.which(tool), f"{tool} is not installed")
    mount_tracefs()
    require(os.path.exists(os.path.join(TRACEFS, "uprobe_events")),
            "this kernel has no uprobe events")
    check(uprobe_lines() == [], "perf's sdt_example probes are there already (another run's?); "
          f"perf probe -d 'sdt_example:*' removes them: {uprobe_lines()}")
    check_notes(SDT_APP, has_semaphores=False)
    check_notes(SEMAPHORE_APP, has_semaphores=True)
    check(sdt_notes(EXAMPLE_APP) == {}, "the program built without TRACECTL_SDT has SDT notes")
    check_gdb()
    tmp = tempfile.mkdtemp(prefix="tracectl-sdt-")
    try:
        perf = Perf(tmp)
        check_perf_and_session(perf)
        check_semaphores(perf)
    finally:
        if uprobe_lines():
            subprocess.run(["perf", "probe", "--quiet", "-d", "sdt_example:*"],
                           capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)
    check(uprobe_lines() == [], f"perf's probes were not removed: {uprobe_lines()}")


run(test)
