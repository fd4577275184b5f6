#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Check-then-use: an unprivileged member of 'tracing' asks for uprobes on
a symlink it swaps, as fast as it can, between a program it may read and
a root-only (0700) copy of it, while it asks for probe after probe. The
helper checks the path with the owner's rights; the probe must land on
the file that was checked, never on the root-only one. Proof: running the
root-only copy hits none of the probes, running the readable one hits
every probe that was added."""

import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from kernelattacklib import as_user, copy_binary, require_uprobes, uprobe_hits
from tclib import Service, check, log, run

ATTEMPTS = 150
BUDGET_S = 35

SWAPPER = r"""
import os, sys
link, readable, secret = sys.argv[1:4]
tmp = link + ".tmp"
while True:
    for target in (readable, secret):
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        os.symlink(target, tmp)
        os.rename(tmp, link)
"""


def test():
    require_uprobes()
    secret_dir = tempfile.mkdtemp(prefix="tc-swap-")
    os.chmod(secret_dir, 0o755)
    try:
        with Service() as svc:
            mallory = svc.add_user("tctest-kattacker", groups=("tracing",))
            d = os.path.join(mallory.home, "swap")
            os.makedirs(d)
            readable = copy_binary(os.path.join(d, "readable"), owner=mallory)
            os.chown(d, mallory.uid, os.stat(readable).st_gid)
            secret = copy_binary(os.path.join(secret_dir, "secret"), mode=0o700)
            link = os.path.join(d, "link")
            os.symlink(readable, link)
            os.lchown(link, mallory.uid, os.stat(readable).st_gid)

            svc.cli("create", "m", "--output", os.path.join(mallory.home, "t"), user=mallory)
            svc.cli("enable-event", "-k", "sched:sched_switch", user=mallory)
            svc.cli("start", user=mallory)
            swapper = as_user(mallory, SWAPPER, link, readable, secret, background=True)
            added, refused = [], 0
            deadline = time.monotonic() + BUDGET_S
            try:
                for i in range(ATTEMPTS):
                    if time.monotonic() > deadline:
                        break
                    result = svc.cli("enable-event", "-k", "--userspace-probe",
                                     f"{link}:main", f"swap{i}", user=mallory, check_ok=False)
                    if result.returncode == 0:
                        added.append(f"swap{i}")
                    else:
                        refused += 1
            finally:
                swapper.kill()
                swapper.wait()
            log(f"{len(added)} probes added, {refused} refused while the link was swapped")
            check(added and refused, "the swap was not exercised both ways")

            def hits():
                return {event: count for event, count in uprobe_hits().items()
                        if event in added}
            before = hits()
            check(len(before) == len(added), f"{len(before)} of {len(added)} probes listed")
            subprocess.run([secret, "--version"], capture_output=True, check=True)
            on_secret = [e for e, n in hits().items() if n != before[e]]
            check(on_secret == [], f"probes on the root-only file: {on_secret}")
            subprocess.run([readable, "--version"], capture_output=True, check=True)
            missed = [e for e, n in hits().items() if n == before[e]]
            check(missed == [], f"probes not on the checked file: {missed}")
            svc.cli("stop", user=mallory)
            svc.cli("destroy", "m", user=mallory)
    finally:
        subprocess.run(["rm", "-rf", secret_dir], check=False)


run(test)
