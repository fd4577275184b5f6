#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A file's stem is its functions' prefix: every function a header of the
three daemons declares or defines (static inline ones too), and every
global it declares extern, is named after the header, dashes made
underscores: tc-channel-config.h declares tc_channel_config_* (or a
function named tc_channel_config). So a name met in a backtrace or a log
leads to its file, and tools/check-cycles' graph of stems is the graph of
the code.

A header named tc-X-private.h, shared by the files of module tc-X, takes
that module's prefix, tc_x_*.

Each function or global named otherwise is printed with its header and
line, and the exit status is 1. Macros and types are not checked.

Usage: check-stems.py SOURCE_ROOT"""

import os
import re
import sys

DAEMONS = ("service/tracectld", "service/consumerd", "service/kernel-helper")


def strip(text):
    """The text without comments, string and character literals, nor
    preprocessor lines (macros are not functions), newlines kept."""
    text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group()), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)
    text = re.sub(r"'(?:\\.|[^'\\\n])*'", "''", text)
    lines, continued = [], False
    for line in text.split("\n"):
        directive = continued or line.lstrip().startswith("#")
        continued = directive and line.rstrip().endswith("\\")
        lines.append("" if directive else line)
    return "\n".join(lines)


def without_attributes(text):
    """The text without __attribute__((...)), whose words are no names."""
    while True:
        match = re.search(r"\b__attribute__\s*\(", text)
        if not match:
            return text
        depth, i = 0, match.end() - 1
        for i in range(match.end() - 1, len(text)):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            if depth == 0:
                break
        text = text[:match.start()] + " " + text[i + 1:]


def declarations(text):
    """The top-level declarations of a header, each (text, line): a
    function's body left out, a struct's, union's or enum's blanked."""
    found, buffer, begin, depth, body = [], [], None, 0, False
    for i, char in enumerate(text):
        if depth:
            depth += {"{": 1, "}": -1}.get(char, 0)
            if depth == 0 and body:
                buffer, begin, body = [], None, False
            continue
        if char == "{":
            depth = 1
            head = "".join(buffer)
            if ")" in head and not re.search(r"\b(struct|union|enum)\b[^()]*$", head):
                found.append((head, begin))
                body = True
            else:
                buffer.append("{}")
            continue
        if char == ";":
            if begin is not None:
                found.append(("".join(buffer), begin))
            buffer, begin = [], None
            continue
        if begin is None and not char.isspace():
            begin = text.count("\n", 0, i) + 1
        buffer.append(char)
    return found


# C's words that a "(" may follow in a declaration without naming it.
KEYWORDS = {"void", "char", "short", "int", "long", "float", "double", "signed", "unsigned",
            "const", "volatile", "static", "inline", "extern", "return", "struct", "union",
            "enum", "restrict", "_Bool", "_Noreturn", "typeof", "__typeof__", "sizeof",
            "alignof", "_Alignas"}


def names(declaration):
    """The functions and extern globals a declaration names."""
    flat = " ".join(without_attributes(declaration).split())
    # Macros that stand for declarations, as G_DEFINE_AUTOPTR_CLEANUP_FUNC
    # (often with no ";" after them), and G_GNUC_PRINTF (1, 2).
    while True:
        match = re.match(r"[A-Z_][A-Z0-9_]*\b\s*(\((?:[^()]|\([^()]*\))*\))?\s*", flat)
        if not match or not match.group():
            break
        flat = flat[match.end():]
    if not flat or re.match(r"(typedef|_Static_assert|static_assert)\b", flat):
        return []
    # The first word a "(" follows, unless that "(" opens a declarator
    # (the return type of a function returning a function pointer).
    for match in re.finditer(r"\b([A-Za-z_]\w*)\s*\((?!\s*\*)", flat):
        name = match.group(1)
        if name in KEYWORDS or re.fullmatch(r"[A-Z_][A-Z0-9_]*", name):
            continue
        return [name]
    if flat.startswith("extern "):
        # One or more variables: the name before each ",", "=" or the end.
        flat = re.sub(r"\{\}|\[[^\]]*\]|=[^,]*", "", flat)
        return re.findall(r"(\w+)\s*(?:,|$)", flat)
    return []


def stem(header):
    """The name a header's functions start with, without the "_" that
    follows it unless the function is named just that."""
    name = os.path.basename(header)[: -len(".h")]
    if name.endswith("-private"):
        name = name[: -len("-private")]
    return name.replace("-", "_")


def main():
    root = sys.argv[1]
    failures = 0
    checked = 0
    for daemon in DAEMONS:
        for directory, _, files in sorted(os.walk(os.path.join(root, daemon))):
            for name in sorted(files):
                if not name.endswith(".h"):
                    continue
                path = os.path.join(directory, name)
                want = stem(path)
                with open(path, encoding="utf-8") as f:
                    text = strip(f.read())
                for declaration, line in declarations(text):
                    for function in names(declaration):
                        checked += 1
                        if function != want and not function.startswith(want + "_"):
                            failures += 1
                            print(f"FAIL: {os.path.relpath(path, root)}:{line}: "
                                  f"{function} is not named {want}_*")
    print(f"{checked} names checked, {failures} not named after their header")
    # Finding no name at all means the headers moved or the parsing broke.
    return 1 if failures or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
