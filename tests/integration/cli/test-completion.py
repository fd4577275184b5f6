#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The bash, zsh and fish completions of tracectl: commands and options from
the CLI's own --help, and the caller's session, channel and event names from
the service. bash's function is driven as bash does (COMP_WORDS, COMP_CWORD);
zsh's with words and CURRENT, compadd and _describe replaced by functions
that print what they are given (zsh filters by the prefix itself); fish's
through fish's own complete -C, which filters by the prefix."""

import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import SOURCE, TRACECTL, Service, check, run

SCRIPT = os.path.join(SOURCE, "client", "completion", "tracectl.bash")
ZSH_SCRIPT = os.path.join(SOURCE, "client", "completion", "_tracectl")
FISH_SCRIPT = os.path.join(SOURCE, "client", "completion", "tracectl.fish")
ZSH_STUBS = """
compadd() {
    while [[ $1 == -* && $1 != -- ]]; do [[ $1 == -S ]] && shift; shift; done
    [[ $1 == -- ]] && shift
    print -l -- "$@"
}
compset() { PREFIX=${PREFIX#$2}; }
_describe() { local -a described; described=("${(@P)4}"); print -l -- ${described%%:*} }
"""


def complete(svc, user, *words):
    """What the completion offers for words, the last being the one typed."""
    words = [TRACECTL, *words]
    array = " ".join("'" + w.replace("'", "'\\''") + "'" for w in words)
    script = (f"source '{SCRIPT}'\n"
              "complete -p tracectl\n"
              f"COMP_WORDS=({array}); COMP_CWORD={len(words) - 1}\n"
              f"COMP_LINE=\"${{COMP_WORDS[*]}}\"\n"
              "_tracectl\n"
              "printf '%s\\n' \"${COMPREPLY[@]}\"\n")
    proc = subprocess.run(svc._as(user) + ["bash", "--norc", "-c", script], env=svc.env(user),
                          capture_output=True, text=True, timeout=60, cwd=user.home)
    check(proc.returncode == 0, f"completion of {words}: {proc}")
    lines = proc.stdout.splitlines()
    check(lines and lines[0] == "complete -F _tracectl tracectl", f"complete -p: {proc}")
    return sorted(line for line in lines[1:] if line)


def complete_zsh(svc, user, *words):
    words = [TRACECTL, *words]
    array = " ".join("'" + w.replace("'", "'\\''") + "'" for w in words)
    script = (ZSH_STUBS + f"words=({array}); CURRENT={len(words)}; PREFIX={array.split()[-1]}\n"
              f"source '{ZSH_SCRIPT}'\n")
    proc = subprocess.run(svc._as(user) + ["zsh", "-f", "-c", script], env=svc.env(user),
                          capture_output=True, text=True, timeout=60, cwd=user.home)
    check(proc.returncode == 0, f"zsh completion of {words}: {proc}")
    return sorted(line for line in proc.stdout.splitlines() if line.startswith(words[-1]))


def test_zsh(svc, alice, bob):
    got = complete_zsh(svc, alice, "st")
    check(got == ["start", "status", "stop"], f"zsh: commands: {got}")
    got = complete_zsh(svc, alice, "enable-channel", "--sub")
    check(got == ["--subbuf-size="], f"zsh: an option of enable-channel: {got}")
    got = complete_zsh(svc, alice, "start", "")
    check(got == ["alpha", "beta"], f"zsh: alice's sessions: {got}")
    got = complete_zsh(svc, alice, "disable-channel", "-u", "")
    check(got == ["fast"], f"zsh: the current session's channels: {got}")
    got = complete_zsh(svc, alice, "enable-event", "-u", "example:")
    check(got and all(name.startswith("example:") for name in got), f"zsh: events: {got}")
    got = complete_zsh(svc, bob, "enable-event", "-u", "exa")
    check(got == [], f"zsh: bob sees alice's events: {got}")


def complete_fish(svc, user, *words):
    line = " ".join([TRACECTL, *words])
    script = f"source '{FISH_SCRIPT}'; complete -C '{line}'"
    proc = subprocess.run(svc._as(user) + ["fish", "--no-config", "-c", script],
                          env=svc.env(user), capture_output=True, text=True, timeout=60,
                          cwd=user.home)
    check(proc.returncode == 0, f"fish completion of {words}: {proc}")
    # Each line is a candidate, then a tab and its description if it has one.
    return sorted(line.split("\t", 1)[0] for line in proc.stdout.splitlines() if line)


def test_fish(svc, alice, bob):
    got = complete_fish(svc, alice, "st")
    check(got == ["start", "status", "stop"], f"fish: commands: {got}")
    got = complete_fish(svc, alice, "enable-ev")
    check(got == ["enable-event"], f"fish: a command: {got}")
    got = complete_fish(svc, alice, "enable-channel", "--sub")
    check(got == ["--subbuf-size="], f"fish: an option of enable-channel: {got}")
    got = complete_fish(svc, alice, "start", "")
    check(got == ["alpha", "beta"], f"fish: alice's sessions: {got}")
    got = complete_fish(svc, alice, "stop", "--session=a")
    check(got == ["--session=alpha"], f"fish: --session's value: {got}")
    got = complete_fish(svc, alice, "disable-channel", "-u", "")
    check(got == ["fast"], f"fish: the current session's channels: {got}")
    got = complete_fish(svc, alice, "enable-event", "-u", "example:")
    check(got and all(name.startswith("example:") for name in got), f"fish: events: {got}")
    got = complete_fish(svc, bob, "enable-event", "-u", "exa")
    check(got == [], f"fish: bob sees alice's events: {got}")


def test():
    with Service() as svc:
        alice = svc.add_user("tctest-alice")
        bob = svc.add_user("tctest-bob")
        svc.cli("create", "beta", user=alice)
        svc.cli("create", "alpha", user=alice)
        svc.cli("enable-channel", "-u", "fast", user=alice)
        svc.cli("create", "bobs", user=bob)
        app = svc.app("--pause", user=alice, wait_ready=True)

        got = complete(svc, alice, "st")
        check(got == ["start", "status", "stop"], f"commands: {got}")
        got = complete(svc, alice, "enable-channel", "--sub")
        check(got == ["--subbuf-size="], f"an option of enable-channel: {got}")
        got = complete(svc, alice, "--js")
        check("--json" in got and "--json=short" in got, f"global options: {got}")
        got = complete(svc, alice, "start", "")
        check(got == ["alpha", "beta"], f"alice's sessions (none of bob's): {got}")
        got = complete(svc, alice, "stop", "-s", "a")
        check(got == ["alpha"], f"--session's value: {got}")
        got = complete(svc, alice, "disable-channel", "-u", "")
        check(got == ["fast"], f"the current session's channels: {got}")
        got = complete(svc, alice, "enable-event", "-u", "exa")
        check(got and all(name.startswith("example:") for name in got),
              f"the events of alice's applications: {got}")
        # bash splits words at the colon: only what follows it is offered.
        first = got[0].split(":", 1)[1]
        got = complete(svc, alice, "enable-event", "-u", "example", ":", first[:2])
        check(first in got, f"after the colon: {got}")
        got = complete(svc, bob, "enable-event", "-u", "exa")
        check(got == [], f"bob sees alice's events: {got}")
        if shutil.which("zsh"):
            test_zsh(svc, alice, bob)
        else:
            print("zsh is not installed: its completion is not checked")
        if shutil.which("fish"):
            test_fish(svc, alice, bob)
        else:
            print("fish is not installed: its completion is not checked")
        app.kill()
        app.wait()


run(test)
