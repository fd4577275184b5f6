#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The CLI maps only what every command needs: libxml2, which only the
reading of session files uses, and what it brings (ICU, liblzma,
libstdc++) are loaded when a file is read (common/session-file/
tc-libxml.c), never at start. Lists the libraries the dynamic loader
maps for the CLI, as ldd does."""

import os
import subprocess
import sys

UNWANTED = ("libxml2.so", "libicuuc.so", "libicudata.so", "liblzma.so", "libstdc++.so")


def main(cli):
    env = dict(os.environ, LD_TRACE_LOADED_OBJECTS="1")
    listing = subprocess.run([cli], env=env, capture_output=True, text=True, check=True).stdout
    names = [line.split()[0] for line in listing.splitlines() if line.strip()]
    if not any(name.startswith("libglib-2.0.so") for name in names):
        print(f"the loader listed nothing like the CLI's libraries: {names}")
        return 1
    loaded = [name for name in names if name.startswith(UNWANTED)]
    if loaded:
        print(f"{cli} maps at start what only some commands need: {loaded}")
        return 1
    print(f"{len(names)} libraries at start: {' '.join(names)}")
    return 0


sys.exit(main(sys.argv[1]))
