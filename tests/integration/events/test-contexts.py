#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""tracectl add-context: every event of the channel carries the vpid,
vtid, procname and pthread_id of the thread that emitted it, and the
process's user and group ids and the thread's namespaces where asked,
babeltrace2 shows them without a warning, and contexts can only be added
before the first start, with clear errors for unknown ones."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import STRESS_APP, Service, check, run
from tracelib import babeltrace_text, read_streams


def test():
    with Service() as svc:
        out = os.path.join(svc.rundir, "contexts")
        svc.cli("create", "ctx", "--output", out)
        bad = svc.cli("add-context", "-u", "-t", "vpid", "-t", "colour", check_ok=False)
        check(bad.returncode == 1 and "Unknown context 'colour'" in bad.stderr,
              f"bad context: {bad}")
        usage = svc.cli("add-context", "-u", check_ok=False)
        check(usage.returncode == 2, f"add-context without -t: {usage}")
        svc.cli("add-context", "-u", "-t", "vpid", "-t", "vtid")
        svc.cli("add-context", "-u", "-t", "procname", "-t", "pthread_id")
        svc.cli("enable-event", "-u", "example:*")
        svc.cli("enable-event", "-u", "stress:*")
        contexts = svc.session("ctx")["channels"][0]["settings"]["contexts"]
        check(contexts == ["vpid", "vtid", "procname", "pthread_id"], f"contexts: {contexts}")
        svc.cli("start")
        late = svc.cli("add-context", "-u", "-t", "vpid", check_ok=False)
        check(late.returncode == 1 and "before it is first started" in late.stderr,
              f"add-context after start: {late}")
        app = svc.app("--count", "5")
        app.communicate(timeout=60)
        check(app.returncode == 0, "example app failed")
        stress = svc.app("--threads", "2", "--count", "20", "--signals", "0",
                         program=STRESS_APP)
        stress.communicate(timeout=60)
        check(stress.returncode == 0, "stress app failed")
        svc.cli("stop")

        events = read_streams(out)["events"]
        example = [e for e in events if e["name"].startswith("example:")]
        threads = [e for e in events if e["name"].startswith("stress:")]
        check(len(example) == 7 and len(threads) == 40,
              f"expected 7 + 40 events, got {len(example)} + {len(threads)}")
        for group, proc, comm in ((example, app, "tracectl-exampl"),
                                  (threads, stress, "tracectl-stress")):
            for e in group:
                check(e["ctx_vpid"] == proc.pid, f"vpid {e['ctx_vpid']} != {proc.pid}")
                check(e["ctx_procname"] == comm, f"procname {e['ctx_procname']!r}")
                check(e["ctx_pthread_id"] != 0, "pthread_id is 0")
        check({e["ctx_vtid"] for e in example} == {app.pid}, "main thread's vtid is not its pid")
        by_thread = {}
        for e in threads:
            by_thread.setdefault(e["thread"], set()).add(e["ctx_vtid"])
        check(len(by_thread) == 2 and all(len(v) == 1 for v in by_thread.values()) and
              len(set.union(*by_thread.values()) - {stress.pid}) == 2,
              f"one vtid per worker thread expected: {by_thread}")
        text = babeltrace_text(out)
        check("vtid = " in text and 'procname = "tracectl-exampl"' in text, text[:500])
        svc.cli("destroy", "ctx")

        check_ids_and_namespaces(svc)


IDS = ["vuid", "veuid", "vsuid", "vgid", "vegid", "vsgid"]
NAMESPACES = ["cgroup", "ipc", "mnt", "net", "pid", "time", "user", "uts"]


def check_ids_and_namespaces(svc):
    """A user's application, traced by the user's session with every id
    and namespace context: its ids are the user's, its namespaces the
    test's own (it inherits them)."""
    user = svc.add_user("tctest-ctxids", own_gid=True)
    check(user.uid != user.gid, f"uid {user.uid} and gid {user.gid} must differ")
    out = os.path.join(user.home, "ids")
    names = IDS + [f"{ns}_ns" for ns in NAMESPACES]
    svc.cli("create", "ids", "--output", out, user=user)
    svc.cli("add-context", "-u", *[arg for name in names for arg in ("-t", name)], user=user)
    svc.cli("enable-event", "-u", "example:startup", user=user)
    contexts = svc.session("ids", user=user)["channels"][0]["settings"]["contexts"]
    check(contexts == names, f"contexts: {contexts}")
    svc.cli("start", user=user)
    svc.run_app("--count", "1", user=user)
    svc.cli("stop", user=user)
    events = read_streams(out)["events"]
    check(len(events) == 1, f"one example:startup expected: {events}")
    event = events[0]
    expected = {f"ctx_{name}": user.uid if "uid" in name else user.gid for name in IDS}
    expected.update({f"ctx_{ns}_ns": os.stat(f"/proc/self/ns/{ns}").st_ino
                     for ns in NAMESPACES})
    found = {key: event.get(key) for key in expected}
    check(found == expected, f"contexts recorded {found}, expected {expected}")
    text = babeltrace_text(out)
    check(f"vuid = {user.uid}" in text and "uts_ns = " in text, text[:800])


run(test)
