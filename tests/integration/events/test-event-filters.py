#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Event selection: filters, log levels and exclusions. One session per
case records the same run of the example application (K all_types events,
i = 0..K-1, between startup and done); each trace must hold exactly the
events its case names, checked event by event. Bad filters and unknown
options are refused with InvalidArgument before anything changes."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, check, log, run
from tracelib import read_trace

K = 50
DENIED = "org.tracectl.Tracing1.Error.PermissionDenied"
ALL = [f"all_types:{i}" for i in range(K)]


def types(*indices):
    return [f"all_types:{i}" for i in indices]


# (enable-event arguments after -u, the events the trace keeps). Events
# are named "startup", "done" and "all_types:<seq>".
CASES = [
    (["example:all_types", "--filter", "seq > 40"], types(*range(41, K))),
    (["example:*", "--filter", 'str == "event-1*"'], types(1, *range(10, 20))),
    (["example:all_types", "--filter", "seq % 10 == 3 || dbl == 2.5"],
     types(3, 5, 13, 23, 33, 43)),
    (["example:all_types", "--filter", "!(seq < 45) && u8 != 47"], types(45, 46, 48, 49)),
    (["example:all_types", "--filter", "(s16 & 1) == 0 && seq >= 48 && s8 < 0"], types(48, 49)),
    (["example:all_types", "--filter", "s32 == -70000 * 7 || u16 == 3 * 9"], types(7, 9)),
    (["example:all_types", "--filter", 'str != "event-*"'], []),
    (["example:*", "--filter", '$ctx.procname == "tracectl-ex*"'], ["startup", *ALL, "done"]),
    (["example:*", "--filter", "$ctx.vpid == 1"], []),
    # Events without the field never match: only done has count.
    (["example:*", "--filter", "count == 50"], ["done"]),
    (["example:*", "--loglevel", "TRACE_INFO"], ["startup"]),
    (["example:*", "--loglevel", "TRACE_DEBUG"], ["startup", *ALL, "done"]),
    (["example:*", "--loglevel-only", "TRACE_DEBUG_LINE"], [*ALL, "done"]),
    (["example:*", "--loglevel", "TRACE_WARNING"], []),
    (["example:*", "--exclude", "example:all_types"], ["startup", "done"]),
    (["example:*", "--exclude", "*:st*,*:do*"], ALL),
    (["example:*", "--exclude", "example:done", "--filter", "seq < 2"], types(0, 1)),
    # u64 is UINT64_MAX - seq: literals up to 2^64 - 1, as LTTng takes them.
    (["example:all_types", "--filter", "u64 != 18446744073709551615"], types(*range(1, K))),
    (["example:all_types", "--filter", "u64 == 0xfffffffffffffffe"], types(1)),
]

# Several enablings of one event in one session: any of them records.
MULTI = [
    ([["example:all_types", "--filter", "seq < 3"], ["example:all_types", "--filter", "seq > 47"]],
     types(0, 1, 2, 48, 49)),
    ([["example:all_types", "--filter", "seq < 3"], ["example:all_types"]], ALL),
]


def event_names(out):
    names = []
    for name, fields in read_trace(out):
        check(name != "<discarded>", f"{out}: events were discarded")
        short = name.split(":", 1)[1]
        names.append(f"{short}:{fields['seq']}" if short == "all_types" else short)
    return sorted(names)


def check_refusals(svc):
    svc.cli("create", "refusals", "--output", os.path.join(svc.rundir, "refusals"))
    result = svc.cli("enable-event", "-u", "example:*", "--filter", "seq > 1 && (seq < )",
                     check_ok=False)
    check(result.returncode != 0, "a bad filter was accepted")
    check("filter: unexpected ')' at column 19" in result.stderr,
          f"no column in the refusal: {result.stderr!r}")
    result = svc.cli("enable-event", "-u", "example:*", "--filter", 'str < "a"', check_ok=False)
    check("does not order strings" in result.stderr, f"string order accepted: {result}")
    result = svc.cli("enable-event", "-u", "example:*", "--loglevel", "TRACE_LOUD",
                     check_ok=False)
    check(result.returncode != 0, "an unknown log level was accepted")
    path = svc.gdbus("--object-path", "/org/tracectl/Tracing1", "--method",
                     "org.tracectl.Tracing1.Manager.FindSession", "refusals")
    object_path = path.stdout.split("'")[1] if path.returncode == 0 else None
    if object_path:
        result = svc.gdbus("--object-path", object_path, "--method",
                           "org.tracectl.Tracing1.Session.EnableEventWithOptions", "ust", "",
                           "example:*", "{'colour': <'red'>}")
        check(result.returncode != 0 and "InvalidArgument" in result.stderr
              and "colour" in result.stderr, f"an unknown option was accepted: {result}")
        result = svc.gdbus("--object-path", object_path, "--method",
                           "org.tracectl.Tracing1.Session.EnableEventWithOptions", "ust", "",
                           "example:*", "{'loglevel': <'3'>}")
        check(result.returncode != 0 and "InvalidArgument" in result.stderr,
              f"a string log level was accepted: {result}")
        # Another user may not change root's session, options or not.
        bob = svc.add_user("tctest-fbob")
        result = svc.gdbus("--object-path", object_path, "--method",
                           "org.tracectl.Tracing1.Session.EnableEventWithOptions", "ust", "",
                           "example:*", "{'filter': <'seq > 1'>}", user=bob)
        check(result.returncode != 0 and DENIED in result.stderr,
              f"another user's EnableEventWithOptions: {result}")
    else:
        log(f"GetSession unavailable ({path}); the D-Bus refusals are not checked")
    listed = svc.cli("list", "refusals").stdout
    check("example:*" not in listed, f"a refused enabling was kept: {listed}")
    svc.cli("destroy", "refusals")


