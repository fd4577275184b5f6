#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Arrays and sequences (tests/integration/apps/arrays-tp.h): of integers
of every size and signedness, in hex and in network byte order, of
doubles and floats, of text; each value is read back by babeltrace2 as
written, sequences from empty on, one asked past its bound recorded at
the bound (65536 elements), one too large for a sub-buffer counted as
discarded and not written while the events after it are. The listing
names every type, and a filter naming an array or a sequence is refused
with its reason logged."""

import os
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import BUILD, Service, check, run
from tracelib import record_run

ARRAYS_APP = os.path.join(BUILD, "tests", "integration", "apps", "tracectl-arrays-app")
COUNT = 18  # sequences of 0 to 16 elements, then 16 again
SEQUENCE_MAX = 16
TEXT = "abcdefghijklmnop"
BOUND = 65536
SIGNATURES = {
    "arrays:ints": "uint32[16] words, int8[3] small, int64[2] wide, uint16 hex[2] hex, "
                   "uint32 network[2] net, uint32 after",
    "arrays:seqs": "uint32[] words, int16[] shorts, uint64 hex[] wide, uint32 after",
    "arrays:reals": "double[3] fixed, double[] varying, float[2] fixed_float, "
                    "float[] varying_float, uint32 after",
    "arrays:text": "text[8] fixed, text[] varying, uint32 after",
    "arrays:bound": "uint8[] bytes, uint32 after",
    "arrays:wide": "uint64[] values, uint32 after",
}


def f32(value):
    """value rounded to binary32, as the application stored it."""
    return struct.unpack("f", struct.pack("f", value))[0]


def expected(i):
    n = min(i, SEQUENCE_MAX)
    return [
        ("arrays:ints", {"words": [i * 16 + k for k in range(16)], "small": [-1 - i, 0, 127],
                         "wide": [-2**63 + i, 2**63 - 1 - i], "hex": [0xbeef + i, 0xcafe],
                         "net": [0x01020304 + i, 0xa0b0c0d0], "after": i}),
        ("arrays:seqs", {"words": [1000 * i + k for k in range(n)],
                         "shorts": [-100 * k for k in range(n)],
                         "wide": [2**64 - 1 - k for k in range(n)], "after": n}),
        ("arrays:reals", {"fixed": [k + 0.5 + i for k in range(3)],
                          "varying": [k + 0.5 + i for k in range(n)],
                          "fixed_float": [f32(k * 0.25 - i) for k in range(2)],
                          "varying_float": [f32(k * 0.25 - i) for k in range(n)], "after": n}),
        ("arrays:text", {"fixed": f"t{i}", "varying": TEXT[:n], "after": n}),
    ]


def recorded(svc, name, *rule):
    """The events of a session that records the application once with rule
    (enable-event's arguments), in a channel of 128 KiB sub-buffers: a
    65536-byte sequence fits, the 512 KiB one does not."""
    return record_run(svc, name, ARRAYS_APP, COUNT, rule,
                      channel=("--subbuf-size", "128k", "--num-subbuf", "4"))


def check_values(svc):
    out, events = recorded(svc, "values", "arrays:*")
    discarded = sum(fields["count"] for name, fields in events if name == "<discarded>")
    events = [(name, fields) for name, fields in events if name != "<discarded>"]
    want = [event for i in range(COUNT) for event in expected(i)]
    check(len(events) == len(want) + 3,
          f"{len(events)} events recorded, not {len(want) + 3}: "
          f"{[name for name, _ in events[len(want):]]}")
    for got, wanted in zip(events, want):
        check(got[0] == wanted[0] and got[1] == wanted[1],
              f"event {got[0]} holds {got[1]}, expected {wanted}")
    # Asked for 70000 bytes: the sequence stops at its bound.
    for name, fields in events[len(want):len(want) + 2]:
        check(name == "arrays:bound" and fields["after"] == 70000 and
              fields["bytes"] == [k % 251 for k in range(BOUND)],
              f"the sequence at the bound is {name} of {len(fields.get('bytes', []))} bytes")
    # The 512 KiB record is not written, but counted; the next one is.
    name, fields = events[len(want) + 2]
    check(name == "arrays:bound" and fields == {"bytes": [0], "after": 1},
          f"after the discarded record: {name} {fields}")
    check(discarded == 1, f"{discarded} events discarded, not the one too large")
    text = subprocess.run(["babeltrace2", out], capture_output=True, text=True,
                          check=True).stdout
    for shown in ('fixed = "t3"', 'varying = "abc"', "[0] = 0xBEEF", 'varying = ""'):
        check(shown in text, f"babeltrace2 does not print {shown!r}: {text[:3000]}")


def check_listing(svc):
    fields = svc.listed_fields(ARRAYS_APP)
    check(fields == SIGNATURES, f"the application lists {fields}")


def check_filters(svc):
    _, events = recorded(svc, "after", "arrays:ints", "--filter", "after >= 16")
    check([fields["after"] for _, fields in events] == [16, 17],
          f"after >= 16 kept {events}")
    # Behind sequences: each is two pieces of the probe's payload.
    _, events = recorded(svc, "after-seqs", "arrays:seqs", "--filter", "after == 5")
    check([fields["words"] for _, fields in events] == [[5000 + k for k in range(5)]],
          f"after == 5 kept {events}")
    for field, kind in (("words", "an array"), ("varying", "a sequence")):
        time.sleep(1.1)  # the service logs refused filters once a second at most
        offset = svc.log_offset()
        event = "arrays:ints" if kind == "an array" else "arrays:text"
        _, events = recorded(svc, field, event, "--filter", f"{field} == 3")
        check(events == [], f"a filter on {kind} kept {events}")
        text = svc.log_since(offset)
        check(f"field '{field}' is {kind}, which filters cannot read" in text,
              f"the refused filter is not logged: {text[-2000:]}")


def test():
    with Service() as svc:
        check_values(svc)
        check_listing(svc)
        check_filters(svc)


run(test)
