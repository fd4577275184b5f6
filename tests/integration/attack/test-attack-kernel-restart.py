#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A killed or stuck kernel helper is replaced, and the replacement removes
only what belongs to sessions that are gone. Two sessions of a 'tracing'
member have uprobes, and a leftover instance and probe group of a session
that no longer exists are planted; the helper is killed (SIGKILL) and one
session destroyed: the next request starts a new helper, the destroyed
session's and the leftover's probes and instances are gone, the live
session's probe and instance are intact and it records again. Then the
helper is stopped (SIGSTOP): the request waiting on it fails within the
service's deadline with an error that says so, the next one works with a
new helper, and the live session's probe is still there."""

import os
import signal
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from kernelattacklib import copy_binary, helper_pids, instances, probe_groups, require_uprobes
from tclib import TRACEFS, Service, check, log, run, wait_for

LEFTOVER_SESSION = 999999
DEADLINE_S = 10  # REPLY_TIMEOUT_MS of service/tracectld/kernel/tc-kernel.c


def start_session(svc, user, name, program):
    before = instances()
    svc.cli("create", name, "--output", os.path.join(user.home, name), user=user)
    svc.cli("enable-event", "-k", "sched:sched_switch", user=user)
    svc.cli("enable-event", "-k", "--userspace-probe", f"{program}:main", f"p{name}",
            user=user)
    svc.cli("start", user=user)
    new = [n for n in instances() if n not in before]
    check(len(new) == 1, f"session {name}: instances {new}")
    return int(new[0].split("-")[1])


def plant_leftover(program, like):
    """A leftover in the service's scope, the upper 32 bits of the helper's
    session ids, which like (one of its sessions) shows."""
    leftover = (like >> 32) << 32 | LEFTOVER_SESSION
    os.mkdir(os.path.join(TRACEFS, "instances", f"tracectl-{leftover}"))
    fd = os.open(os.path.join(TRACEFS, "uprobe_events"), os.O_WRONLY | os.O_APPEND)
    try:
        os.write(fd, f"p:tracectl_{leftover}/old {program}:0x1000\n".encode())
    finally:
        os.close(fd)
    return leftover


def kill_helper(svc, how):
    pids = helper_pids(svc)
    check(len(pids) == 1, f"kernel helpers: {pids}")
    os.kill(pids[0], how)
    return pids[0]


def test():
    require_uprobes()
    with Service() as svc:
        user = svc.add_user("tctest-kattacker", groups=("tracing",))
        program = copy_binary(os.path.join(user.home, "prog"), owner=user)
        one = start_session(svc, user, "one", program)
        two = start_session(svc, user, "two", program)
        leftover = plant_leftover(program, two)
        groups = probe_groups()
        check(f"tracectl_{one}/pone" in groups and f"tracectl_{two}/ptwo" in groups,
              f"probes: {sorted(groups)}")

        old = kill_helper(svc, signal.SIGKILL)
        svc.cli("destroy", "one", user=user)  # the next request, on a new helper
        check(helper_pids(svc) not in ([], [old]), f"helpers: {helper_pids(svc)}")
        groups = probe_groups()
        check(f"tracectl_{two}/ptwo" in groups, f"the live session's probe is gone: {groups}")
        check(f"tracectl_{one}/pone" not in groups, "the destroyed session's probe is left")
        check(f"tracectl_{leftover}/old" not in groups, "the leftover probe is left")
        check(instances() == [f"tracectl-{two}"], f"instances: {instances()}")
        svc.cli("stop", "two", user=user)
        svc.cli("start", "two", user=user)

        kill_helper(svc, signal.SIGSTOP)
        result, took = svc.timed_cli("stop", "two", user=user, check_ok=False)
        log(f"stop with a stopped helper: {result.stderr.strip()} ({took:.1f} s)")
        check(result.returncode != 0 and "did not answer within" in result.stderr,
              f"stop with a stopped helper: {result}")
        check(took < DEADLINE_S + 5, f"the stuck request took {took:.1f} s")
        wait_for(lambda: len(helper_pids(svc)) == 0, 10, "the stuck helper to be killed")
        # The session counts as stopped; it starts and stops again.
        svc.cli("start", "two", user=user)
        svc.cli("stop", "two", user=user)
        check(f"tracectl_{two}/ptwo" in probe_groups(), "the live session's probe is gone")
        check(instances() == [f"tracectl-{two}"], f"instances: {instances()}")
        svc.cli("destroy", "two", user=user)
        check(not any(g.startswith("tracectl_") for g in probe_groups()),
              f"probes left: {probe_groups()}")
        check(instances() == [], f"instances left: {instances()}")
        check(svc.alive(), "tracectld died")


run(test)
