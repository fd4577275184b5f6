#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Spans recorded as tracectl_span events hold exactly what the programs did:
one sampled request's tree (trace id, parents, kinds, names, endpoints,
attributes of each type, an annotation, an error, a remote endpoint, the
ends in order); with TRACECTL_SPAN_SAMPLE=1/10, 10,000 roots give 1,000
sampled within five binomial standard deviations, each with its child; a
root the application chose not to sample records nothing, children
included; a span continuing a remote context's tracestate, and its local
child, each record it just after their start, and no other span does; a
link records the linked context's ids, sampled flag and tracestate ("" when
it has none) under the linking span's id."""

import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import BUILD, Service, check, log, run
from tracelib import read_trace

SPAN_APP = os.path.join(BUILD, "tests", "integration", "apps", "tracectl-span-app")
ROOTS = 10000
REMOTE_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
REMOTE_PARENT = 0x00f067aa0ba902b7
TRACEPARENT = f"00-{REMOTE_TRACE}-{REMOTE_PARENT:016x}-01"
TRACESTATE = "hv=1,other=x"
LINK_TRACE = 0x0af7651916cd43dd8448eb211c80319c
LINK_SPAN = 0xb7ad6b7169203331
LINK_TRACEPARENT = f"00-{LINK_TRACE:032x}-{LINK_SPAN:016x}-01"
LINK_TRACESTATE = "lk=2"


def printed_spans(out):
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def starts_by_id(events):
    starts = {}
    for name, fields in events:
        if name == "tracectl_span:start":
            check(fields["span_id"] not in starts, f"span {fields['span_id']} started twice")
            starts[fields["span_id"]] = fields
    return starts


def trace_hex(fields):
    return f"{fields['trace_id_hi']:016x}{fields['trace_id_lo']:016x}"


def check_started(spans, starts):
    for span in spans:
        start = starts.get(span["span"])
        check(start is not None, f"span {span} was not recorded")
        check(trace_hex(start) == span["trace"], f"{span}: trace id {trace_hex(start)}")
        check(start["parent_span_id"] == span["parent"], f"{span}: parent {start}")
        check(start["kind"] == span["kind"] and start["name"] == span["name"],
              f"{span}: kind or name {start}")
        check(start["flags"] == 1, f"{span}: flags {start['flags']}")


def check_tree(spans, events):
    root, work, call = (s["span"] for s in spans)
    mine = [(name, fields) for name, fields in events
            if fields.get("span_id") in (root, work, call)]
    expected = [
        ("tracectl_span:start", root),
        ("tracectl_span:attr_int", root), ("tracectl_span:attr_double", root),
        ("tracectl_span:attr_string", root), ("tracectl_span:attr_bool", root),
        ("tracectl_span:annotation", root),
        ("tracectl_span:start", work), ("tracectl_span:error", work),
        ("tracectl_span:start", call), ("tracectl_span:remote", call),
        ("tracectl_span:end", call), ("tracectl_span:end", work), ("tracectl_span:end", root),
    ]
    check([(n, f["span_id"]) for n, f in mine] == expected,
          f"tree events: {[(n, f['span_id']) for n, f in mine]}")
    fields = [f for _, f in mine]
    check(fields[0]["service"] == "span-app" and fields[0]["address"] == "127.0.0.1:7000",
          f"endpoint: {fields[0]}")
    check((fields[1]["key"], fields[1]["value"]) == ("http.status_code", -200), f"{fields[1]}")
    check((fields[2]["key"], fields[2]["value"]) == ("load", 0.75), f"{fields[2]}")
    check((fields[3]["key"], fields[3]["value"]) == ("http.route", "/items"), f"{fields[3]}")
    check((fields[4]["key"], fields[4]["value"]) == ("cache.hit", 1), f"{fields[4]}")
    check(fields[5]["message"] == "request parsed", f"{fields[5]}")
    check(fields[7]["message"] == "division by zero", f"{fields[7]}")
    check((fields[9]["service"], fields[9]["address"]) == ("back-end", "10.0.0.2:9000"),
          f"{fields[9]}")
    check([f["status"] for f in fields[10:]] == [0, 2, 0], f"end statuses: {fields[10:]}")


