#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Enumerations (tests/integration/apps/enums-tp.h): enums:state, of
values, ranges, an automatic value and a label with quotes, used by both
events in unsigned containers of 1 and 8 bytes and a signed one of 4;
enums:delta, signed down to INT64_MIN, in a signed container of 8 bytes.
babeltrace2 prints every value by the label of the range that holds it,
and a value in none without a label; each value is the container's as
written. Two runs of the application in one session share each event's
class in the metadata (their enumerations are the same). The listing
names each enumeration and container, and filters compare an
enumeration as its integer."""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import BUILD, Service, check, run
from tracelib import read_trace, record_run

ENUMS_APP = os.path.join(BUILD, "tests", "integration", "apps", "tracectl-enums-app")
COUNT = 24  # from 0 to 23: every state range, its gaps, and changes past 1000
STATE = [("idle", 0, 0), ("busy", 1, 5), ("done", 6, 6), ("failing", 10, 19),
         ('say "stop"', 255, 255)]
DELTA = [("down", -2**63, -1), ("still", 0, 0), ("up", 1, 1000)]
SIGNATURES = {
    "enums:transition": "enum state : uint8 from, enum state : uint64 to, "
                        "enum delta : int64 change, uint32 after",
    "enums:status": "enum state : int32 state, float load",
}


def label(enumeration, value):
    """The label babeltrace2 shows for value, None outside every range."""
    labels = [name for name, begin, end in enumeration if begin <= value <= end]
    return labels[0] if labels else None


def expected(i):
    """The two events the application records for i: {field: value}."""
    return [("enums:transition", {"from": i, "to": 255 - i, "change": (i - 4) * 100,
                                  "after": i}),
            ("enums:status", {"state": i - 1, "load": i / 2})]


# babeltrace2's text of an enumeration field: `from = ( "busy" : container
# = 3 )`, `( <unknown> : container = 7 )` for a value in no range.
SHOWN = re.compile(r'(\w+) = \( (?:"((?:[^"\\]|\\.)*)"|<unknown>) : container = (-?\d+) \)')


def shown_enums(text):
    """[{field: (label or None, value)}] of each event babeltrace2 printed."""
    events = []
    for line in text.splitlines():
        fields = {}
        for name, shown, value in SHOWN.findall(line):
            fields[name] = (shown.replace('\\"', '"').replace("\\\\", "\\") if shown else None,
                            int(value))
        if "<unknown>" in line and not any(v[0] is None for v in fields.values()):
            check(False, f"a line of babeltrace2 that the test cannot read: {line}")
        events.append(fields)
    return events


def check_values(svc):
    out = os.path.join(svc.rundir, "values")
    svc.cli("create", "values", "--output", out)
    svc.cli("enable-event", "-u", "enums:*")
    svc.cli("start")
    # Two runs: the second application's events take the first one's ids.
    for _ in range(2):
        svc.run_app(str(COUNT), program=ENUMS_APP)
    svc.cli("stop")
    svc.cli("destroy", "values")
    want = [event for i in range(COUNT) for event in expected(i)] * 2
    events = read_trace(out)
    check(len(events) == len(want), f"{len(events)} events recorded, not {len(want)}")
    for got, wanted in zip(events, want):
        check(got[0] == wanted[0] and got[1] == wanted[1],
              f"event {got[0]} holds {got[1]}, expected {wanted}")
    metadata = open(os.path.join(out, "ust", "uid", "0", "64-bit", "metadata")).read()
    for name in SIGNATURES:
        count = metadata.count(f'name = "{name}";')
        check(count == 1, f"the metadata describes {name} {count} times")

    text = subprocess.run(["babeltrace2", out], capture_output=True, text=True,
                          check=True).stdout
    shown = shown_enums(text)
    check(len(shown) == len(want), f"babeltrace2 printed {len(shown)} events: {text[:2000]}")
    unlabelled = 0
    for fields, (name, values) in zip(shown, want):
        enumerations = {"from": STATE, "to": STATE, "change": DELTA, "state": STATE}
        for field, value in values.items():
            if field not in enumerations:
                continue
            wanted = (label(enumerations[field], value), value)
            unlabelled += wanted[0] is None
            check(fields.get(field) == wanted,
                  f"{name}: babeltrace2 shows {field} as {fields.get(field)}, not {wanted}")
    # Values outside every range, recorded all the same, in each run: from
    # 7 to 9 and 20 to 23, to 232 to 254, change 1100 to 1900, state -1, 7
    # to 9 and 20 to 22.
    check(unlabelled == 2 * (7 + 23 + 9 + 7), f"{unlabelled} values shown without a label")
    for line in ('from = ( "busy" : container = 3 )', 'to = ( "say \\"stop\\"" : container = 255 )',
                 'change = ( "down" : container = -400 )',
                 'from = ( <unknown> : container = 7 )'):
        check(line in text, f"babeltrace2 does not print {line!r}: {text[:2000]}")


def check_listing(svc):
    fields = svc.listed_fields(ENUMS_APP)
    check(fields == SIGNATURES, f"the application lists {fields}")


def check_filters(svc):
    # An unsigned container's value, and a signed one's.
    _, events = record_run(svc, "failing", ENUMS_APP, COUNT,
                           ("enums:transition", "--filter", "from >= 10 && from <= 19"))
    check([fields["after"] for _, fields in events] == list(range(10, 20)),
          f"from >= 10 && from <= 19 kept {events}")
    _, events = record_run(svc, "down", ENUMS_APP, COUNT,
                           ("enums:transition", "--filter", "change < 0"))
    check([fields["change"] for _, fields in events] == [-400, -300, -200, -100],
          f"change < 0 kept {events}")
    _, events = record_run(svc, "unknown", ENUMS_APP, COUNT,
                           ("enums:status", "--filter", "state == -1"))
    check([fields["state"] for _, fields in events] == [-1], f"state == -1 kept {events}")


def test():
    with Service() as svc:
        check_values(svc)
        check_listing(svc)
        check_filters(svc)


run(test)
