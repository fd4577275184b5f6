#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Field kinds beyond the example application's (tests/integration/apps/
types-tp.h): integers shown in hex and octal, integers in network byte
order, a float, and a string capped at 5 bytes. Each value is read back
as written, babeltrace2 prints the integers in their base, the listing
names every type, and filters read the float and the hex integer but
refuse a field in network byte order."""

import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import BUILD, Service, check, run
from tracelib import record_run

TYPES_APP = os.path.join(BUILD, "tests", "integration", "apps", "tracectl-types-app")
COUNT = 4
TEXT = "abcdefghij"
SIGNATURE = ("uint32 hex hex, uint16 oct oct, uint16 network port, "
             "uint32 hex network addr, int64 plain, float ratio, double precise, "
             "string head, string whole")


def expected(i):
    return {"hex": 0xdeadbeef + i, "oct": 0o755 + i, "port": 8080 + i, "addr": 0x7f000001 + i,
            "plain": -i, "ratio": 1.5 + i, "precise": 2.25 + i, "head": TEXT[:5],
            "whole": TEXT}


def recorded(svc, name, *rule):
    """The types:scalars events of a session that records the application
    once with rule (enable-event's arguments)."""
    out, events = record_run(svc, name, TYPES_APP, COUNT, rule)
    check(all(event == "types:scalars" for event, _ in events), f"{name}: {events}")
    return out, [fields for _, fields in events]


def check_values(svc):
    out, events = recorded(svc, "values", "types:*")
    for i, fields in enumerate(events):
        values = {key: fields[key] for key in expected(i)}
        check(values == expected(i), f"event {i} holds {values}, expected {expected(i)}")
    check(len(events) == COUNT, f"{len(events)} events recorded, not {COUNT}")
    text = subprocess.run(["babeltrace2", out], capture_output=True, text=True,
                          check=True).stdout
    for shown in ("hex = 0xDEADBEEF", "oct = 0755", "addr = 0x7F000001", "port = 8080",
                  "ratio = 1.5,", 'head = "abcde"'):
        check(shown in text, f"babeltrace2 does not print {shown!r}: {text}")


def check_listing(svc):
    fields = svc.listed_fields(TYPES_APP)
    check(fields == {"types:scalars": SIGNATURE}, f"the application lists {fields}")


def check_filters(svc):
    _, events = recorded(svc, "float", "types:scalars", "--filter", "ratio > 2.0")
    check([e["plain"] for e in events] == [-1, -2, -3], f"ratio > 2.0 kept {events}")
    _, events = recorded(svc, "hex", "types:scalars", "--filter", "hex == 0xdeadbef0")
    check([e["plain"] for e in events] == [-1], f"hex == 0xdeadbef0 kept {events}")
    offset = svc.log_offset()
    _, events = recorded(svc, "network", "types:scalars", "--filter", "port == 8080")
    check(events == [], f"a filter on a field in network byte order kept {events}")
    text = svc.log_since(offset)
    check("field 'port' is stored in network byte order, which filters cannot read" in text,
          f"the refused filter is not logged: {text[-2000:]}")


def test():
    with Service() as svc:
        check_values(svc)
        check_listing(svc)
        check_filters(svc)


run(test)
