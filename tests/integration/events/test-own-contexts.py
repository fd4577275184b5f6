#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The ids, namespace and ip contexts of tracectl's own applications:

- a test user's application, traced by the user's session with vuid,
  veuid, vsuid, vgid, vegid, vsgid, the eight namespaces and ip, records
  on every event its real ids (those of /proc/PID/status), its namespaces'
  inode numbers (os.stat of /proc/PID/ns/*) and the address its
  tracepoint's call returns to, inside the function that made the call
  (the executable's symbols, at its load address in /proc/PID/maps);
- babeltrace2 reads these fields as LTTng-UST 2.13 describes them
  (unsigned integers of 32 bits for the ids, 64 for the others, in base
  10) and, where tracectld serves LTTng-UST applications, as it reads the
  same contexts of an LTTng-UST application in the same session;
- a filter on them ($ctx.vuid, $ctx.vegid, $ctx.net_ns, $ctx.ip) keeps
  the events of the one call site it names;
- the session is saved and loaded with the same contexts;
- an application that changes its ids (setresgid(), setresuid()) and its
  UTS namespace (unshare()) between two events records the new ones on
  the second when libtracectl-ust-setid is preloaded or when it calls
  tracectl_ust_namespaces_changed() and tracectl_ust_ids_changed(), and
  the old ones when it does neither (the documented limit: the caches are
  refreshed only when told).
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import BUILD, SYSTEM_PYTHON, Service, check, log, run
from lttnglib import LTTNG_APP, start_lttng_app
from tracelib import babeltrace_text, read_streams, sanitizer_preload

CONTEXTS_APP = os.path.join(BUILD, "tests", "integration", "apps", "tracectl-contexts-app")
SETID_LIB = os.path.join(BUILD, "probes", "libtracectl-ust-setid.so")
IDS = ["vuid", "veuid", "vsuid", "vgid", "vegid", "vsgid"]
NAMESPACES = ["cgroup", "ipc", "mnt", "net", "pid", "time", "user", "uts"]
CONTEXTS = IDS + [f"{ns}_ns" for ns in NAMESPACES] + ["ip"]

# The context fields' classes, as babeltrace2 reads them from the metadata:
# {event name's provider: [[name, class, bits, display base], ...]}.
_FIELD_CLASSES = r"""
import bt2, json, sys
classes = {}
for msg in bt2.TraceCollectionMessageIterator(sys.argv[1]):
    if type(msg) is not bt2._EventMessageConst:
        continue
    prefix = msg.event.name.split(":")[0]
    if prefix in classes or msg.event.common_context_field is None:
        continue
    cls = msg.event.common_context_field.cls
    classes[prefix] = [[name, type(cls[name].field_class).__name__,
                        cls[name].field_class.field_value_range,
                        str(cls[name].field_class.preferred_display_base)] for name in cls]
print(json.dumps(classes))
"""


def field_classes(path):
    proc = subprocess.run([SYSTEM_PYTHON, "-c", _FIELD_CLASSES, path], capture_output=True,
                          text=True, timeout=300)
    check(proc.returncode == 0, f"babeltrace2 could not read {path}: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout)


def ids_of(pid):
    """{vuid: real uid, veuid: effective, vsuid: saved, and the gids} of
    /proc/PID/status."""
    values = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in ("Uid", "Gid"):
                real, effective, saved = (int(v) for v in rest.split()[:3])
                kind = "uid" if key == "Uid" else "gid"
                values.update({f"v{kind}": real, f"ve{kind}": effective, f"vs{kind}": saved})
    return values


def namespaces_of(pid):
    return {f"{ns}_ns": os.stat(f"/proc/{pid}/ns/{ns}").st_ino for ns in NAMESPACES}


def code_ranges(pid):
    """The executable mappings of CONTEXTS_APP in pid, and its load address
    (the start of its mapping at file offset 0)."""
    exe = os.path.realpath(CONTEXTS_APP)
    ranges, base = [], None
    with open(f"/proc/{pid}/maps") as maps:
        for entry in maps:
            parts = entry.split()
            if len(parts) < 6 or parts[5] != exe:
                continue
            start, end = (int(x, 16) for x in parts[0].split("-"))
            if int(parts[2], 16) == 0 and base is None:
                base = start
            if "x" in parts[1]:
                ranges.append((start, end))
    check(ranges and base is not None, f"no mapping of {exe} in /proc/{pid}/maps")
    return ranges, base


def function_ranges(base):
    """{name: (start, end)} of the application's two call sites' functions,
    at its load address."""
    out = subprocess.run(["nm", "-S", CONTEXTS_APP], capture_output=True, text=True,
                         check=True).stdout
    found = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[3] in ("mark_here", "mark_there"):
            start = base + int(parts[0], 16)
            found[parts[3]] = (start, start + int(parts[1], 16))
    check(len(found) == 2, f"mark_here and mark_there not in nm's output:\n{out}")
    return found


def start_paused(svc, steps, user=None, extra_env=None):
    """CONTEXTS_APP running steps, stopped at its "pause" step."""
    app = svc.app(*steps, user=user, extra_env=extra_env, program=CONTEXTS_APP)
    line = app.stdout.readline()
    check(line.strip() == "ready", f"the contexts application did not pause: {line!r} "
          f"{app.stderr.read() if app.poll() is not None else ''}")
    return app


def resume(app):
    app.send_signal(signal.SIGUSR1)
    out, err = app.communicate(timeout=60)
    check(app.returncode == 0 and err == "", f"the contexts application failed: {err!r}")


def check_every_context(events, truth, functions, ranges):
    check(len(events) == 2, f"two events expected: {events}")
    for event in events:
        names = [key[4:] for key in event if key.startswith("ctx_")]
        check(names == CONTEXTS, f"contexts {names}, not {CONTEXTS}")
        found = {name: event[f"ctx_{name}"] for name in CONTEXTS if name != "ip"}
        check(found == truth, f"step {event['step']}: recorded {found}, the process had {truth}")
        start, end = functions["mark_here" if event["step"] == 1 else "mark_there"]
        ip = event["ctx_ip"]
        check(start < ip < end, f"step {event['step']}: ip {ip:#x} outside its call site's "
              f"function {start:#x}..{end:#x}")
        check(any(a <= ip < b for a, b in ranges), f"ip {ip:#x} outside the code {ranges}")


def lttng_served(svc):
    """Whether tracectld serves LTTng-UST applications and LTTNG_APP is
    built."""
    status = svc.gdbus("--object-path", "/org/tracectl/Tracing1",
                       "--method", "org.freedesktop.DBus.Properties.Get",
                       "org.tracectl.Tracing1.Manager", "LttngUstApplications").stdout
    return "served on" in status and os.path.exists(LTTNG_APP)


def check_classes(out):
    """The own application's context classes are LTTng-UST 2.13's, and
    those of the LTTng-UST application (its provider tc_lttng_test) of the
    same session where there is one."""
    classes = field_classes(out)
    ours = {name: rest for name, *rest in classes["contexts"]}
    for name in CONTEXTS:
        expected = ["_UnsignedIntegerFieldClassConst", 32 if name in IDS else 64, "10"]
        check(ours.get(name) == expected, f"{name}: class {ours.get(name)}, not {expected}")
    if "tc_lttng_test" in classes:
        theirs = {name: rest for name, *rest in classes["tc_lttng_test"]}
        check({n: ours[n] for n in CONTEXTS} == {n: theirs.get(n) for n in CONTEXTS},
              f"own classes {ours}, LTTng-UST's {theirs}")
        log("the context classes are those of the LTTng-UST application's")


def start_sessions(svc, user, out, filtered):
    """The user's session with every new context (and the LTTng-UST
    application's ticks, where it runs), and one with vuid only whose
    filter is set once the call sites' addresses are known."""
    svc.cli("create", "every", "--output", out, user=user)
    svc.cli("add-context", "-u", *[arg for name in CONTEXTS for arg in ("-t", name)], user=user)
    svc.cli("enable-event", "-u", "contexts:mark", user=user)
    svc.cli("enable-event", "-u", "tc_lttng_test:tick", user=user)
    svc.cli("start", user=user)
    svc.cli("create", "filtered", "--output", filtered, user=user)
    svc.cli("add-context", "-u", "-t", "vuid", user=user)
    svc.cli("start", user=user)


def every_context(svc, user):
    """Every new context on a test user's application; a filter on them;
    the session saved and loaded."""
    out, filtered = os.path.join(user.home, "every"), os.path.join(user.home, "filtered")
    start_sessions(svc, user, out, filtered)
    lttng_app = start_lttng_app(svc, user, 1) if lttng_served(svc) else None
    app = start_paused(svc, ["pause", "here:1", "there:2"], user=user)
    truth = {**ids_of(app.pid), **namespaces_of(app.pid)}
    check(truth["vuid"] == user.uid and truth["vgid"] == user.gid != user.uid,
          f"the application runs as {truth}, not {user.uid}:{user.gid}")
    ranges, base = code_ranges(app.pid)
    functions = function_ranges(base)
    here = functions["mark_here"]
    svc.cli("enable-event", "-u", "contexts:mark", "-s", "filtered", "--filter",
            f"$ctx.vuid == {user.uid} && $ctx.vegid == {user.gid} && "
            f"$ctx.net_ns == {truth['net_ns']} && $ctx.ip > {here[0]} && $ctx.ip < {here[1]}",
            user=user)
    resume(app)
    if lttng_app is not None:
        check(lttng_app.wait(timeout=60) == 0, "the LTTng-UST application failed")
    svc.cli("stop", "every", user=user)
    svc.cli("stop", "filtered", user=user)
    check_every_context([e for e in read_streams(out)["events"]
                         if e["name"].startswith("contexts:")], truth, functions, ranges)
    kept = read_streams(filtered)["events"]
    check([e["step"] for e in kept] == [1], f"the filter kept {kept}, not step 1 only")
    text = babeltrace_text(out)
    check(f"vuid = {user.uid}" in text and f"net_ns = {truth['net_ns']}" in text and
          "ip = " in text, text[:800])
    log(f"every context as the process had them: {truth}; ip in mark_here and mark_there")
    return out


def check_saved(svc, user):
    """A session with every new context saved then loaded: the contexts
    named as lttng save names them, and the same once loaded. (lttng
    2.13's own session.xsd lists none of the ids and namespaces, though its
    save writes them: there is no schema to check against.)"""
    saved = os.path.join(user.home, "saved")
    svc.cli("create", "kept", "--output", os.path.join(user.home, "kept"), user=user)
    svc.cli("add-context", "-u", *[arg for name in CONTEXTS for arg in ("-t", name)], user=user)
    svc.cli("save", "kept", "-o", saved, user=user)
    path = os.path.join(saved, "kept.lttng")
    with open(path) as f:
        text = f.read()
    for name in CONTEXTS:
        check(f"<type>{name.upper()}</type>" in text, f"{name} not saved:\n{text}")
    svc.cli("destroy", "kept", user=user)
    shutil.rmtree(os.path.join(user.home, "kept"))  # its trace's files: load makes them anew
    svc.cli("load", "-i", path, user=user)
    contexts = svc.session("kept", user=user)["channels"][0]["settings"]["contexts"]
    check(contexts == CONTEXTS, f"contexts loaded {contexts}, not {CONTEXTS}")
    svc.cli("destroy", "-a", user=user)


def preload_setid():
    """LD_PRELOAD for the wrappers: in a sanitized build, AddressSanitizer's
    runtime must come first among the libraries loaded at start."""
    runtimes = sanitizer_preload(SETID_LIB)
    return f"{runtimes}:{SETID_LIB}" if runtimes else SETID_LIB


def changes(svc, user, out, how):
    """Root's application that records step 1, leaves for a UTS namespace
    of its own and drops to user's ids, then records step 2; how: the
    preloaded wrappers, its own calls of tracectl_ust_namespaces_changed()
    and tracectl_ust_ids_changed(), or neither.
    Returns the two events and the process's ids and namespaces at the end."""
    tell = how == "tell"
    steps = ["here:1", "unshare-uts", *(["tell-namespaces"] if tell else []),
             f"drop:{user.uid}:{user.gid}", *(["tell-ids"] if tell else [])]
    env = {"LD_PRELOAD": preload_setid()} if how == "preload" else None
    svc.cli("create", how, "--output", out)
    svc.cli("add-context", "-u", "-t", "vpid", *[a for n in IDS for a in ("-t", n)],
            "-t", "uts_ns")
    svc.cli("enable-event", "-u", "contexts:mark")
    svc.cli("start")
    app = start_paused(svc, steps + ["here:2", "pause"], extra_env=env)
    after = {**ids_of(app.pid), "uts_ns": namespaces_of(app.pid)["uts_ns"]}
    resume(app)
    svc.cli("stop")
    svc.cli("destroy")
    events = [e for e in read_streams(out)["events"] if e["ctx_vpid"] == app.pid]
    check([e["step"] for e in events] == [1, 2], f"{how}: steps {events}")
    return events, after


def follow_changes(svc, user, top):
    before = {**{name: 0 for name in IDS}, "uts_ns": os.stat("/proc/self/ns/uts").st_ino}
    for how in ("preload", "tell", "neither"):
        events, after = changes(svc, user, os.path.join(top, how), how)
        check(after["vuid"] == user.uid and after["vsgid"] == user.gid and
              after["uts_ns"] != before["uts_ns"], f"{how}: the application did not change")
        recorded = [{name: e[f"ctx_{name}"] for name in before} for e in events]
        check(recorded[0] == before, f"{how}: step 1 recorded {recorded[0]}, not {before}")
        expected = before if how == "neither" else after
        check(recorded[1] == expected, f"{how}: step 2 recorded {recorded[1]}, not {expected}")
        log(f"{how}: step 2 recorded {recorded[1]}")


def test():
    top = tempfile.mkdtemp(prefix="tctest-own-contexts-")
    os.chmod(top, 0o755)
    with Service(args=["--lttng-ust"]) as svc:
        user = svc.add_user("tctest-ownctx", own_gid=True)
        out = every_context(svc, user)
        check_classes(out)
        check_saved(svc, user)
        follow_changes(svc, user, top)
        check(svc.alive(), "tracectld died")


run(test)