def check_remote(spans, events):
    server, work = spans
    check(server["trace"] == REMOTE_TRACE and server["parent"] == REMOTE_PARENT,
          f"remote server span {server}")
    ids = (server["span"], work["span"])
    mine = [(name, fields) for name, fields in events if fields.get("span_id") in ids]
    expected = [
        ("tracectl_span:start", ids[0]), ("tracectl_span:tracestate", ids[0]),
        ("tracectl_span:link", ids[0]),
        ("tracectl_span:start", ids[1]), ("tracectl_span:tracestate", ids[1]),
        ("tracectl_span:link", ids[1]),
        ("tracectl_span:end", ids[1]), ("tracectl_span:end", ids[0]),
    ]
    check([(n, f["span_id"]) for n, f in mine] == expected,
          f"remote events: {[(n, f['span_id']) for n, f in mine]}")
    states = [f["tracestate"] for n, f in mine if n == "tracectl_span:tracestate"]
    check(states == [TRACESTATE, TRACESTATE], f"tracestates {states}")
    others = [f for n, f in events if n == "tracectl_span:tracestate" and f["span_id"] not in ids]
    check(not others, f"tracestate of a span that continues none: {others[:3]}")
    links = [(f["trace_id_hi"] << 64 | f["trace_id_lo"], f["linked_span_id"], f["flags"],
              f["tracestate"]) for n, f in mine if n == "tracectl_span:link"]
    check(links == [(LINK_TRACE, LINK_SPAN, 1, LINK_TRACESTATE), (LINK_TRACE, LINK_SPAN, 1, "")],
          f"links {links}")


def check_sampling(spans, events, starts):
    roots = [s for s in spans if s["name"] == "root"]
    children = [s for s in spans if s["name"] == "child"]
    bound = 5 * math.sqrt(ROOTS * 0.1 * 0.9)
    log(f"1/10 of {ROOTS} roots: {len(roots)} sampled (bound ±{bound:.0f})")
    check(abs(len(roots) - ROOTS / 10) <= bound, f"{len(roots)} roots sampled of {ROOTS}")
    check(len(children) == len(roots), "a sampled root without its child")
    recorded_roots = [f for f in starts.values() if f["name"] == "root"]
    check(len(recorded_roots) == len(roots), f"{len(recorded_roots)} roots recorded")
    for child in children:
        start = starts[child["span"]]
        check(starts[start["parent_span_id"]]["name"] == "root", f"orphan child {child}")
    ends = {f["span_id"] for n, f in events if n == "tracectl_span:end"}
    check(all(s["span"] in ends for s in spans), "a sampled span did not end")
    attrs = [f for n, f in events if n == "tracectl_span:attr_int" and f["key"] == "i"]
    check(len(attrs) == len(children), f"{len(attrs)} attributes for {len(children)} children")


def test():
    with Service() as svc:
        out = os.path.join(svc.rundir, "spans")
        svc.cli("create", "spans", "--output", out)
        svc.cli("enable-event", "-u", "tracectl_span:*")
        svc.cli("start")
        svc.run_app("unsampled", program=SPAN_APP)
        tree = printed_spans(svc.run_app("tree", program=SPAN_APP))
        remote = printed_spans(svc.run_app("remote", TRACEPARENT, TRACESTATE,
                                           LINK_TRACEPARENT, LINK_TRACESTATE,
                                           program=SPAN_APP))
        sampled = printed_spans(svc.run_app("roots", str(ROOTS), program=SPAN_APP,
                                            extra_env={"TRACECTL_SPAN_SAMPLE": "1/10"}))
        svc.cli("stop")
        check(svc.alive(), "tracectld died")

        events = read_trace(out)
        check(not any(name == "<discarded>" for name, _ in events), "events were discarded")
        starts = starts_by_id(events)
        check_started(tree + remote + sampled, starts)
        check_tree(tree, events)
        check_remote(remote, events)
        check_sampling(sampled, events, starts)
        # Nothing else: the unsampled program recorded no event at all.
        known = {s["span"] for s in tree + remote + sampled}
        strays = [(n, f) for n, f in events if f.get("span_id") not in known]
        check(not strays, f"events of no sampled span: {strays[:3]}")
        svc.cli("destroy", "spans")


run(test)
