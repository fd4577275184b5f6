#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A kernel session's start, and `regenerate statedump`, write the state
dump: lttng-modules' lttng_statedump_* events, in the kernel trace, on
its time line.

The test process opens a file of its own on a descriptor of a known
number and maps another file at an address it knows, then records a
kernel session (one tracepoint) for a moment, with `regenerate
statedump` in the middle. babeltrace2 (its Python bindings) reads the
trace, where each of the two dumps must have:

- one lttng_statedump_start and one lttng_statedump_end, the end after
  the start, both between the times read before and after the command
  that asked for it (on the real-time line babeltrace2 puts the trace's
  clock on), and every other state dump event between them;
- lttng_statedump_process_state of this process' thread: its tid, pid,
  parent and name, a user thread; one of pid 1; one of a kernel thread
  (kthreadd, pid 2) typed as such;
- its namespaces: the inode of its net and mnt namespaces
  (lttng_statedump_process_net_ns, _mnt_ns), its pid namespace's ids;
- lttng_statedump_file_descriptor of the open file: its fd, its path,
  flags with O_WRONLY, the process' pid in "pid" and "file_table_address";
- lttng_statedump_vm_map of the mapped file: start, end, inode, offset,
  read and shared flags;
- lttng_statedump_network_interface of "lo" (127.0.0.1), and an
  lttng_statedump_block_device per line of /proc/partitions.

`regenerate statedump` is refused before `start` (InvalidState, exit
status 1) and for a session without kernel events (NotFound, 3).
"""

import json
import mmap
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import SYSTEM_PYTHON, Service, check, log, mount_tracefs, run

FD_NUMBER = 57
MAP_PAGES = 3
MAP_OFFSET_PAGES = 1
# The trace's clock (the TSC or CLOCK_MONOTONIC) is put on the real-time
# line by the offset the consumer measured: within a millisecond.
CLOCK_SLACK_NS = 5_000_000

READ_STATEDUMP = r"""
import bt2, json, sys
events = []
for msg in bt2.TraceCollectionMessageIterator(sys.argv[1]):
    if type(msg) is not bt2._EventMessageConst:
        continue
    ev = msg.event
    if not ev.name.startswith("lttng_statedump_"):
        continue
    fields = {}
    for name, value in (ev.payload_field or {}).items():
        if isinstance(value, bt2._StringFieldConst):
            fields[name] = str(value)
        else:
            fields[name] = int(value)
    events.append([ev.name, msg.default_clock_snapshot.ns_from_origin, fields])
