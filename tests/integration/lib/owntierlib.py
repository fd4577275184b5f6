# SPDX-License-Identifier: LGPL-2.1-or-later
"""What the own-process kernel tier's integration tests share: the polkit
rule that grants the tier to their users, the tracectl calls whose pids
may show in a user's own trace, and the search for kernel addresses in a
recorded event."""

import subprocess

from ownringlib import KERNEL_HIGH, KERNEL_LOW
from tclib import TRACECTL, check


def polkit_rule(action, *user_names):
    """A rules file's text granting action to the users named."""
    who = " || ".join(f'subject.user == "{name}"' for name in user_names)
    return ("polkit.addRule(function(action, subject) {\n"
            f'    if (action.id == "{action}" && ({who}))\n'
            "        return polkit.Result.YES;\n"
            "});\n")


def kernel_addresses(event):
    """The integers of an event (as 64 bits) that fall among the kernel's
    addresses, in hex."""
    found = []
    for key, value in event.items():
        if key in ("name", "ts"):
            continue
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, int) and KERNEL_LOW <= (v & (2**64 - 1)) < KERNEL_HIGH:
                found.append(hex(v & (2**64 - 1)))
    return found


def cli_pid(svc, user, *args):
    """Runs tracectl ARGS as user; its pid, for it is user's process too
    and may be in user's trace."""
    proc = subprocess.Popen(svc._as(user) + [TRACECTL, *args], env=svc.env(user),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=user.home)
    _, err = proc.communicate(timeout=60)
    check(proc.returncode == 0, f"tracectl {' '.join(args)} as {user.name}: {err}")
    return proc.pid
