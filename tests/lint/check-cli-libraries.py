#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The CLI maps only what every command needs: libxml2, which only the
reading of session files uses, and what it brings (ICU, liblzma,
libstdc++) are loaded when a file is read (common/session-file/
tc-libxml.c), never at start. Lists the libraries the dynamic loader
maps for the CLI, as ldd does. In a sanitized build the sanitizer
runtimes bring their own dependencies (libubsan needs libstdc++); those
are the build's, not the CLI's, and are not held against it."""

import os
import subprocess
import sys

UNWANTED = ("libxml2.so", "libicuuc.so", "libicudata.so", "liblzma.so", "libstdc++.so")
SANITIZER_RUNTIMES = ("libasan.so", "libubsan.so", "liblsan.so", "libtsan.so")


def loaded_objects(path, loader=None):
    """(name, resolved path or None) for every object the loader maps."""
    if loader:
        command, env = [loader, "--list", path], os.environ
    else:
        command, env = [path], dict(os.environ, LD_TRACE_LOADED_OBJECTS="1")
    listing = subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout
    objects = []
    for line in listing.splitlines():
        fields = line.split()
        if not fields:
            continue
        resolved = fields[2] if len(fields) > 2 and fields[1] == "=>" else None
        objects.append((fields[0], resolved))
    return objects


def runtime_dependencies(objects):
    """Names the sanitizer runtimes among objects map for themselves."""
    loader = next((name for name, _ in objects if "/ld-linux" in name), None)
    names = set()
    for name, resolved in objects:
        if name.startswith(SANITIZER_RUNTIMES) and resolved and loader:
            names.update(dep for dep, _ in loaded_objects(resolved, loader))
    return names


def main(cli):
    objects = loaded_objects(cli)
    names = [name for name, _ in objects]
    if not any(name.startswith("libglib-2.0.so") for name in names):
        print(f"the loader listed nothing like the CLI's libraries: {names}")
        return 1
    excused = runtime_dependencies(objects)
    loaded = [name for name in names if name.startswith(UNWANTED) and name not in excused]
    if loaded:
        print(f"{cli} maps at start what only some commands need: {loaded}")
        return 1
    note = f" ({' '.join(sorted(excused))} brought by the sanitizer runtimes)" if excused else ""
    print(f"{len(names)} libraries at start: {' '.join(names)}{note}")
    return 0


sys.exit(main(sys.argv[1]))
