#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Block and network events of the own-process kernel tier: alice and
bob, granted org.tracectl.Tracing1.trace-kernel-own, each record
`enable-event -k --own block:block_bio_queue,net:net_dev_queue` while
both run the same workload at the same time: direct writes of a file
(O_DIRECT, then fsync) on a filesystem with a block device (their home,
or an ext4 filesystem on a loop device the test makes), and UDP
datagrams to 127.0.0.1. Each one's <output>/kernel-own holds the bios of
their workload on that file's device, adding up to the bytes written, and
a net_dev_queue event on the loopback device per datagram, of the length
their workload sent; nothing of the other's processes and no value in the
kernel's address range. The events the tier cannot scope to the task
(requests issued or completed outside it, packets received) are refused."""

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, check, log, mount_tracefs, require, run
from owntierlib import cli_pid, kernel_addresses, polkit_rule
from tracelib import read_streams

ACTION = "org.tracectl.Tracing1.trace-kernel-own"
EVENTS = "block:block_bio_queue,net:net_dev_queue"
CHUNK, CHUNKS, ROUNDS = 65536, 3, 2
DATAGRAMS = 20
REQ_OP_WRITE = 1
REQ_META = 1 << 12
ETH_P_IP = 0x0800
UDP_IP_HEADERS, ETH_HEADER = 28, 14
# argv: directory, datagram payload size.
WORKLOAD = """import mmap, os, socket, sys, time
os.chdir(sys.argv[1])
size = int(sys.argv[2])
buf = mmap.mmap(-1, %d)
buf.write(b"x" * %d)
rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
rx.bind(("127.0.0.1", 0))
tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for round in range(%d):
    fd = os.open("io-file-%%d" %% round, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_DIRECT,
                 0o600)
    for _ in range(%d):
        os.write(fd, buf)
    os.fsync(fd)
    os.close(fd)
    for _ in range(%d):
        tx.sendto(b"y" * size, rx.getsockname())
        rx.recv(65536)
    time.sleep(0.05)
