#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""An application emits K events with fields of every type; the trace holds
exactly those K events with exactly those values, and babeltrace2 reads it
without a warning. The application's first event, emitted as the first
instruction of main(), is recorded too: the session was active before it
started. On ext4, XFS and Btrfs the stream files of the default channel
(512 KiB packets) were written with direct I/O: none of their pages is
in the page cache."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import (DIRECT_IO_FILE_SYSTEMS, Service, check, file_system_type, log, page_cache_bytes,
                   run)
from tracelib import babeltrace_text, expected_all_types, read_trace

K = 200


def check_direct_io(out):
    """Before anything reads the trace (reading fills the page cache)."""
    uid_dir = os.path.join(out, "ust", "uid", "0", "64-bit")
    streams = [os.path.join(uid_dir, n) for n in os.listdir(uid_dir) if n.startswith("channel0_")]
    if file_system_type(out) not in DIRECT_IO_FILE_SYSTEMS:
        log(f"{file_system_type(out)}: the stream files go through the page cache")
        return
    for path in streams:
        cached, size = page_cache_bytes(path)
        log(f"{os.path.basename(path)}: {size} bytes, {cached} in the page cache")
        check(cached == 0, f"{path}: {cached} of {size} bytes in the page cache")


def test():
    with Service() as svc:
        out = os.path.join(svc.rundir, "trace-values")
        svc.cli("create", "values", "--output", out)
        svc.cli("enable-event", "-u", "example:*")
        svc.cli("start")
        svc.run_app("--count", str(K))
        svc.cli("stop")
        check(svc.alive(), "tracectld died")
        check_direct_io(out)

        events = read_trace(out)
        names = [name for name, _ in events]
        check(names.count("example:startup") == 1, f"startup events: {names[:5]}")
        check(names.count("example:done") == 1, "no example:done event")
        values = [fields for name, fields in events if name == "example:all_types"]
        check(len(values) == K, f"expected {K} all_types events, got {len(values)}")
        for i, fields in enumerate(sorted(values, key=lambda f: f["seq"])):
            expected = expected_all_types(i)
            check(fields == expected, f"event {i}: {fields} != {expected}")
        check("<discarded>" not in names, "events were discarded")
        text = babeltrace_text(out)
        check(text.count("example:all_types") == K, "babeltrace2 text output differs")
        # The layout users and viewers expect.
        uid_dir = os.path.join(out, "ust", "uid", "0", "64-bit")
        check(os.path.exists(os.path.join(uid_dir, "metadata")), "no metadata file")
        check(any(n.startswith("channel0_") for n in os.listdir(uid_dir)), "no stream files")
        svc.cli("destroy", "values")


run(test)
