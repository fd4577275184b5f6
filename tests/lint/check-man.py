#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The manual pages: every command of `tracectl --help` has a page, every
option of `tracectl COMMAND --help` (and every global option) is in its
page, every page renders without a warning, and every man: reference of
the files in data/ names a page that exists.

Usage: check-man.py TRACECTL SOURCE_ROOT [GENERATED_PAGE...]"""

import glob
import os
import re
import subprocess
import sys

TRACECTL, SOURCE, GENERATED = sys.argv[1], sys.argv[2], sys.argv[3:]
PAGE_DIRS = ("client/man", "service/man", "probes/man")
failures = []


def fail(message):
    failures.append(message)
    print("FAIL:", message)


def pages():
    found = {}
    for directory in PAGE_DIRS:
        for path in glob.glob(os.path.join(SOURCE, directory, "*.[1-8]")):
            name, section = os.path.basename(path).rsplit(".", 1)
            found[(name, section)] = path
    for path in GENERATED:
        name, section = os.path.basename(path).rsplit(".", 1)
        found[(name, section)] = path
    return found


def render(path):
    """The page as plain ASCII text, and the warnings man gave."""
    env = dict(os.environ, LC_ALL="C", MANWIDTH="200", MAN_KEEP_FORMATTING="")
    proc = subprocess.run(["man", "--warnings", "-l", path], env=env,
                          capture_output=True, text=True)
    text = re.sub(r".\x08", "", proc.stdout)
    return text, proc.stderr.strip() if proc.returncode == 0 else f"exit {proc.returncode}: {proc.stderr}"


def help_text(*args):
    proc = subprocess.run([TRACECTL, *args, "--help"], capture_output=True, text=True,
                          env=dict(os.environ, LC_ALL="C"))
    return proc.stdout


def options(text):
    """The long options a --help lists, --help aside."""
    found = set(re.findall(r"^\s+(?:-\w, )?(--[a-z][a-z0-9-]*)", text, re.M))
    return found - {"--help"}


def commands():
    text = help_text()
    block = text.split("Commands:\n", 1)[1].split("\n\n", 1)[0]
    return [line.split()[0] for line in block.splitlines() if line.strip()]


def main():
    found = pages()
    rendered = {}
    for key, path in sorted(found.items()):
        text, warnings = render(path)
        rendered[key] = text
        if warnings:
            fail(f"{os.path.relpath(path, SOURCE)} renders with warnings: {warnings}")

    top = rendered.get(("tracectl", "1"), "")
    if not top:
        fail("no tracectl(1)")
    for option in options(help_text()):
        if option not in top:
            fail(f"tracectl(1) does not describe the global option {option}")
    for command in commands():
        page = rendered.get((f"tracectl-{command}", "1"))
        if page is None:
            fail(f"no page tracectl-{command}(1)")
            continue
        if f"tracectl-{command}(1)" not in top:
            fail(f"tracectl(1) does not list tracectl-{command}(1)")
        for option in options(help_text(command)):
            if not re.search(re.escape(option) + r"\b", page):
                fail(f"tracectl-{command}(1) does not describe {option}")

    for path in glob.glob(os.path.join(SOURCE, "data", "*")):
        with open(path, errors="replace") as f:
            for name, section in re.findall(r"man:([\w.@-]+)\((\d)\)", f.read()):
                if (name, section) not in found:
                    fail(f"{os.path.relpath(path, SOURCE)} refers to man:{name}({section}), "
                         "which does not exist")

    print(f"{len(found)} pages checked")
    return 1 if failures else 0


sys.exit(main())