""" % (CHUNK, CHUNK, ROUNDS, CHUNKS, DATAGRAMS // ROUNDS)


def refused(svc, user, pattern):
    result = svc.cli("enable-event", "-k", "--own", pattern, user=user, check_ok=False)
    check(result.returncode != 0 and
          f"{pattern}: not available in the own-process tier" in result.stderr,
          f"{user.name}: --own {pattern!r} was not refused naming it: {result}")


def devices_of(st_dev):
    """The filesystem's device and, when it is a partition, its disk, which
    is what a bio may name once remapped."""
    major, minor = os.major(st_dev), os.minor(st_dev)
    devices = {(major, minor)}
    if os.path.exists(f"/sys/dev/block/{major}:{minor}/partition"):
        with open(f"/sys/dev/block/{major}:{minor}/../dev") as f:
            disk = f.read().strip().split(":")
        devices.add((int(disk[0]), int(disk[1])))
    return devices


@contextlib.contextmanager
def block_backed_dirs(users):
    """A directory per user on a filesystem with a block device: their
    home when it is on one, otherwise an ext4 filesystem on a loop device
    made for the test (skipped without losetup), removed after."""
    if all(os.major(os.stat(u.home).st_dev) != 0 for u in users.values()):
        yield {name: u.home for name, u in users.items()}
        return
    require(shutil.which("losetup") and shutil.which("mkfs.ext4"),
            "the homes are on no block device, and losetup or mkfs.ext4 is missing")
    top = tempfile.mkdtemp(prefix="tc-own-io-")
    os.chmod(top, 0o755)
    image, mount = os.path.join(top, "image"), os.path.join(top, "mnt")
    os.mkdir(mount)
    with open(image, "wb") as f:
        f.truncate(64 << 20)
    loop = subprocess.run(["losetup", "--find", "--show", image], capture_output=True,
                          text=True)
    if loop.returncode != 0:
        shutil.rmtree(top)
        require(False, f"losetup: {loop.stderr.strip()}")
    device = loop.stdout.strip()
    try:
        subprocess.run(["mkfs.ext4", "-q", device], check=True)
        subprocess.run(["mount", device, mount], check=True)
        dirs = {}
        for name, user in users.items():
            dirs[name] = os.path.join(mount, name)
            os.mkdir(dirs[name], 0o700)
            os.chown(dirs[name], user.uid, -1)
        yield dirs
    finally:
        subprocess.run(["umount", mount])
        subprocess.run(["losetup", "-d", device])
        shutil.rmtree(top)


def check_io_trace(name, path, pid, also, theirs, devices, size):
    events = read_streams(path)["events"]
    check(events, f"{name}: no events in {path}")
    for e in events:
        check(e.get("ctx_pid") == pid or e.get("ctx_pid") in also,
              f"{name}'s trace holds an event of pid {e.get('ctx_pid')} (workload {pid}, "
              f"also {sorted(also)}, the other's {sorted(theirs)}): {e}")
        bad = kernel_addresses(e)
        check(not bad, f"{name}'s trace holds kernel addresses {bad}: {e}")
    bios = [e for e in events if e["name"] == "block:block_bio_queue" and e["ctx_pid"] == pid]
    writes = [e for e in bios if (e["major"], e["minor"]) in devices and
              e["opf"] & 0xff == REQ_OP_WRITE and e["bytes"]]
    # The data itself; the filesystem's metadata that fsync() writes in the
    # task (REQ_META) comes on top, the journal is jbd2's.
    written = sum(e["bytes"] for e in writes if not e["opf"] & REQ_META)
    expected = CHUNK * CHUNKS * ROUNDS
    check(all(e["nr_sector"] * 512 == e["bytes"] for e in bios),
          f"{name}: sectors and bytes disagree: {bios}")
    check(written == expected,
          f"{name}: {written} bytes of data written on {sorted(devices)}, expected "
          f"{expected}: {writes}")
    lo = socket.if_nametoindex("lo")
    packets = [e for e in events if e["name"] == "net:net_dev_queue" and e["ctx_pid"] == pid]
    sent = [e for e in packets if e["ifindex"] == lo and e["protocol"] == ETH_P_IP and
            e["len"] in (size + UDP_IP_HEADERS, size + UDP_IP_HEADERS + ETH_HEADER)]
    check(len(sent) == DATAGRAMS,
          f"{name}: {len(sent)} datagrams of {size} bytes on lo (ifindex {lo}), expected "
          f"{DATAGRAMS}: {packets}")
    log(f"{name}: write bios (bytes, opf) {[(e['bytes'], hex(e['opf'])) for e in writes]}, "
        f"{written} bytes on {sorted(devices)}; "
        f"{len(sent)} datagrams on lo; {len(events)} events, all of their own processes")


def test():
    mount_tracefs()
    require(os.path.exists("/sys/kernel/btf/vmlinux"), "the kernel has no BTF")
    svc = Service()
    with tempfile.NamedTemporaryFile("w", suffix=".rules") as rule:
        rule.write(polkit_rule(ACTION, 'tcioalice', 'tciobob'))
        rule.flush()
        svc.installed.install(rule.name, "/etc/polkit-1/rules.d/59-tracectl-own-io-test.rules")
    with svc:
        users = {name: svc.add_user(f"tcio{name}") for name in ("alice", "bob")}
        sizes = {"alice": 333, "bob": 444}
        outputs, also = {}, {}
        for name, user in users.items():
            outputs[name] = os.path.join(user.home, "own-io")
            svc.cli("create", "own", "-o", outputs[name], user=user)
            result = svc.cli("enable-event", "-k", "--own", EVENTS, user=user, check_ok=False)
            require(not (result.returncode != 0 and "was not built" in result.stderr),
                    "tracectl-kernel-helper was built without the own-process tier")
            check(result.returncode == 0, f"{name}: enable-event -k --own {EVENTS}: {result}")
            for pattern in ("block:block_rq_issue", "block:block_rq_complete",
                            "net:netif_receive_skb", "net:net_dev_xmit"):
                refused(svc, user, pattern)
        with block_backed_dirs(users) as dirs:
            for name, user in users.items():
                also[name] = {cli_pid(svc, user, "start")}
            procs = {name: svc.app("-c", WORKLOAD, dirs[name], str(sizes[name]), user=user,
                                   program="/usr/bin/python3")
                     for name, user in users.items()}
            for name, proc in procs.items():
                _, err = proc.communicate(timeout=30)
                check(proc.returncode == 0, f"{name}'s workload failed: {err}")
            for name, user in users.items():
                also[name].add(cli_pid(svc, user, "stop"))
            devices = {name: devices_of(os.stat(d).st_dev) for name, d in dirs.items()}
        for name, user in users.items():
            theirs = {p.pid for n, p in procs.items() if n != name}
            theirs |= set().union(*(p for n, p in also.items() if n != name))
            check_io_trace(name, os.path.join(outputs[name], "kernel-own"), procs[name].pid,
                           also[name], theirs, devices[name], sizes[name])
        for user in users.values():
            svc.cli("destroy", "-a", user=user, check_ok=False)


run(test)