def check_rule_limit(svc):
    """A channel takes at most 1024 enablings (each weighs on every sync)."""
    svc.cli("create", "many", "--output", os.path.join(svc.rundir, "many"))
    svc.cli("enable-event", "-u", ",".join(f"p{i}:e" for i in range(1024)), timeout=300)
    result = svc.cli("enable-event", "-u", "example:*", "--filter", "seq > 1", check_ok=False)
    check(result.returncode != 0 and "1024 event enablings" in result.stderr,
          f"a 1025th enabling was accepted: {result}")
    svc.cli("destroy", "many")


def check_listing(svc):
    """list NAME shows each enabling's log level, exclusions and filter, as
    text (whole and per domain) and as JSON."""
    text = svc.cli("list", "case16").stdout
    check("example:* [exclusions: example:done] [filter: seq < 2]" in text,
          f"exclusions and filter not listed: {text}")
    text = svc.cli("list", "case16", "-u").stdout
    check("[filter: seq < 2]" in text, f"list -u leaves the filter out: {text}")
    text = svc.cli("list", "case10").stdout
    check("example:* (loglevel <= TRACE_INFO)" in text, f"log level not listed: {text}")
    text = svc.cli("list", "case12").stdout
    check("(loglevel == TRACE_DEBUG_LINE)" in text, f"exact log level not listed: {text}")
    channel = svc.cli_json("list", "case16")["channels"][0]
    check(channel["enablings"] == [{"pattern": "example:*", "loglevel": None,
                                    "loglevel_name": None, "loglevel_only": False,
                                    "exclusions": ["example:done"], "filter": "seq < 2"}],
          f"JSON enablings: {channel}")
    enabling = svc.cli_json("list", "case12")["channels"][0]["enablings"][0]
    check(enabling["loglevel"] == 13 and enabling["loglevel_only"]
          and enabling["loglevel_name"] == "TRACE_DEBUG_LINE", f"JSON log level: {enabling}")
    enablings = svc.cli_json("list", "multi0")["channels"][0]["enablings"]
    check([e["filter"] for e in enablings] == ["seq < 3", "seq > 47"],
          f"JSON enablings of one event: {enablings}")


def test():
    with Service() as svc:
        check_refusals(svc)
        check_rule_limit(svc)
        sessions = []
        for n, (args, expected) in enumerate(CASES):
            out = os.path.join(svc.rundir, f"case{n}")
            svc.cli("create", f"case{n}", "--output", out)
            svc.cli("enable-event", "-s", f"case{n}", "-u", *args)
            sessions.append((f"case{n}", out, " ".join(args), expected))
        for n, (enablings, expected) in enumerate(MULTI):
            out = os.path.join(svc.rundir, f"multi{n}")
            svc.cli("create", f"multi{n}", "--output", out)
            for args in enablings:
                svc.cli("enable-event", "-s", f"multi{n}", "-u", *args)
            sessions.append((f"multi{n}", out, str(enablings), expected))
        check_listing(svc)
        for name, _, _, _ in sessions:
            svc.cli("start", name)
        svc.run_app("--count", str(K))
        for name, _, _, _ in sessions:
            svc.cli("stop", name)
        check(svc.alive(), "tracectld died")
        for name, out, what, expected in sessions:
            got = event_names(out) if os.path.isdir(out) else []
            check(got == sorted(expected),
                  f"{name} ({what}): kept {got}, expected {sorted(expected)}")
            log(f"{name} ({what}): {len(got)} events as expected")
            svc.cli("destroy", name)


run(test)
