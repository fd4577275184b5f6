#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Runs one fuzz target as the fuzz suite does (tests/fuzz/meson.build).

First every crash input kept under tests/fuzz/regressions/TARGET is
replayed: each must now run clean. Then the target fuzzes:

- libfuzzer: the binary built with -fsanitize=fuzzer fuzzes a copy of
  its committed corpus (tests/fuzz/corpus/TARGET, never changed by a run)
  for --time seconds; a finding fails the test and is left in the
  directory named on stderr, to be kept as a regression;
- standalone: fuzz-driver.c's main() mutates its seeds (the corpus with
  --seeds, else the harness's own) for --runs inputs from --seed (1).
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile


def files_of(directory):
    if not os.path.isdir(directory):
        return []
    return sorted(os.path.join(directory, name) for name in os.listdir(directory)
                  if not name.startswith(".") and name != "README")


def replay(binary, regressions):
    inputs = files_of(regressions)
    if not inputs:
        print(f"no regression input in {regressions}")
        return True
    proc = subprocess.run([binary, *inputs])
    print(f"{len(inputs)} regression inputs replayed: exit {proc.returncode}")
    return proc.returncode == 0


def libfuzzer(binary, corpus, args):
    work = tempfile.mkdtemp(prefix=os.path.basename(binary) + "-")
    keep = False
    try:
        copy = os.path.join(work, "corpus")
        shutil.copytree(corpus, copy)
        artifacts = os.path.join(work, "findings")
        os.mkdir(artifacts)
        proc = subprocess.run([binary, f"-max_total_time={args.time}", "-timeout=10",
                               "-rss_limit_mb=2048", f"-max_len={args.max_len}",
                               "-print_final_stats=1", f"-artifact_prefix={artifacts}/",
                               *(["-detect_leaks=0"] if args.no_leaks else []),
                               copy])
        if proc.returncode != 0:
            keep = True
            print(f"finding(s) kept in {artifacts}: {os.listdir(artifacts)}", file=sys.stderr)
        return proc.returncode == 0
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)


def standalone(binary, corpus, args):
    command = [binary]
    if args.seeds:
        command += ["--seeds", corpus]
    command += ["--seed", str(args.seed), "--runs", str(args.runs)]
    return subprocess.run(command).returncode == 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["libfuzzer", "standalone"])
    parser.add_argument("binary")
    parser.add_argument("corpus")
    parser.add_argument("regressions")
    parser.add_argument("--time", type=int, default=20)
    parser.add_argument("--max-len", type=int, default=4096)
    parser.add_argument("--runs", type=int, default=100000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seeds", action="store_true",
                        help="standalone: the corpus as the seeds")
    parser.add_argument("--no-leaks", action="store_true",
                        help="libfuzzer: no leak check (caches that live to the end)")
    args = parser.parse_args()
    ok = replay(args.binary, args.regressions)
    if args.mode == "libfuzzer":
        ok = libfuzzer(args.binary, args.corpus, args) and ok
    else:
        ok = standalone(args.binary, args.corpus, args) and ok
    sys.exit(0 if ok else 1)


main()
