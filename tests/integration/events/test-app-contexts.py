#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Application contexts ($app.PROVIDER:NAME) of tracectl's own
applications:

- a channel records example:request_id, which the example application
  registers (--app-context TYPE) with a callback: each all_types event
  holds the callback's value (i - 5 as int64, i * 1000 as uint64,
  i + 0.5 as double), read value by value by babeltrace2 from the CTF
  variant the metadata declares, and startup and done, where the
  callback has none, hold the tag none;
- two applications of one user that declare other types for the same
  name write into the same per-uid buffers, each event with its own
  application's type and value;
- an application without the context, and a context no application
  registers, record none;
- `add-context --list` and `list -u` show a running application's
  registered context, `list SESSION` the channel's;
- malformed names, a ninth context in a channel and two that would share
  a CTF field name are refused with the reason;
- the session is saved as lttng save writes application contexts and
  loaded with the same contexts.
"""

import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import SYSTEM_PYTHON, Service, check, run
from tracelib import babeltrace_text

CONTEXT = "$app.example:request_id"
FIELD = "app_example_request_id"
UNREGISTERED = "$app.nobody:here"
# The tag's labels and values (tracectl-abi.h), as babeltrace2 shows them.
TAGS = {"_none": 0, "_int64": 1, "_uint64": 2, "_double": 3}

# Each event's name, vpid, and the (tag, value) of each application
# context, as babeltrace2's Python bindings read the variants.
_READ = r"""
import bt2, json, sys
events = []
for msg in bt2.TraceCollectionMessageIterator(sys.argv[1]):
    if type(msg) is not bt2._EventMessageConst:
        continue
    ctx = msg.event.common_context_field
    entry = {"name": msg.event.name, "vpid": int(ctx["vpid"])}
    for name in sys.argv[2:]:
        variant = ctx[name]
        tag = variant.cls.option_at_index(variant.selected_option_index).name
        value = variant.selected_option
        entry[name] = [tag, float(value) if tag == "double" else int(value)]
    events.append(entry)
print(json.dumps(events))
"""


def read_events(path, fields):
    proc = subprocess.run([SYSTEM_PYTHON, "-c", _READ, path, *fields], capture_output=True,
                          text=True, timeout=300)
    check(proc.returncode == 0, f"babeltrace2 could not read {path}: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout)


def expected_value(kind, event_name, i):
    if kind is None or event_name != "example:all_types":
        return ["none", 0]
    if kind == "int64":
        return ["int64", i - 5]
    if kind == "uint64":
        return ["uint64", i * 1000]
    return ["double", i + 0.5]


def check_refusals(svc):
    for name, why in (("$app.example", "Wrong application context '$app.example'"),
                      ("$app.a-b:c", "Wrong application context"),
                      ("$app.a:b:c", "Wrong application context")):
        bad = svc.cli("add-context", "-u", "-t", name, check_ok=False)
        check(bad.returncode == 1 and why in bad.stderr, f"add-context {name}: {bad}")
    nine = [arg for i in range(9) for arg in ("-t", f"$app.p:c{i}")]
    bad = svc.cli("add-context", "-u", *nine, check_ok=False)
    check(bad.returncode == 1 and "More than 8 application contexts" in bad.stderr,
          f"nine application contexts: {bad}")
    bad = svc.cli("add-context", "-u", "-t", "$app.a_b:c", "-t", "$app.a:b_c", check_ok=False)
    check(bad.returncode == 1 and "would be recorded as '_app_a_b_c'" in bad.stderr,
          f"two contexts of one field name: {bad}")


def check_listings(svc):
    """A running application's context in add-context --list and list -u."""
    app = svc.app("--app-context", "uint64", "--pause", "--count", "0", wait_ready=True)
    try:
        listed = svc.cli("add-context", "--list", "-u").stdout.split()
        check(CONTEXT in listed, f"add-context --list: {listed}")
        apps = [a for a in svc.applications() if a["pid"] == app.pid]
        check(len(apps) == 1 and apps[0].get("app_contexts") ==
              [{"name": CONTEXT, "type": "uint64"}], f"list -u: {apps}")
        text = svc.cli("list", "-u").stdout
        check(f"{CONTEXT} (uint64)" in text, f"list -u shows no context: {text}")
    finally:
        app.kill()
        app.communicate(timeout=60)


def check_save_load(svc, out):
    """The session saved as lttng save writes an application context
    (<app> with provider_name and ctx_name), and loaded with the same
    contexts."""
    saved = os.path.join(svc.rundir, "saved")
    svc.cli("save", "appctx", "-o", saved)
    with open(os.path.join(saved, "appctx.lttng")) as f:
        text = f.read()
    check("<provider_name>example</provider_name>" in text and
          "<ctx_name>request_id</ctx_name>" in text, f"saved: {text}")
    svc.cli("destroy", "appctx")
    shutil.rmtree(out)
    svc.cli("load", "-i", os.path.join(saved, "appctx.lttng"))
    contexts = svc.session("appctx")["channels"][0]["settings"]["contexts"]
    check(contexts == ["vpid", CONTEXT, UNREGISTERED], f"contexts loaded: {contexts}")


def test():
    with Service() as svc:
        out = os.path.join(svc.rundir, "app-contexts")
        svc.cli("create", "appctx", "--output", out)
        check_refusals(svc)
        svc.cli("add-context", "-u", "-t", "vpid", "-t", CONTEXT, "-t", UNREGISTERED)
        svc.cli("enable-event", "-u", "example:*")
        contexts = svc.session("appctx")["channels"][0]["settings"]["contexts"]
        check(contexts == ["vpid", CONTEXT, UNREGISTERED], f"contexts: {contexts}")
        check_listings(svc)
        svc.cli("start")
        runs = {}
        for kind, count in (("int64", 7), ("double", 4), (None, 3), ("uint64", 3)):
            app = svc.app("--count", str(count), *(("--app-context", kind) if kind else ()))
            out_text, err = app.communicate(timeout=60)
            check(app.returncode == 0 and err == "", f"example app failed: {err}")
            runs[app.pid] = (kind, count)
        svc.cli("stop")

        events = read_events(out, [FIELD, "app_nobody_here"])
        for pid, (kind, count) in runs.items():
            mine = [e for e in events if e["vpid"] == pid]
            check(len(mine) == count + 2,
                  f"application {pid} ({kind}): {len(mine)} events, expected {count + 2}")
            all_types = 0
            for e in mine:
                i = all_types
                if e["name"] == "example:all_types":
                    all_types += 1
                want = expected_value(kind, e["name"], i)
                check(e[FIELD] == want, f"application {pid} ({kind}) {e['name']} #{i}: "
                      f"{FIELD} = {e[FIELD]}, expected {want}")
                check(e["app_nobody_here"] == ["none", 0],
                      f"an unregistered context holds {e['app_nobody_here']}")
        text = babeltrace_text(out)
        for tag, value in (("_int64", "-5"), ("_double", "0.5"), ("_uint64", "2000"),
                           ("_none", "0")):
            shown = (f'{FIELD}_tag = ( "{tag}" : container = ' f"{TAGS[tag]} ), "
                     f"{FIELD} = {{ {value} }}")
            check(shown in text, f"babeltrace2's text has no {shown!r}: {text[:1500]}")
        check_save_load(svc, out)
        svc.cli("destroy", "appctx")


run(test)
