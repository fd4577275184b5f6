#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Files that used to stop the root kernel helper, given as uprobe targets
by an unprivileged member of 'tracing': a FIFO (opening it waited for a
writer), a device and a directory, an ELF whose section headers point past
its end, an ELF bigger than the helper reads (a sparse file), one with
more symbols than it walks, and one truncated again and again while the
helper parses it (the mapped file raised SIGBUS). Each is refused at once
with an error that says why, the helper stays the same process, and
meanwhile another user's kernel session (create -k, sched_switch, start,
stop, a non-empty trace, destroy) goes on without a slow command."""

import os
import shutil
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from kernelattacklib import (Victim, as_user, copy_binary, elf_with_symbols, helper_pids,
                     require_uprobes)
from tclib import Service, check, log, run

TRUNCATIONS = 12

# The big ELF is sparse (72 MiB of symbol table, a few kB of data), and so
# are its copies: a plain copy would write the holes out, gigabytes over
# the loop, and the victim's commands would then wait on the disk (the
# CLI's fsync of its configuration behind ext4's journal), not on tracectl.
TRUNCATOR = r"""
import os, sys, time
source, target = sys.argv[1:3]

def sparse_copy(source, target):
    with open(source, "rb") as s, open(target, "wb") as t:
        size = os.fstat(s.fileno()).st_size
        offset = 0
        while offset < size:
            try:
                data = os.lseek(s.fileno(), offset, os.SEEK_DATA)
            except OSError:
                break
            hole = os.lseek(s.fileno(), data, os.SEEK_HOLE)
            s.seek(data)
            t.seek(data)
            t.write(s.read(hole - data))
            offset = hole
        t.truncate(size)

while True:
    sparse_copy(source, target + ".new")
    os.rename(target + ".new", target)
    time.sleep(0.002)
    with open(target, "r+b") as f:
        f.truncate(4096)
    time.sleep(0.002)
"""


def refused(svc, user, location, name, why):
    result, took = svc.timed_cli("enable-event", "-k", "--userspace-probe", location, name,
                                 user=user, check_ok=False, timeout=60)
    check(result.returncode != 0, f"{location}: accepted")
    check(why in result.stderr, f"{location}: not '{why}': {result.stderr.strip()}")
    check(took < 3, f"{location}: refused after {took:.1f} s")
    log(f"{os.path.basename(location)}: {result.stderr.strip()} ({took:.2f} s)")


def test():
    require_uprobes()
    with Service() as svc:
        mallory = svc.add_user("tctest-kattacker", groups=("tracing",))
        carol = svc.add_user("tctest-kvictim", groups=("tracing",))
        d = os.path.join(mallory.home, "targets")
        os.makedirs(d)
        os.mkfifo(os.path.join(d, "fifo"))
        os.makedirs(os.path.join(d, "dir"))
        short = copy_binary(os.path.join(d, "short"))
        with open(short, "r+b") as f:
            f.truncate(os.path.getsize(short) * 2 // 5)  # the section headers are at the end
        elf_with_symbols(os.path.join(d, "oversized"), 1, file_size=(4 << 30) + 4096)
        elf_with_symbols(os.path.join(d, "many-symbols"), 5 << 20)
        elf_with_symbols(os.path.join(d, "big.src"), 3 << 20)
        elf_with_symbols(os.path.join(d, "big"), 3 << 20)
        shutil.chown(d, mallory.name, mallory.name)
        for name in os.listdir(d):
            shutil.chown(os.path.join(d, name), mallory.name, mallory.name)

        svc.cli("create", "m", "--output", os.path.join(mallory.home, "t"), user=mallory)
        svc.cli("enable-event", "-k", "sched:sched_switch", user=mallory)
        svc.cli("start", user=mallory)
        helpers = helper_pids(svc)
        check(len(helpers) == 1, f"kernel helpers: {helpers}")
        with Victim(svc, carol) as victim:
            refused(svc, mallory, f"{d}/fifo:main", "fifo", "not a regular file")
            refused(svc, mallory, f"{d}/dir:main", "dir", "not a regular file")
            refused(svc, mallory, "/dev/null:main", "dev", "not a regular file")
            refused(svc, mallory, f"{short}:main", "short", "point past its end")
            refused(svc, mallory, f"{d}/oversized:f", "big", "bigger than 4096 MiB")
            refused(svc, mallory, f"{d}/many-symbols:f", "many", "exceed the kernel helper's")
            truncator = as_user(mallory, TRUNCATOR, f"{d}/big.src", f"{d}/big",
                                background=True)
            outcomes = {}
            try:
                for i in range(TRUNCATIONS):
                    result = svc.cli("enable-event", "-k", "--userspace-probe", f"{d}/big:f",
                                     f"t{i}", user=mallory, check_ok=False, timeout=60)
                    why = "added" if result.returncode == 0 else result.stderr.strip()
                    outcomes[why] = outcomes.get(why, 0) + 1
            finally:
                truncator.kill()
                truncator.wait()
            log(f"truncated while parsed: {outcomes}")
            clear = ("added", "point past its end", "no function named", "not a regular")
            check(all(any(c in why for c in clear) for why in outcomes),
                  f"unclear outcomes: {outcomes}")
            time.sleep(1.5)  # a full round of the victim with the helper idle
        check(helper_pids(svc) == helpers, f"the helper was replaced: {helper_pids(svc)}")
        victim.check()
        svc.cli("stop", user=mallory)
        svc.cli("destroy", "m", user=mallory)
        check(svc.alive(), "tracectld died")


run(test)
