#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The ip context and per-thread perf counter contexts of LTTng-UST
applications, end to end: `tracectl add-context -u -t ip -t
perf:thread:task-clock` (with vpid and vtid) records, on every event of
an LTTng-UST application with two more threads, the address of the
tracepoint's call (inside the application's executable mapping) and the
thread's own counter (increasing in each thread); babeltrace2 reads the
fields with the same names, types and order as in lttng-sessiond's trace
of the same run and commands, and the same number of events. tracectl's
own application, in the same session, records its contexts, ip and the
perf counter, and the channel lists no context as LTTng-UST's only. A
hardware counter the machine cannot open (this VM has no PMU for guests:
perf_event_open() of cycles fails) is refused at add-context, naming the
reason, where lttng-sessiond takes it and each application refuses it. Wrong names are refused as lttng refuses
them, kernel perf counters too, and nothing is added after the start. A
session lttng saved with these contexts is auto-loaded at the service's
start, and loaded and saved back with the same <perf> elements, in a file
lttng's schema validates."""

import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import SYSTEM_PYTHON, Service, check, log, run, wait_for
from lttnglib import (LTTNG_APP, hardware_cycles_open, lttng, lttng_sessiond, require_served,
                      require_tools)
from tracelib import read_streams

CONTEXTS = ["vpid", "vtid", "ip", "perf:thread:task-clock"]
FIELDS = ["ctx_vpid", "ctx_vtid", "ctx_ip", "ctx_perf_thread_task_clock"]
# lttng's schema of session files (Debian's lttng-tools).
LTTNG_XSD = "/usr/share/xml/lttng/session.xsd"
SECONDS, THREADS = 2, 2
# What a run of SECONDS with THREADS more threads emits: main()'s ticks
# and messages every 100 ms and a state every tenth, each worker's ticks
# every 20 ms.
EVENTS = SECONDS * 10 * 2 + SECONDS + THREADS * SECONDS * 50

# The context fields' classes, as babeltrace2 reads them from the metadata.
_FIELD_CLASSES = r"""
import bt2, json, sys
for msg in bt2.TraceCollectionMessageIterator(sys.argv[1]):
    if type(msg) is bt2._EventMessageConst and msg.event.name.startswith("tc_lttng_test:"):
        cls = msg.event.common_context_field.cls
        out = []
        for name in cls:
            fc = cls[name].field_class
            out.append([name, type(fc).__name__, getattr(fc, "field_value_range", None),
                        str(getattr(fc, "preferred_display_base", None))])
        print(json.dumps(out))
        break
"""


def field_classes(path):
    proc = subprocess.run([SYSTEM_PYTHON, "-c", _FIELD_CLASSES, path], capture_output=True,
                          text=True, timeout=300)
    check(proc.returncode == 0, f"babeltrace2 could not read {path}: {proc.stderr[-2000:]}")
    return proc.stdout.strip()