print(json.dumps(events))
"""


def read_statedump(path):
    proc = subprocess.run([SYSTEM_PYTHON, "-c", READ_STATEDUMP, path], capture_output=True,
                          text=True, timeout=300)
    check(proc.returncode == 0, f"babeltrace2 could not read {path}: {proc.stderr[-3000:]}")
    return json.loads(proc.stdout)


def the(events, event, what, **fields):
    """The first event of that name whose fields have those values."""
    found = [f for n, _, f in events if n == event
             and all(f.get(k) == v for k, v in fields.items())]
    check(len(found) >= 1, f"no {event} {what} ({fields}); {event}: "
          f"{[f for n, _, f in events if n == event][:5]}")
    return found[0]


def dumps_of(events, before, regenerated, after):
    """The two dumps' events, the start's and the regenerated one's, each
    between its start and its end, inside the times it was asked in."""
    names = [n for n, _, _ in events]
    starts = [i for i, n in enumerate(names) if n == "lttng_statedump_start"]
    ends = [i for i, n in enumerate(names) if n == "lttng_statedump_end"]
    check(len(starts) == 2 and len(ends) == 2 and starts[0] < ends[0] < starts[1] < ends[1]
          and starts[0] == 0 and ends[1] == len(events) - 1,
          f"starts at {starts}, ends at {ends} of {len(events)} state dump events")
    dumps = []
    for (first, last), (earliest, latest) in zip(zip(starts, ends),
                                                 ((before, regenerated), (regenerated, after))):
        start, end = events[first][1], events[last][1]
        check(earliest - CLOCK_SLACK_NS <= start <= end <= latest + CLOCK_SLACK_NS,
              f"a dump from {start} to {end}, asked for between {earliest} and {latest}")
        dump = events[first:last + 1]
        check(all(start <= ts <= end for _, ts, _ in dump), "events outside their dump")
        log(f"{len(dump)} state dump events in {(end - start) / 1e6:.1f} ms")
        dumps.append(dump)
    return dumps


def check_process(events, comm):
    pid = os.getpid()
    state = the(events, "lttng_statedump_process_state", "of this process", tid=pid, pid=pid)
    check(state["ppid"] == os.getppid() and state["name"] == comm and state["type"] == 0
          and state["file_table_address"] == pid, f"this process' state: {state}")
    the(events, "lttng_statedump_process_state", "of init", tid=1, pid=1)
    with open("/proc/2/comm") as f:
        kthreadd = f.read().strip()
    if kthreadd == "kthreadd":  # pid 2 of the initial pid namespace
        the(events, "lttng_statedump_process_state", "of kthreadd", tid=2, type=1)
    for ns in ("net", "mnt"):
        inode = os.stat(f"/proc/self/ns/{ns}").st_ino
        the(events, f"lttng_statedump_process_{ns}_ns", "of this process", tid=pid,
            ns_inum=inode)
    pid_ns = the(events, "lttng_statedump_process_pid_ns", "of this process", tid=pid)
    check(pid_ns["vtid"] == pid and pid_ns["vpid"] == pid and pid_ns["ns_level"] == 0
          and pid_ns["ns_inum"] == os.stat("/proc/self/ns/pid").st_ino,
          f"this process' pid namespace: {pid_ns}")


def check_fd(events, path):
    pid = os.getpid()
    fd = the(events, "lttng_statedump_file_descriptor", "of the open file", pid=pid,
             fd=FD_NUMBER)
    check(fd["filename"] == path and fd["flags"] & os.O_ACCMODE == os.O_WRONLY
          and fd["fmode"] == 2 and fd["file_table_address"] == pid,
          f"the descriptor {FD_NUMBER}: {fd}, expected {path}")


def check_map(events, address, inode):
    page = mmap.PAGESIZE
    found = the(events, "lttng_statedump_vm_map", "of the mapped file", pid=os.getpid(),
                start=address)
    check(found["end"] == address + MAP_PAGES * page and found["inode"] == inode
          and found["pgoff"] == MAP_OFFSET_PAGES * page and found["flags"] & 0xf == 0x9,
          f"the map at {address:#x}: {found}, expected inode {inode}")


def check_machine(events):
    lo = the(events, "lttng_statedump_network_interface", "of the loopback", name="lo")
    check(lo["address_ipv4"] in (0x7f000001, 0), f"lo: {lo}")
    with open("/proc/partitions") as f:
        disks = [line.split() for line in f.read().splitlines()[2:] if line.strip()]
    for major, minor, _, name in disks:
        the(events, "lttng_statedump_block_device", "of /proc/partitions",
            dev=int(major) << 20 | int(minor), diskname=name)


def test():
    mount_tracefs()
    with Service() as svc:
        path = os.path.join(svc.rundir, "statedump-open-file")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
        os.dup2(fd, FD_NUMBER)
        os.close(fd)
        mapped = os.path.join(svc.rundir, "statedump-mapped-file")
        with open(mapped, "wb") as f:
            f.write(b"\0" * (MAP_PAGES + MAP_OFFSET_PAGES) * mmap.PAGESIZE)
        with open(mapped, "rb") as f:
            region = mmap.mmap(f.fileno(), MAP_PAGES * mmap.PAGESIZE, mmap.MAP_SHARED,
                               mmap.PROT_READ, offset=MAP_OFFSET_PAGES * mmap.PAGESIZE)
        address = mmap_address(region)
        with open("/proc/self/comm") as f:
            comm = f.read().strip()

        out = os.path.join(svc.rundir, "statedump")
        svc.cli("create", "sd", "--output", out)
        svc.cli("enable-event", "-k", "sched:sched_process_exit")
        refused(svc, "before start", 1, "InvalidState")
        before = time.time_ns()
        svc.cli("start")
        time.sleep(0.2)
        regenerated = time.time_ns()
        done = svc.cli_json("regenerate", "statedump")
        check(done == {"session": "sd", "regenerated": "statedump"}, f"regenerate: {done}")
        time.sleep(0.2)
        svc.cli("stop")
        after = time.time_ns()
        svc.cli("destroy", "sd")
        svc.cli("create", "user-only", "--output", os.path.join(svc.rundir, "user-only"))
        svc.cli("enable-event", "-u", "stress:*")
        svc.cli("start")
        refused(svc, "without kernel events", 3, "NotFound")
        svc.cli("destroy", "user-only")

        for events in dumps_of(read_statedump(os.path.join(out, "kernel")), before,
                               regenerated, after):
            check_process(events, comm)
            check_fd(events, path)
            check_map(events, address, os.stat(mapped).st_ino)
            check_machine(events)
        region.close()
        os.close(FD_NUMBER)


def refused(svc, when, status, error):
    """`regenerate statedump` fails with that exit status and D-Bus error."""
    result = svc.cli("--json=short", "regenerate", "statedump", check_ok=False)
    names = [e.get("dbus_error") for e in result.errors]
    check(result.returncode == status and names == [f"org.tracectl.Tracing1.Error.{error}"],
          f"regenerate statedump {when}: {result}")


def mmap_address(region):
    """Where the mapping is (a read-only mmap object does not say): the
    line of /proc/self/maps of its file, size and offset."""
    check(len(region) == MAP_PAGES * mmap.PAGESIZE, f"mapped {len(region)} bytes")
    with open("/proc/self/maps") as f:
        lines = f.read().splitlines()
    size = MAP_PAGES * mmap.PAGESIZE
    for line in lines:
        parts = line.split()
        start, end = (int(x, 16) for x in parts[0].split("-"))
        if (len(parts) >= 6 and parts[5].endswith("statedump-mapped-file")
                and end - start == size and int(parts[2], 16) == MAP_OFFSET_PAGES * mmap.PAGESIZE):
            return start
    check(False, f"the mapping is not in /proc/self/maps: {lines}")


if __name__ == "__main__":
    run(test)
    sys.exit(0)
