# SPDX-License-Identifier: LGPL-2.1-or-later
"""Reading the traces the integration tests record: events through
babeltrace2's Python bindings (run under the system python3, which
python3-bt2 is built for), its text output, and the values the example
application gives its events."""

import json
import os
import re
import struct
import subprocess

from tclib import BUILD, SYSTEM_PYTHON, check


READ_TRACE_SCRIPT = r"""
import bt2, json, sys
out = []
for msg in bt2.TraceCollectionMessageIterator(sys.argv[1]):
    if type(msg) is bt2._EventMessageConst:
        ev = msg.event
        fields = {}
        for name, value in ev.payload_field.items():
            if name.startswith("_"):
                continue  # the length of a byte sequence
            if isinstance(value, bt2._StringFieldConst):
                fields[name] = str(value)
            elif isinstance(value, (bt2._ArrayFieldConst,)):
                fields[name] = [float(v) if isinstance(v, bt2._RealFieldConst) else int(v)
                                for v in value]
            elif isinstance(value, bt2._RealFieldConst):
                fields[name] = float(value)
            else:
                fields[name] = int(value)
        out.append([ev.name, fields])
    elif type(msg) is bt2._DiscardedEventsMessageConst:
        out.append(["<discarded>", {"count": msg.count}])
print(json.dumps(out))
"""


def read_trace(path):
    """All events of a trace: a list of (name, {field: value}) in time
    order, with ("<discarded>", {"count": N}) where events were discarded,
    read by babeltrace2 (the build's sink.tctest.streams, or else
    babeltrace2's Python bindings)."""
    if os.path.exists(READER_PLUGIN):
        command = ["babeltrace2", f"--plugin-path={READER_PLUGIN_DIR}", path,
                   "--component=sink.tctest.streams", "--params=pairs=yes"]
    else:
        command = [SYSTEM_PYTHON, "-c", READ_TRACE_SCRIPT, path]
    proc = subprocess.run(command, env=plugin_env(READER_PLUGIN), capture_output=True,
                          text=True, timeout=300)
    if proc.returncode != 0:
        check(False, f"babeltrace2 could not read {path}: {proc.stderr[-2000:]}\n"
              f"{unreadable_evidence(path)}")
    return json.loads(proc.stdout)


def record_run(svc, name, program, count, rule, channel=()):
    """(output directory, read_trace() of it) of a session name that
    records one run of a test application (program COUNT) with rule
    (enable-event's arguments after -u), in a channel made with
    enable-channel's arguments channel (after its name) when given."""
    out = os.path.join(svc.rundir, name)
    svc.cli("create", name, "--output", out)
    if channel:
        svc.cli("enable-channel", "-u", "recorded", *channel)
        rule = ("-c", "recorded", *rule)
    svc.cli("enable-event", "-u", *rule)
    svc.cli("start")
    svc.run_app(str(count), program=program)
    svc.cli("stop")
    svc.cli("destroy", name)
    return out, read_trace(out)


READ_STREAMS_SCRIPT = r"""
import bt2, json, sys
events, discarded, packets_lost = [], {}, 0
with_ns = sys.argv[2:] == ["ns"]
for msg in bt2.TraceCollectionMessageIterator(sys.argv[1]):
    t = type(msg)
    if t is bt2._EventMessageConst:
        ev = msg.event
        entry = {"name": ev.name, "stream": ev.stream.id,
                 "cpu": int(ev.packet.context_field["cpu_id"]),
                 "ts": msg.default_clock_snapshot.value}
        if with_ns:
            entry["ns"] = msg.default_clock_snapshot.ns_from_origin
        for name, value in ev.payload_field.items():
            if name.startswith("_"):
                continue
            if isinstance(value, bt2._StringFieldConst):
                entry[name] = str(value)
            elif isinstance(value, bt2._ArrayFieldConst):
                entry[name] = [float(v) if isinstance(v, bt2._RealFieldConst) else int(v)
                               for v in value]
            elif isinstance(value, bt2._RealFieldConst):
                entry[name] = float(value)
            else:
                entry[name] = int(value)
        if ev.common_context_field is not None:
            for name, value in ev.common_context_field.items():
                entry["ctx_" + name] = (str(value) if isinstance(value, bt2._StringFieldConst)
                                        else int(value))
        events.append(entry)
    elif t is bt2._DiscardedEventsMessageConst:
        key = str(msg.stream.id)
        discarded[key] = discarded.get(key, 0) + msg.count
    elif t is bt2._DiscardedPacketsMessageConst:
        packets_lost += msg.count if msg.count is not None else 1
print(json.dumps({"events": events, "discarded": discarded, "packets_lost": packets_lost}))
"""


# The build's babeltrace2 plugin that writes what READ_STREAMS_SCRIPT
# writes (lib/tc-read-streams.c), some fifty times faster.
READER_PLUGIN_DIR = os.path.join(BUILD, "tests", "integration", "lib")
READER_PLUGIN = os.path.join(READER_PLUGIN_DIR, "babeltrace-plugin-tctest.so")


def sanitizer_preload(plugin):
    """A plugin built with AddressSanitizer needs its runtime loaded first,
    before babeltrace2 (which is not) opens it: its libraries, or None."""
    out = subprocess.run(["ldd", plugin], capture_output=True, text=True).stdout
    runtimes = re.findall(r"=> (\S*lib(?:asan|ubsan)\.so\S*)", out)
    return ":".join(runtimes) or None


