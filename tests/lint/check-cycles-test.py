#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""tools/check-cycles on small source trees made here: it passes a tree
that keeps its layers, and fails, naming the fault, on an include into a
higher or sibling folder, a folder missing from the layers file, a cycle,
a GVariant below the front ends, and an exception that no longer occurs.

Usage: check-cycles-test.py CHECK_CYCLES"""

import os
import subprocess
import sys
import tempfile

CHECK = sys.argv[1]
LAYERS = 'low\nmid\nfront other\n'
failures = []


def run(files, layers=LAYERS):
    with tempfile.TemporaryDirectory() as tree:
        for path, text in files.items():
            os.makedirs(os.path.join(tree, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(tree, path), 'w', encoding='utf-8') as fp:
                fp.write(text)
        if layers is not None:
            with open(os.path.join(tree, 'layers'), 'w', encoding='utf-8') as fp:
                fp.write(layers)
        done = subprocess.run([sys.executable, CHECK, tree], capture_output=True, text=True)
        return done.returncode, done.stdout + done.stderr


def expect(name, files, status, text, layers=LAYERS):
    got, out = run(files, layers)
    if got != status or text not in out:
        failures.append(f'{name}: status {got}, wanted {status} with "{text}":\n{out}')


CLEAN = {
    'low/tc-a.c': '#include "tc-a.h"\n',
    'low/tc-a.h': '',
    'mid/tc-b.c': '#include "tc-a.h"\n',
    'front/tc-c.c': '#include "tc-b.h"\nGVariant *v;\n',
    'other/tc-d.c': '#include "tc-a.h"\n',
    'mid/tc-g.c': '',
}

expect('clean', CLEAN, 0, 'every layer uses only those below it',
       LAYERS + 'gvariant front\n')
expect('upward include', {**CLEAN, 'low/tc-a.c': '#include "tc-g.h"\n'}, 1,
       'layer: low/tc-a.c includes tc-g.h (mid/ is a higher layer)')
expect('sibling include', {**CLEAN, 'other/tc-d.c': '#include "tc-c.h"\n'}, 1,
       'layer: other/tc-d.c includes tc-c.h (front/ is a sibling layer)')
expect('unlisted folder', {**CLEAN, 'new/tc-e.c': ''}, 1,
       'layer: folder new/ is not in the layers file')
expect('allowed exception', {**CLEAN, 'low/tc-a.c': '#include "tc-g.h"\n'}, 0,
       'no cycles', LAYERS + 'allow tc-a tc-g the reason\n')
expect('stale exception', CLEAN, 1,
       'the exception "allow tc-a tc-g" no longer occurs',
       LAYERS + 'allow tc-a tc-g the reason\n')
expect('cycle', {**CLEAN, 'mid/tc-f.c': '#include "tc-b.h"\n',
                 'mid/tc-b.h': '#include "tc-f.h"\n'}, 1,
       'include cycle between: tc-b, tc-f')
expect('known cycle', {**CLEAN, 'mid/tc-f.c': '#include "tc-b.h"\n',
                       'mid/tc-b.h': '#include "tc-f.h"\n'}, 0,
       'no cycles', LAYERS + 'cycle tc-b tc-f the reason\n')
expect('gvariant below the front ends', {**CLEAN, 'mid/tc-b.c': 'GVariant *v;\n'}, 1,
       'gvariant: mid/tc-b.c uses GVariant (only front may)', LAYERS + 'gvariant front\n')
expect('known gvariant', {**CLEAN, 'mid/tc-b.c': 'GVariant *v;\n'}, 0, 'no cycles',
       LAYERS + 'gvariant front\ngvariant-allow tc-b the reason\n')
expect('no layers file', {'tc-a.c': '#include "tc-b.h"\n', 'tc-b.c': '#include "tc-a.h"\n'},
       1, 'include cycle between: tc-a, tc-b', None)

for failure in failures:
    print(failure)
sys.exit(1 if failures else 0)
