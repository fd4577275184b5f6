#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""An unprivileged member of 'tracing' tries to make the root kernel helper
write commands of its own into uprobe_events: a uprobe location holding a
newline and a second probe definition ('<dir>/a:0x0<newline>p:evil/pw
/bin/true:0x0 #/p:main', with every file it names in place, so that only
the checks stand in the way), and other hostile characters in locations,
probe names and event patterns. Each is refused with InvalidArgument
naming the character and its position; uprobe_events and dynamic_events
then hold exactly the one probe the owner asked for properly, and nothing
once the session is destroyed."""

import os
import pwd
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from kernelattacklib import (INVALID, add_probe_gdbus, copy_binary, probe_lines, require_uprobes)
from tclib import Service, check, log, run


def hostile_locations(d):
    return [
        f"{d}/a:0x0\np:evil/pw /bin/true:0x0 #/p:main",  # a second command
        f"{d}/a:main\n-:tracectl_1/x",                    # removes another's probe
        f"{d}/a b:main", f"{d}/a\t:main", f"{d}/a#x:main", f"{d}/a;x:main",
        f"{d}/../{os.path.basename(d)}/a:main", f"{d}/./a:main", f"{d}//a:main",
        f"{d}/:main", "relative/a:main", f"{d}/a:0x0:main", f"{d}/a:ma in",
        f"{d}/a:main(0x10)", f"{d}/a:", f"{d}/a", f"{d}/\u00e9:main", f"{d}/a:%si",
    ]


def test():
    require_uprobes()
    with Service() as svc:
        mallory = svc.add_user("tctest-kattacker", groups=("tracing",))
        gid = pwd.getpwnam(mallory.name).pw_gid
        d = os.path.join(mallory.home, "inj")
        # Every file the injected text names exists: <d>/a, and the nested
        # path the old check took for the file (up to the last ':').
        nested = os.path.join(d, "a:0x0\np:evil", "pw ", "bin", "true:0x0 #")
        os.makedirs(nested)
        copy_binary(os.path.join(d, "a"))
        copy_binary(os.path.join(nested, "p"))
        for root, dirs, files in os.walk(d):
            for name in [root] + [os.path.join(root, n) for n in dirs + files]:
                os.chown(name, mallory.uid, gid)
        baseline = probe_lines()

        out = os.path.join(mallory.home, "trace")
        svc.cli("create", "m", "--output", out, user=mallory)
        svc.cli("enable-event", "-k", "sched:sched_switch", user=mallory)
        svc.cli("start", user=mallory)
        svc.cli("enable-event", "-k", "--userspace-probe", f"{d}/a:main", "legit", user=mallory)

        for location in hostile_locations(d):
            result = svc.cli("enable-event", "-k", "--userspace-probe", location, "inj",
                             user=mallory, check_ok=False)
            check(result.returncode != 0, f"location {location!r} was accepted")
            check("is refused at" in result.stderr and "position" in result.stderr,
                  f"location {location!r}: no named character: {result.stderr.strip()}")
        for name in ("bad name", "x\ny", "1abc", "a-b", "a:b", "x" * 64):
            result = svc.cli("enable-event", "-k", "--userspace-probe", f"{d}/a:main", name,
                             user=mallory, check_ok=False)
            check(result.returncode != 0 and "refused at" in result.stderr,
                  f"probe name {name!r}: {result}")
        for location in ("sym\np:evil/x /bin/true:0x0", "sym x", "+0x10", "sym+", "a:b"):
            result = svc.cli("enable-event", "-k", "--probe", location, "kp", user=mallory,
                             check_ok=False)
            check(result.returncode != 0 and "refused at" in result.stderr,
                  f"kprobe location {location!r}: {result}")
        for pattern in ("sched:sch\ned", "sched:sched switch", "sch/ed:x", "a:b:c",
                        "sched:sched_switch\n-:tracectl_1/x"):
            result = svc.cli("enable-event", "-k", pattern, user=mallory, check_ok=False)
            check(result.returncode != 0 and "refused at" in result.stderr,
                  f"event pattern {pattern!r}: {result}")
        # The error's name on the bus, and its text: the character, escaped.
        result = add_probe_gdbus(svc, mallory, "m", "uprobe", "inj",
                                 hostile_locations(d)[0])
        check(INVALID in result.stderr and "'\\n' (0x0a) at position" in result.stderr,
              f"AddKernelProbe: {result.stderr.strip()}")
        log(result.stderr.strip())

        added = [line for line in probe_lines() if line not in baseline]
        check(len(added) == 1 and added[0].startswith("p:tracectl_") and
              "/legit " in added[0], f"dynamic events besides the owner's probe: {added}")
        check(not any("evil" in line for line in probe_lines()), "an injected probe exists")
        svc.cli("stop", user=mallory)
        svc.cli("destroy", "m", user=mallory)
        left = [line for line in probe_lines() if line not in baseline]
        check(left == [], f"dynamic events left after destroy: {left}")
        check(svc.alive(), "tracectld died")


run(test)