def plugin_env(plugin):
    """The environment in which babeltrace2 opens plugin, one of the
    build's."""
    env = dict(os.environ)
    preload = sanitizer_preload(plugin) if os.path.exists(plugin) else None
    if preload:
        env["LD_PRELOAD"] = preload
        # babeltrace2 itself leaks by design at exit; only the plugin is ours.
        env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
    return env


def read_streams_command(path, with_ns):
    if os.path.exists(READER_PLUGIN):
        return (["babeltrace2", f"--plugin-path={READER_PLUGIN_DIR}", path,
                 "--component=sink.tctest.streams"] +
                (["--params=with-ns=yes"] if with_ns else []))
    return [SYSTEM_PYTHON, "-c", READ_STREAMS_SCRIPT, path] + (["ns"] if with_ns else [])


def read_streams(path, with_ns=False):
    """Events with their stream, CPU, timestamp (ts, in cycles of the
    stream's clock; with_ns also ns, on the time line all clocks share),
    payload and context fields, the events discarded per stream id and the
    packets lost, read by babeltrace2 (the build's sink.tctest.streams, or
    else babeltrace2's Python bindings)."""
    proc = subprocess.run(read_streams_command(path, with_ns), env=plugin_env(READER_PLUGIN),
                          capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        check(False, f"babeltrace2 could not read {path}: {proc.stderr[-2000:]}\n"
              f"{unreadable_evidence(path)}")
    return json.loads(proc.stdout)


# An LTTng index file: magic, major, minor, entry size, then one entry per
# packet, big-endian, starting with the packet's offset and size in bits.
INDEX_HEADER = struct.Struct(">IIII")
INDEX_ENTRY_START = struct.Struct(">QQ")
INDEX_MAGIC = 0xC1F1DCC1


def index_coverage(path):
    """What an index file addresses, as text: its packets and the bytes
    they span, which babeltrace2 wants equal to the data file's size."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < INDEX_HEADER.size:
        return "no header"
    magic, major, minor, entry_size = INDEX_HEADER.unpack_from(data)
    if magic != INDEX_MAGIC or entry_size < INDEX_ENTRY_START.size:
        return f"bad header (magic {magic:#x}, entry size {entry_size})"
    entries = range(INDEX_HEADER.size, len(data) - entry_size + 1, entry_size)
    end = 0
    for at in entries:
        offset, bits = INDEX_ENTRY_START.unpack_from(data, at)
        end = max(end, offset + bits // 8)
    rest = (len(data) - INDEX_HEADER.size) % entry_size
    return (f"{len(entries)} packets to byte {end}" +
            (f", {rest} bytes of a cut entry" if rest else ""))


def trace_listing(path):
    """Every file under path with its size, and what each index file
    addresses."""
    lines = []
    for root, _, files in sorted(os.walk(path)):
        for name in sorted(files):
            full = os.path.join(root, name)
            try:
                line = f"  {os.path.relpath(full, path)}: {os.path.getsize(full)} bytes"
                if name.endswith(".idx"):
                    line += f" ({index_coverage(full)})"
            except OSError as error:
                line = f"  {os.path.relpath(full, path)}: {error}"
            lines.append(line)
    return "\n".join(lines)


def unreadable_evidence(path):
    """Why babeltrace2 cannot read path, in its own words (the command's
    log and error causes, which the Python bindings do not all give), and
    the files of the trace, for the failure message."""
    try:
        proc = subprocess.run(["babeltrace2", path], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, timeout=300)
        # Reports of discarded events could push the causes out.
        said = "\n".join(line for line in proc.stderr.splitlines()
                         if not line.startswith("WARNING: Tracer discarded"))
        said = f"babeltrace2 exited {proc.returncode}:\n{said[-6000:]}"
    except (OSError, subprocess.TimeoutExpired) as error:
        said = f"babeltrace2 did not run: {error}"
    return f"{said}\nfiles of {path}:\n{trace_listing(path)}"


def babeltrace_text(path, allow_discards=False):
    """babeltrace2's text output; fails on any warning or error, but for
    reports of discarded events when allow_discards (a run that filled its
    buffers on purpose)."""
    proc = subprocess.run(["babeltrace2", path], capture_output=True, text=True, timeout=300)
    check(proc.returncode == 0,
          f"babeltrace2 failed on {path}: {proc.stderr}\nfiles:\n{trace_listing(path)}")
    warnings = [line for line in proc.stderr.splitlines()
                if not (allow_discards and line.startswith("WARNING: Tracer discarded"))]
    check(warnings == [],
          f"babeltrace2 warned on {path}: {proc.stderr}\nfiles:\n{trace_listing(path)}")
    return proc.stdout


def expected_all_types(i):
    """The field values the example application gives event i."""
    blob = list(range(0x10, 0x10 + i % 8))
    return {
        "seq": i,
        "s8": -(i % 128),
        "s16": -300 * (i % 100),
        "s32": -70000 * i,
        "s64": -i * 10000000000,
        "u8": i % 256,
        "u16": (i * 3) % 65536,
        "u32": (i * 100000) % (1 << 32),
        "u64": (1 << 64) - 1 - i,
        "dbl": i * 0.5,
        "str": f"event-{i}",
        "blob": blob,
    }
