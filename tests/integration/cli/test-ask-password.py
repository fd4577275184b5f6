#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Asking instead of refusing: on a terminal (a pseudo-terminal from
script(1)), a call that polkit grants only to an administrator makes the CLI
start a text agent, which prompts; with --no-ask-password, or without a
terminal, no agent is started and the call is refused at once."""

import os
import shlex
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import TRACECTL, Service, check, require, run

PROMPT = "AUTHENTICATING FOR org.tracectl.Tracing1.trace-kernel"


def on_terminal(svc, user, *args):
    """Runs tracectl as user on a pseudo-terminal where wrong passwords
    are typed: the agent prompts, polkit refuses them, the call is refused."""
    command = " ".join(shlex.quote(a) for a in svc._as(user) + [TRACECTL, *args])
    proc = subprocess.run(["script", "-qec", command, "/dev/null"], env=svc.env(user),
                          input="wrong\n" * 4, capture_output=True, text=True,
                          timeout=60, cwd=user.home)
    return proc


def test():
    require(shutil.which("script"), "script (util-linux) is not installed")
    require(shutil.which("pkttyagent"), "pkttyagent (polkitd) is not installed")
    with Service() as svc:
        carol = svc.add_user("tctest-carol")  # not in the tracing group
        # polkit asks for an administrator's password (Debian: the sudo
        # group's members); without one it refuses without asking.
        svc.add_user("tctest-admin", groups=("sudo",))

        asked = on_terminal(svc, carol, "list", "-k")
        check(PROMPT in asked.stdout, f"no agent prompted on a terminal: {asked}")
        check(asked.returncode == 4, f"unanswered prompt, yet status {asked.returncode}")

        refused = on_terminal(svc, carol, "--no-ask-password", "list", "-k")
        check("AUTHENTICATING" not in refused.stdout,
              f"an agent prompted despite --no-ask-password: {refused}")
        check(refused.returncode == 4, f"--no-ask-password: {refused}")

        # No terminal: refused, no agent.
        plain = svc.cli("list", "-k", user=carol, check_ok=False)
        check(plain.returncode == 4 and "AUTHENTICATING" not in plain.stdout + plain.stderr,
              f"without a terminal: {plain}")


run(test)
