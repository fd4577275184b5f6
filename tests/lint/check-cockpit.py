#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Cockpit page (cockpit/) holds together without a browser: its
manifest is JSON with a page Cockpit lists; the files index.html loads
and the modules the scripts import are there; every element the scripts
look up by id is in index.html; every file of the folder is installed
(cockpit/meson.build lists it); and each script parses as a JavaScript
module (node --check, when Node.js is installed: the page has no build
step that would find a syntax error).

    check-cockpit.py COCKPIT_DIR
"""

import json
import os
import re
import shutil
import subprocess
import sys


def main(folder):
    faults = []
    files = sorted(name for name in os.listdir(folder) if name != "meson.build")

    with open(os.path.join(folder, "manifest.json")) as f:
        manifest = json.load(f)
    pages = [name for section in ("menu", "tools") for name in manifest.get(section, {})]
    if not pages:
        faults.append("manifest.json lists no page under menu or tools")
    for page in pages:
        if f"{page}.html" not in files:
            faults.append(f"manifest.json lists {page}, and there is no {page}.html")

    with open(os.path.join(folder, "meson.build")) as f:
        installed = set(re.findall(r"'([^']+\.(?:json|html|css|js))'", f.read()))
    for name in files:
        if name not in installed:
            faults.append(f"{name} is not installed: add it to cockpit/meson.build")
    for name in installed - set(files):
        faults.append(f"cockpit/meson.build installs {name}, which is not there")

    with open(os.path.join(folder, "index.html")) as f:
        html = f.read()
    ids = set(re.findall(r'\bid="([^"]+)"', html))
    for reference in re.findall(r'\b(?:src|href)="([^"#:]+)"', html):
        # ../base1/cockpit.js and the like are Cockpit's own packages.
        if not reference.startswith("../") and reference not in files:
            faults.append(f"index.html loads {reference}, which is not there")

    node = shutil.which("node") or shutil.which("nodejs")
    for name in (n for n in files if n.endswith(".js")):
        with open(os.path.join(folder, name)) as f:
            script = f.read()
        # An import may list its names over several lines.
        for imported in re.findall(r'^import [^;]* from "\./([^"]+)";', script, re.MULTILINE):
            if imported not in files:
                faults.append(f"{name} imports {imported}, which is not there")
        for wanted in sorted(set(re.findall(r'\$\("([^"]+)"\)', script))):
            if wanted not in ids:
                faults.append(f"{name} looks up #{wanted}, which index.html does not have")
        if node:
            parsed = subprocess.run([node, "--check", "--input-type=module"], input=script,
                                    capture_output=True, text=True)
            if parsed.returncode != 0:
                faults.append(f"{name} does not parse as a module:\n{parsed.stderr}")
    if not node:
        print("Node.js is not installed: the scripts' syntax is not checked")

    for fault in faults:
        print(fault)
    return 1 if faults else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: check-cockpit.py COCKPIT_DIR")
    sys.exit(main(sys.argv[1]))
