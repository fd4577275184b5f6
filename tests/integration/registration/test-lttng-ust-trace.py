#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""An LTTng-UST application (Debian's liblttng-ust, not tracectl's
library) is traced end to end: `tracectl create --output DIR`,
`enable-event -u 'tc_lttng_test:*'` (or one event only), `start`
(and `stop` and `start` again; or another event enabled while it
records and the first disabled; or a log level and an exclusion; or
contexts), as root and as a user; the application, started after the
session (its sessions
applied before its constructor lets main() run) or before it, records
into the per-UID buffers its owner's consumer created; `stop`;
babeltrace2 reads DIR and finds the application's events with the values
it recorded: tick's count running 0, 1, 2, ... from main()'s first line,
message's text and ratio, failure's code every fiftieth tick, state's
enumeration every tenth with its labels; only enabled events are
there; every context LTTng-UST offers that tracectl's session model has
carries, on every event, the application's real pid, thread, name, ids
and namespaces (run with a group id other than its user id), and no
context is added once the session has started; a whole run of the
application, with every context, gives the same events and values as
under Debian's lttng-sessiond. Rules with filters (integers, a string
pattern, a float, $ctx.vpid, &&, ||, a bitwise and) record exactly the
events their filters keep, the same as lttng-sessiond's session with the
same rules; a rule whose filter LTTng-UST cannot evaluate (arithmetic) is
left out with a warning, not applied unfiltered."""

import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import BUILD, Service, check, log, require, run, wait_for
from lttnglib import require_served
from tracelib import read_streams, read_trace

LTTNG_APP = os.path.join(BUILD, "tests", "integration", "apps", "tracectl-lttng-app")

# Every context of tracectl's session model that LTTng-UST 2.13 offers,
# in the order tracectl adds them to an application's channel.
IDS = ["vuid", "veuid", "vsuid", "vgid", "vegid", "vsgid"]
NAMESPACES = ["cgroup", "ipc", "mnt", "net", "pid", "time", "user", "uts"]
CONTEXTS = ["vpid", "vtid", "procname", "pthread_id"] + IDS + [f"{ns}_ns" for ns in NAMESPACES]


def as_user(user, gid):
    """The command prefix running as user (root when None) with the real,
    effective and saved group gid, or the user's own group when None
    (then as tclib runs the user's commands)."""
    if gid is None:
        return [] if user is None else ["setpriv", f"--reuid={user.uid}",
                                        f"--regid={user.gid}", "--init-groups", "--"]
    return ["setpriv", f"--reuid={user.uid if user else 0}", f"--regid={gid}",
            "--clear-groups", "--"]


def start_app(svc, seconds, user=None, gid=None, env=None):
    proc = subprocess.Popen(as_user(user, gid) + [LTTNG_APP, str(seconds)],
                            env=env or svc.env(user), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=user.home if user else "/")
    if svc is not None:
        svc.apps.append(proc)
    line = proc.stdout.readline()
    check(line.startswith("ready"), f"the LTTng-UST application did not start: {line!r}")
    # Read while it runs: its own namespaces, not the test's.
    proc.namespaces = {ns: os.stat(f"/proc/{proc.pid}/ns/{ns}").st_ino for ns in NAMESPACES}
    return proc


def expected_contexts(app, uid, gid):
    """What every event of the single-threaded application app must carry
    (but pthread_id, which is only known to be set)."""
    expected = {"ctx_vpid": app.pid, "ctx_vtid": app.pid, "ctx_procname": "tracectl-lttng-"}
    expected.update({f"ctx_{name}": uid if "uid" in name else gid for name in IDS})
    expected.update({f"ctx_{ns}_ns": ino for ns, ino in app.namespaces.items()})
    return expected


def check_contexts(events, app, uid, gid):
    """Every event has every context, in order, with the application's
    real values."""
    expected = expected_contexts(app, uid, gid)
    check(events, "no event to check contexts on")
    for event in events:
        names = [key[len("ctx_"):] for key in event if key.startswith("ctx_")]
        check(names == CONTEXTS, f"{event['name']}: contexts {names}, not {CONTEXTS}")
        found = {key: event[key] for key in expected}
        check(found == expected, f"{event['name']}: contexts {found}, expected {expected}")
        check(event["ctx_pthread_id"] != 0, f"{event['name']}: pthread_id 0")


def lttng_stream_events(trace_dir):
    return [event for event in read_streams(trace_dir)["events"]
            if event["name"].startswith("tc_lttng_test:")]


def lttng_events(trace_dir):
    """The events of the LTTng-UST trace under trace_dir, by name."""
    events = [(name, fields) for name, fields in read_trace(trace_dir)
              if name.startswith("tc_lttng_test:")]
    by_name = {}
    for name, fields in events:
        by_name.setdefault(name, []).append(fields)
    return by_name


def check_values(by_name, from_first_line):
    ticks = [fields["count"] for fields in by_name.get("tc_lttng_test:tick", [])]
    check(len(ticks) >= 10, f"only {len(ticks)} tick events")
    first = ticks[0]
    check(ticks == list(range(first, first + len(ticks))),
          f"tick counts not consecutive: {ticks[:20]}...")
    if from_first_line:
        check(first == 0, f"the first tick recorded is {first}, not main()'s first")
    messages = by_name.get("tc_lttng_test:message", [])
    check(len(messages) == len(ticks), f"{len(messages)} messages for {len(ticks)} ticks")
    for i, fields in enumerate(messages):
        check(fields["text"] == "hello", f"message text {fields['text']!r}")
        check(abs(fields["ratio"] - (first + i) / 10.0) < 1e-9,
              f"message {i} ratio {fields['ratio']}, not {(first + i) / 10.0}")
    failures = [fields["code"] for fields in by_name.get("tc_lttng_test:failure", [])]
    expected = [i for i in range(first, first + len(ticks)) if i % 50 == 49]
    check(failures == expected, f"failure codes {failures}, not {expected}")
    # An enumeration: the integer, whose labels the metadata gives.
    phases = [fields["phase"] for fields in by_name.get("tc_lttng_test:state", [])]
    expected = [i // 10 % 4 for i in range(first, first + len(ticks)) if i % 10 == 0]
    check(phases == expected, f"state phases {phases}, not {expected}")


def trace_session(svc, out, pattern, app_first, user=None, restart=False, later=None,
                  options=(), contexts=()):
    svc.cli("create", "s", "--output", out, user=user)
    svc.cli("enable-event", "-u", pattern, *options, user=user)
    if contexts:
        svc.cli("add-context", "-u", *[arg for name in contexts for arg in ("-t", name)],
                user=user)
    app = start_app(svc, 8, user) if app_first else None
    svc.cli("start", user=user)
    if not app_first:
        app = start_app(svc, 8, user)
    if later:
        time.sleep(2.5)
        svc.cli("enable-event", "-u", later, user=user)
        # As LTTng: the applications of a per-UID trace share a stream
        # class, declared when the first of them registered its channel.
        refused = svc.cli("add-context", "-u", "-t", "vpid", user=user, check_ok=False)
        check(refused.returncode == 1 and "before it is first started" in refused.stderr,
              f"add-context accepted after the session started: {refused}")
        time.sleep(2)
        svc.cli("disable-event", "-u", pattern, user=user)
        time.sleep(1.5)
    elif restart:
        time.sleep(2.5)
        svc.cli("stop", user=user)
        time.sleep(1)
        svc.cli("start", user=user)
        time.sleep(2.5)
    else:
        time.sleep(6)
    svc.cli("stop", user=user)
    svc.cli("destroy", "s", user=user)
    app.wait(timeout=30)
    trace_session.app = app
    check(svc.alive(), "tracectld died")
    by_name = lttng_events(out)
    log(f"{pattern} (application {'before' if app_first else 'after'} start, "
        f"{user.name if user else 'root'}): "
        f"{ {name: len(values) for name, values in by_name.items()} }")
    return by_name


def start_app_held(seconds, env, prefix=()):
    """The application, once go() is called: first a shell that waits
    and then becomes the application, so its pid (for a $ctx.vpid
    filter) is known before a session is made for it."""
    proc = subprocess.Popen([*prefix, "sh", "-c", 'read go && exec "$0" "$1"', LTTNG_APP,
                             str(seconds)], env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def go():
        proc.stdin.write("go\n")
        proc.stdin.close()
        line = proc.stdout.readline()
        check(line.startswith("ready"), f"the LTTng-UST application did not start: {line!r}")
    proc.go = go
    return proc


FILTER_SECONDS = 6


def filter_rules(pid):
    """(pattern, filter, what it keeps of a run) for each rule of the
    filtered sessions; keeps(name, fields, i) with i the tick's count."""
    return [
        ("tc_lttng_test:tick", "count > 3 && count < 20 || (count & 0x3f) == 42",
         lambda f, i: 3 < i < 20 or i & 0x3f == 42),
        ("tc_lttng_test:message", 'text == "hel*" && ratio >= 2.5',
         lambda f, i: i >= 25),
        ("tc_lttng_test:state", f"$ctx.vpid == {pid} && phase >= 2",
         lambda f, i: i // 10 % 4 >= 2),
        # Both select failure: the first never keeps it (not this pid).
        ("tc_lttng_test:fail*", f"$ctx.vpid != {pid}", lambda f, i: False),
    ]


# LTTng has no arithmetic in filters: this rule is left out for LTTng-UST
# applications (and refused by lttng enable-event), never applied as if
# it had no filter.
ARITHMETIC_RULE = ("tc_lttng_test:failure", "code % 2 == 1")


def expected_filtered(pid):
    """Every event a FILTER_SECONDS run emits that the rules keep, in
    order, with its values (as lttng-app.c emits them)."""
    keep = {pattern.rstrip("*"): keeps for pattern, _, keeps in filter_rules(pid)}
    events = []

    def add(name, fields, i):
        if any(name.startswith(prefix) and keeps(fields, i) for prefix, keeps in keep.items()):
            events.append((name, fields))
    for i in range(FILTER_SECONDS * 10):
        add("tc_lttng_test:tick", {"count": i}, i)
        add("tc_lttng_test:message", {"text": "hello", "ratio": i / 10.0}, i)
        if i % 50 == 49:
            add("tc_lttng_test:failure", {"code": i}, i)
        if i % 10 == 0:
            add("tc_lttng_test:state", {"phase": i // 10 % 4}, i)
    return events


def filtered_events(out):
    """The events of the trace under out, as (name, fields) with the
    enumeration as its integer and ratios to 1e-9."""
    events = []
    for name, fields in read_trace(out):
        if name.startswith("tc_lttng_test:"):
            fields = {key: round(value, 9) if isinstance(value, float) else value
                      for key, value in fields.items()}
            events.append((name, fields))
    return events


def filtered_session(svc, out):
    """A whole run recorded through rules with filters."""
    app = start_app_held(FILTER_SECONDS, svc.env())
    svc.apps.append(app)
    svc.cli("create", "filtered", "--output", out)
    for pattern, text, _ in filter_rules(app.pid):
        svc.cli("enable-event", "-u", pattern, "--filter", text)
    svc.cli("enable-event", "-u", ARITHMETIC_RULE[0], "--filter", ARITHMETIC_RULE[1])
    offset = svc.log_offset()
    svc.cli("start")
    app.go()
    app.wait(timeout=30)
    svc.cli("stop")
    svc.cli("destroy", "filtered")
    with open(svc.log_path, "rb") as f:
        f.seek(offset)
        text = f.read().decode(errors="replace")
    warning = (f"Session 'filtered', LTTng-UST application pid={app.pid}: "
               f"'{ARITHMETIC_RULE[0]}' is not given to LTTng-UST applications: filter: '%' "
               "(arithmetic) has no LTTng-UST equivalent at column 6")
    check(warning in text, f"no warning {warning!r} in the service's log")
    return filtered_events(out), app.pid


def check_filtered(events, pid):
    expected = [(name, {key: round(value, 9) if isinstance(value, float) else value
                        for key, value in fields.items()})
                for name, fields in expected_filtered(pid)]
    counts = {}
    for name, _ in events:
        counts[name] = counts.get(name, 0) + 1
    log(f"filtered session: {counts}")
    check(events == expected,
          f"filtered events {events[:6]}... ({len(events)}), expected {expected[:6]}... "
          f"({len(expected)}); first difference at "
          f"{next((i for i, (a, b) in enumerate(zip(events, expected)) if a != b), None)}")


def whole_run(svc, out, gid):
    """A session recording a whole run of the application (3 s), with
    every context: every event it emits, in order, with its values; the
    events with their contexts, checked."""
    svc.cli("create", "whole", "--output", out)
    svc.cli("enable-event", "-u", "tc_lttng_test:*")
    svc.cli("add-context", "-u", *[arg for name in CONTEXTS for arg in ("-t", name)])
    svc.cli("start")
    app = start_app(svc, 3, gid=gid)
    app.wait(timeout=30)
    svc.cli("stop")
    svc.cli("destroy", "whole")
    events = lttng_stream_events(out)
    check_contexts(events, app, 0, gid)
    return [event for event in read_trace(out) if event[0].startswith("tc_lttng_test:")], events


def same_contexts(ours, theirs):
    """Both traces' contexts are the same but for those of the process
    (pid, thread): the same fields in the same order, the same ids and
    namespaces."""
    own = {"ctx_vpid", "ctx_vtid", "ctx_pthread_id"}
    strip = [[(key, value) for key, value in event.items() if key.startswith("ctx_") and
              key not in own] for event in ours]
    other = [[(key, value) for key, value in event.items() if key.startswith("ctx_") and
              key not in own] for event in theirs]
    check(strip == other, f"contexts of tracectl's trace {strip[:1]}, of lttng-sessiond's "
          f"{other[:1]}")


def reference_filtered(lttng, env, top):
    """The filtered session's run under lttng-sessiond: the same rules
    but the one lttng refuses (its refusal checked)."""
    out = os.path.join(top, "reference-filtered")
    app = start_app_held(FILTER_SECONDS, env)
    try:
        subprocess.run([lttng, "create", "filtered", "--output", out], env=env, check=True,
                       capture_output=True)
        for pattern, text, _ in filter_rules(app.pid):
            subprocess.run([lttng, "enable-event", "-u", pattern, "--filter", text], env=env,
                           check=True, capture_output=True)
        refused = subprocess.run([lttng, "enable-event", "-u", ARITHMETIC_RULE[0], "--filter",
                                  ARITHMETIC_RULE[1]], env=env, capture_output=True)
        check(refused.returncode != 0, "lttng took a filter with arithmetic")
        subprocess.run([lttng, "start"], env=env, check=True, capture_output=True)
        app.go()
        app.wait(timeout=30)
        for args in (["stop"], ["destroy"]):
            subprocess.run([lttng, *args], env=env, check=True, capture_output=True)
    finally:
        if app.poll() is None:
            app.kill()
    return filtered_events(out), app.pid


def under_lttng_sessiond(top, gid):
    """The same whole run, with every context, recorded by Debian's
    lttng-sessiond on the world's own /var/run/lttng, and the filtered
    session's run, or None without it; its contexts checked."""
    sessiond, lttng = shutil.which("lttng-sessiond"), shutil.which("lttng")
    if not sessiond or not lttng:
        log("lttng-sessiond is not installed: no comparison with it")
        return None
    env = dict(os.environ, LTTNG_HOME=os.path.join(top, "lttng-home"))
    os.makedirs(env["LTTNG_HOME"])
    out = os.path.join(top, "reference")
    proc = subprocess.Popen([sessiond, "--no-kernel"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: os.path.exists("/var/run/lttng/lttng-ust-sock-8"), 20,
                 "lttng-sessiond's global socket")
        for args in (["create", "ref", "--output", out],
                     ["enable-event", "-u", "tc_lttng_test:*"],
                     ["add-context", "-u", *[arg for name in CONTEXTS for arg in ("-t", name)]],
                     ["start"]):
            subprocess.run([lttng, *args], env=env, check=True, capture_output=True)
        app = start_app(None, 3, gid=gid, env=env)
        app.wait(timeout=30)
        for args in (["stop"], ["destroy"]):
            subprocess.run([lttng, *args], env=env, check=True, capture_output=True)
        filtered = reference_filtered(lttng, env, top)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    events = lttng_stream_events(out)
    check_contexts(events, app, 0, gid)
    whole = [event for event in read_trace(out) if event[0].startswith("tc_lttng_test:")]
    return whole, events, filtered


def test():
    require(os.path.exists(LTTNG_APP), f"{LTTNG_APP} is not built (no liblttng-ust)")
    require(shutil.which("babeltrace2"), "babeltrace2 is not installed")
    top = tempfile.mkdtemp(prefix="tctest-lttng-trace-")
    try:
        with Service(args=["--lttng-ust"]) as svc:
            require_served(svc)
            everything = trace_session(svc, os.path.join(top, "all"), "tc_lttng_test:*", False)
            check_values(everything, from_first_line=True)
            # Stopped and started again: two runs of ticks, a gap between.
            one = trace_session(svc, os.path.join(top, "one"), "tc_lttng_test:tick", True,
                                restart=True)
            check(set(one) == {"tc_lttng_test:tick"},
                  f"events recorded with only tick enabled: {sorted(one)}")
            ticks = [fields["count"] for fields in one["tc_lttng_test:tick"]]
            gaps = [b - a for a, b in zip(ticks, ticks[1:]) if b - a != 1]
            check(len(ticks) >= 20 and len(gaps) == 1 and gaps[0] > 1,
                  f"tick counts of two runs {ticks}")
            # An event enabled while the application records: from then on;
            # then the first one disabled: no more of it.
            late = trace_session(svc, os.path.join(top, "late"), "tc_lttng_test:tick", False,
                                 later="tc_lttng_test:message")
            ticks = [fields["count"] for fields in late["tc_lttng_test:tick"]]
            ratios = [round(fields["ratio"] * 10) for fields in
                      late.get("tc_lttng_test:message", [])]
            check(ticks == list(range(0, len(ticks))) and ratios and ratios[0] > 0 and
                  ratios == list(range(ratios[0], ratios[0] + len(ratios))) and
                  ratios[0] <= ticks[-1] < ratios[-1] - 5,
                  f"messages enabled late: {ratios} for ticks {ticks} disabled later")
            # Log levels and exclusions: WARNING or more severe is message
            # (WARNING) and failure (ERR), failure excluded.
            severe = trace_session(svc, os.path.join(top, "severe"), "tc_lttng_test:*", False,
                                   options=("--loglevel", "WARNING",
                                            "--exclude", "tc_lttng_test:failure"))
            check(set(severe) == {"tc_lttng_test:message"},
                  f"events at WARNING or above but failure: {sorted(severe)}")
            # A user's own session and application: the buffers are made
            # by the user's consumer, running as the user.
            # Every context, from a user whose gid is not its uid, so that
            # an id taken for another shows.
            alice = svc.add_user("tctest-alice", own_gid=True)
            check(alice.uid != alice.gid, f"uid {alice.uid} and gid {alice.gid} must differ")
            out = os.path.join(alice.home, "trace")
            mine = trace_session(svc, out, "tc_lttng_test:*", False, alice, contexts=CONTEXTS)
            check_values(mine, from_first_line=True)
            check_contexts(lttng_stream_events(out), trace_session.app, alice.uid, alice.gid)
            text = subprocess.run(["babeltrace2", out], capture_output=True, text=True,
                                  check=True).stdout.splitlines()
            lttng = [line for line in text if "tc_lttng_test:" in line]
            context = f'vpid = {trace_session.app.pid}, vtid = {trace_session.app.pid}, '
            context += 'procname = "tracectl-lttng-"'
            check(lttng and all(context in line for line in lttng),
                  f"events without the context {context!r}: {lttng[:2]}")
            labels = [line.split("phase = ")[1] for line in lttng if "phase = " in line]
            check(labels[:4] == ['( "even" : container = 0 ) }', '( "odd" : container = 1 ) }',
                                 '( "high" : container = 2 ) }', '( "high" : container = 3 ) }'],
                  f"enumeration labels {labels[:4]}")
            owner = os.stat(os.path.join(out, "lttng-ust", "uid", str(alice.uid), "64-bit",
                                         "metadata")).st_uid
            check(owner == alice.uid, f"the trace belongs to uid {owner}, not {alice.uid}")
            # Root's application with alice's group: root's uid is 0 too.
            gid = alice.gid
            whole, whole_contexts = whole_run(svc, os.path.join(top, "whole"), gid)
            filtered, pid = filtered_session(svc, os.path.join(top, "filtered"))
            check_filtered(filtered, pid)
        # The same runs under lttng-sessiond, once tracectld has left LTTng's
        # global socket: the same events, values and contexts.
        reference, reference_contexts, reference_filtered_run = (
            under_lttng_sessiond(top, gid) or (None, None, None))
        if reference is not None:
            log(f"lttng-sessiond: {len(reference)} events, tracectl: {len(whole)}")
            check(len(whole) == 63 and whole == reference,
                  f"tracectl recorded {whole[:5]}... ({len(whole)}), lttng-sessiond "
                  f"{reference[:5]}... ({len(reference)})")
            same_contexts(whole_contexts, reference_contexts)
            events, reference_pid = reference_filtered_run
            check_filtered(events, reference_pid)
            log(f"lttng-sessiond's filtered session: {len(events)} events, as tracectl's")
    finally:
        shutil.rmtree(top, ignore_errors=True)


run(test)