def run_app(env, apps=None):
    """LTTNG_APP for SECONDS with THREADS more threads; its pid and the
    address ranges of its executable's code."""
    proc = subprocess.Popen([LTTNG_APP, str(SECONDS), str(THREADS)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if apps is not None:
        apps.append(proc)
    line = proc.stdout.readline()
    check(line.startswith("ready"), f"the LTTng-UST application did not start: {line!r}")
    exe = os.path.realpath(LTTNG_APP)
    ranges = []
    with open(f"/proc/{proc.pid}/maps") as maps:
        for entry in maps:
            parts = entry.split()
            if len(parts) >= 6 and parts[5] == exe and "x" in parts[1]:
                start, end = (int(x, 16) for x in parts[0].split("-"))
                ranges.append((start, end))
    check(ranges, f"no executable mapping of {exe} in /proc/{proc.pid}/maps")
    proc.wait(timeout=60)
    check(proc.returncode == 0, f"the LTTng-UST application failed: {proc.stderr.read()}")
    return proc.pid, ranges


def check_trace(out, pid, ranges, who):
    """Every event of the run, each with the four contexts in order, ip in
    the executable's code, each thread's task clock increasing."""
    events = [e for e in read_streams(out)["events"] if e["name"].startswith("tc_lttng_test:")]
    check(len(events) == EVENTS, f"{who}: {len(events)} events, not {EVENTS}")
    by_thread = {}
    for event in events:
        names = [key for key in event if key.startswith("ctx_")]
        check(names == FIELDS, f"{who}: {event['name']} has contexts {names}, not {FIELDS}")
        check(event["ctx_vpid"] == pid, f"{who}: vpid {event['ctx_vpid']}, not {pid}")
        ip = event["ctx_ip"]
        check(any(start <= ip < end for start, end in ranges),
              f"{who}: ip {ip:#x} of {event['name']} is outside the application's code "
              f"{[(hex(s), hex(e)) for s, e in ranges]}")
        by_thread.setdefault(event["ctx_vtid"], []).append(event["ctx_perf_thread_task_clock"])
    check(len(by_thread) == 1 + THREADS, f"{who}: threads {sorted(by_thread)}")
    for tid, clocks in by_thread.items():
        check(all(a <= b for a, b in zip(clocks, clocks[1:])) and clocks[-1] > clocks[0] > 0,
              f"{who}: thread {tid}'s task clock does not increase: {clocks[:10]}...")
        if tid != pid:
            # The workers spin before each event: their clock always moves.
            check(all(a < b for a, b in zip(clocks, clocks[1:])),
                  f"{who}: worker {tid}'s task clock stands still: {clocks[:10]}...")
    log(f"{who}: {len(events)} events, ip in the code, task clocks per thread "
        f"{ {tid: (c[0], c[-1]) for tid, c in by_thread.items()} }")


def described_events(out):
    """Whether any metadata under out describes an event of the
    application (a trace whose application was refused describes none)."""
    for root, _, files in os.walk(out):
        if "metadata" in files:
            with open(os.path.join(root, "metadata"), "rb") as f:
                if b"tc_lttng_test:" in f.read():
                    return True
    return False


def check_refusals(svc):
    svc.cli("create", "bad", "--output", os.path.join(svc.rundir, "bad"))
    for spec, message in (
            ("perf:thread:bogus", "Unknown perf counter 'perf:thread:bogus'"),
            ("perf:thread:raw:0110:foo", "Wrong perf raw counter 'perf:thread:raw:0110:foo'"),
            ("perf:thread:raw:r0110", "Wrong perf raw counter"),
            ("perf:cpu:cpu-cycles", "counts per CPU, in the kernel domain only"),
            ("ipp", "Unknown context 'ipp'")):
        bad = svc.cli("add-context", "-u", "-t", "vpid", "-t", spec, check_ok=False)
        check(bad.returncode == 1 and message in bad.stderr, f"add-context -t {spec}: {bad}")
    kernel = svc.cli("add-context", "-k", "-t", "perf:cpu:cpu-cycles", check_ok=False)
    check(kernel.returncode == 1 and "tracectl records no perf counter in the kernel domain"
          in kernel.stderr, f"add-context -k -t perf:cpu:cpu-cycles: {kernel}")
    many = [arg for i in range(17) for arg in ("-t", f"perf:thread:raw:r{i:x}:c{i}")]
    too_many = svc.cli("add-context", "-u", *many, check_ok=False)
    check(too_many.returncode == 1 and "a channel records at most 16" in too_many.stderr,
          f"17 perf counters: {too_many}")
    contexts = svc.session("bad")["channels"]
    check(not contexts or not contexts[0]["settings"]["contexts"],
          f"refused contexts were added: {contexts}")
    listed = svc.cli("add-context", "--list", "-u").stdout
    for line in ("    ip\n",
                 "    perf:thread:task-clock\n",
                 "    perf:thread:raw:rHEX:NAME\n",
                 "    vpid\n"):
        check(line in listed, f"add-context --list lacks {line!r}: {listed}")
    svc.cli("destroy", "bad")


def record(svc, out):
    """The session with the four contexts, the LTTng-UST application and
    tracectl's own example application in it."""
    svc.cli("create", "ctx", "--output", out)
    svc.cli("enable-event", "-u", "tc_lttng_test:*")
    svc.cli("enable-event", "-u", "example:*")
    added = svc.cli("add-context", "-u", *[arg for name in CONTEXTS for arg in ("-t", name)])
    check("UST context ip added to all channels of session ctx\n" in added.stdout and
          "UST context perf:thread:task-clock added to all channels of session ctx\n"
          in added.stdout,
          f"add-context said {added.stdout}")
    settings = svc.session("ctx")["channels"][0]["settings"]
    check(settings["contexts"] == CONTEXTS, f"contexts listed {settings['contexts']}")
    check(settings["lttng_ust_only_contexts"] == [], f"LTTng-UST's only: {settings}")
    text = svc.cli("list", "ctx").stdout
    check("Contexts: vpid, vtid, ip, perf:thread:task-clock" in text and
          "LTTng-UST applications only" not in text, f"list:\n{text}")
    svc.cli("start")
    late = svc.cli("add-context", "-u", "-t", "ip", check_ok=False)
    check(late.returncode == 1 and "before it is first started" in late.stderr,
          f"add-context after start: {late}")
    pid, ranges = run_app(svc.env(), svc.apps)
    svc.run_app("--count", "2")
    svc.cli("stop")
    svc.cli("destroy", "ctx")
    check_trace(out, pid, ranges, "tracectl")
    own = [e for e in read_streams(out)["events"] if e["name"].startswith("example:")]
    check(own, "no event of tracectl's own application")
    for event in own:
        names = [key for key in event if key.startswith("ctx_")]
        check(names == ["ctx_vpid", "ctx_vtid", "ctx_ip", "ctx_perf_thread_task_clock"],
              f"tracectl's own application recorded contexts {names}")
        check(event["ctx_perf_thread_task_clock"] > 0,
              f"tracectl's own application's task-clock is 0: {event}")


def check_hardware_counter(svc, top):
    """perf:thread:cpu-cycles where the machine cannot count cycles:
    refused at add-context, naming the reason, and nothing added (where
    lttng-sessiond takes it and each application refuses it)."""
    if hardware_cycles_open():
        log("this machine counts cycles: the refusal is not tested")
        return None
    svc.cli("create", "cycles", "--output", os.path.join(top, "cycles"))
    refused = svc.cli("add-context", "-u", "-t", "vtid", "-t", "perf:thread:cpu-cycles",
                      check_ok=False)
    check(refused.returncode == 1 and "Perf counter 'perf:thread:cpu-cycles' cannot be "
          "counted on this machine: the kernel has no such counter" in refused.stderr,
          f"add-context -t perf:thread:cpu-cycles: {refused}")
    channels = svc.session("cycles")["channels"]
    check(not channels or not channels[0]["settings"]["contexts"],
          f"the refused call added contexts: {channels}")
    svc.cli("destroy", "cycles")
    log("perf:thread:cpu-cycles: no hardware counter here, refused at add-context")
    return True


def check_saved_by_lttng(svc, saved):
    """The file lttng saved of the same session: loaded, listed with the
    same contexts, saved back with the same <perf> and <type>IP."""
    path = os.path.join(saved, "ref.lttng")
    theirs = open(path).read()
    svc.cli("load", "-i", path)
    settings = svc.session("ref")["channels"][0]["settings"]
    check(settings["contexts"] == CONTEXTS, f"contexts loaded {settings['contexts']}")
    ours_dir = os.path.join(svc.rundir, "saved-again")
    svc.cli("save", "ref", "-o", ours_dir)
    ours = open(os.path.join(ours_dir, "ref.lttng")).read()
    perf = re.compile(r"<perf>\s*<type>(\d+)</type>\s*<config>(\d+)</config>\s*"
                      r"<name>([^<]*)</name>\s*</perf>")
    check(perf.findall(ours) == perf.findall(theirs) == [("1", "1", "perf_thread_task_clock")],
          f"perf counters saved {perf.findall(ours)}, lttng's {perf.findall(theirs)}")
    check("<type>IP</type>" in ours, f"ip not saved:\n{ours}")
    valid = subprocess.run(["xmllint", "--noout", "--schema", LTTNG_XSD,
                            os.path.join(ours_dir, "ref.lttng")], capture_output=True, text=True)
    check(valid.returncode == 0, f"the saved file does not validate: {valid.stderr}")
    svc.cli("destroy", "ref")


def autoload_directory(top, saved):
    """A directory for tracectld --session-dir with lttng's file, the
    session renamed autoref and writing elsewhere."""
    directory = os.path.join(top, "autoload")
    os.mkdir(directory, 0o755)
    text = open(os.path.join(saved, "ref.lttng")).read()
    text = text.replace("<name>ref</name>", "<name>autoref</name>", 1)
    text = text.replace(os.path.join(top, "reference"), os.path.join(top, "autoloaded"))
    path = os.path.join(directory, "autoref.lttng")
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o644)
    return directory


def under_lttng_sessiond(top):
    """The same run under lttng-sessiond, with the same commands; and the
    cycles counter there, and the session saved."""
    out = os.path.join(top, "reference")
    saved = os.path.join(top, "lttng-saved")
    with lttng_sessiond(top) as env:
        lttng(env, "create", "ref", "--output", out)
        lttng(env, "enable-event", "-u", "tc_lttng_test:*")
        lttng(env, "add-context", "-u", *[arg for name in CONTEXTS for arg in ("-t", name)])
        lttng(env, "save", "-o", saved, "ref")
        lttng(env, "start")
        pid, ranges = run_app(env)
        lttng(env, "stop")
        lttng(env, "destroy")
        cycles_events = None
        if not hardware_cycles_open():
            cycles = os.path.join(top, "reference-cycles")
            lttng(env, "create", "cycles", "--output", cycles)
            lttng(env, "enable-event", "-u", "tc_lttng_test:*")
            lttng(env, "add-context", "-u", "-t", "vtid", "-t", "perf:thread:cpu-cycles")
            lttng(env, "start")
            run_app(env)
            lttng(env, "stop")
            lttng(env, "destroy")
            cycles_events = described_events(cycles)
    check_trace(out, pid, ranges, "lttng-sessiond")
    return out, saved, cycles_events


def test():
    require_tools()
    top = tempfile.mkdtemp(prefix="tctest-lttng-perf-")
    try:
        with Service(args=["--lttng-ust"]) as svc:
            require_served(svc)
            check_refusals(svc)
            out = os.path.join(top, "tracectl")
            record(svc, out)
            check_hardware_counter(svc, top)
            check(svc.alive(), "tracectld died")
        # lttng-sessiond on LTTng's global socket once tracectld left it.
        reference, saved, reference_cycles = under_lttng_sessiond(top)
        if reference_cycles is not None:
            check(not reference_cycles, "lttng-sessiond recorded events without cycles")
        ours, theirs = field_classes(out), field_classes(reference)
        check(ours == theirs, f"context field classes: tracectl's {ours}, lttng-sessiond's "
              f"{theirs}")
        log(f"context field classes as lttng-sessiond's: {ours}")
        # The saved session writes where the reference was.
        shutil.rmtree(reference)
        autoload = autoload_directory(top, saved)
        with Service(args=["--lttng-ust", "--session-dir", autoload]) as svc:
            wait_for(lambda: "autoref" in {s["name"] for s in svc.sessions()}, timeout=30,
                     what="the auto-loaded session")
            settings = svc.session("autoref")["channels"][0]["settings"]
            check(settings["contexts"] == CONTEXTS, f"contexts auto-loaded {settings['contexts']}")
            check_saved_by_lttng(svc, saved)
    finally:
        shutil.rmtree(top, ignore_errors=True)


run(test)
