#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Per-event benchmarks, tracectl side by side with LTTng-UST
2.13 (Debian's lttng-tools and liblttng-ust-dev, the anchor) in one run:
the same program (ust-loop.c) built for each tracer, the same event (two
64-bit integers), the same channel geometry for the first three figures,
each tracer's default channel for the last. Prints one line per figure:

  figure NAME ours=X anchor=Y ratio=X/Y unit=U

ust_event_ns_1thread        enabled event, one thread pinned to CPU 0, ns per
                            event, median of RUNS loops of COUNT events that
                            fit in the buffers (nothing discarded, checked)
ust_event_scaling_2threads  events/s of two threads on CPUs 0 and 1 over
                            events/s of one thread (ours and LTTng's own)
ust_disabled_ns             a tracepoint whose event is not enabled, ns/call,
                            the least of DISABLED_RUNS loops (a load and a
                            branch per call: only the machine's noise, such
                            as the hypervisor's steal, makes loops differ)
ust_sustained_rate          highest rate (events/s, one thread, paced) the
                            default channel records for 2 s without
                            discarding an event, by bisection on the rate
                            asked for; the rate reached is reported
ust_event_sdt_ns            ns per enabled event of one thread, of its own
                            CPU time (CLOCK_THREAD_CPUTIME_ID: the other
                            tasks of a busy machine do not count), of the
                            program built with TRACECTL_SDT (ours) against
                            the same program built without it (anchor), in
                            one session, the loops interleaved: what a
                            tracepoint's SDT probe costs while no tool is
                            attached (a nop, and its operands held in
                            registers); median of RUNS loops
ust_disabled_sdt_ns         the same for a tracepoint whose event is not
                            enabled, the least of DISABLED_RUNS loops
ust_event_sdt_semaphores_ns, ust_disabled_sdt_semaphores_ns
                            the same, built with sys/sdt.h's semaphores too
                            (_SDT_HAS_SEMAPHORES): a semaphore read beside
                            the enabled flag, the arguments evaluated only
                            when either is set
ust_event_contexts_ns       ust_event_ns_1thread with the vuid, net_ns and ip
                            contexts added to the channel (add-context,
                            lttng add-context), median of RUNS loops; a note
                            follows with the CPU time per event of the same
                            loops and of loops without contexts
ust_event_app_context_ns    ust_event_ns_1thread of ours with the application
                            context $app.bench:request (an int64 from the
                            program's callback, tracectl/app-context.h)
                            added to the channel, against the same loops
                            without it (the anchor, ours too, the loops
                            alternating, a session each): LTTng-UST 2.13 has
                            no public header for its context providers
                            (lttng/ust-context-provider.h is internal, for
                            its Java agent's JNI library, and Debian does not
                            ship it), so its side is not measured; a note
                            follows with the CPU time per event
ust_event_enum_float_ns     ns per enabled event of an enumeration (of an
                            int: ctf_enum), values in and out of its ranges,
                            and a float (ctf_float), one thread pinned to CPU
                            0, of its own CPU time as the SDT figures (a
                            shared machine's other tasks do not count; the
                            wall-clock medians follow in a note), median of
                            RUNS loops of COUNT events
ust_event_array_ns          the same with an event of a 16-element uint32_t
                            array and a 16-element sequence (ctf_array,
                            ctf_sequence), ARRAY_COUNT events a loop
ust_event_scaling_2threads is each thread's own rate while both run, summed,
over the rate of one thread alone. Figure names as arguments measure
those alone and print them: the SDT figures without LTTng (bench-ust.py
ust_event_sdt_ns), the others beside it (bench-ust.py
ust_event_contexts_ns ust_event_array_ns; the notes come with
ust_sustained_rate).

ust_event_scaling_2threads_consumer_paused (not a goal, a
diagnosis) is the same with each tracer's consumer stopped (SIGSTOP)
during both the 1-thread and the 2-thread loops: the loops fit in the
buffers, and on a 2-core machine a consumer that writes out takes its
CPU from one of the writers (ours reads a busy buffer from the writer's
own CPU, tc-consumerd-affinity.h, so it slows the one-thread loops too),
so this one is the tracepoints' own scaling.

ust_event_scaling_2threads_cpu_time (a diagnosis too) is the first
scaling figure with each thread's rate taken over its own CPU time
(CLOCK_THREAD_CPUTIME_ID) instead of wall-clock time: the kernel counts
neither the time the hypervisor stole from its CPU nor the time other
tasks, such as the consumer, ran there. What is left is mostly what the
tracepoints cost each other (shared cache lines), with the consumer
running; what the consumer leaves in the caches of a writer's CPU still
counts, and can put the figure above 2 when it lands more on the
one-thread loops' CPU than on the two-thread loops'.

ust_sustained_rate_rt_consumer (a diagnosis too) is ust_sustained_rate
with tracectld --consumer-rt-priority 1, the consumer's main thread
SCHED_FIFO, so that a writer on its CPU cannot keep it waiting: what the
default figure loses to the scheduler rather than to the tracer.

Notes (not figures) end the output: how many of AT_TWICE_RUNS paced runs
of ours asked for twice the anchor's sustained rate reached it (99 %) and
discarded nothing (the goal for ust_sustained_rate asked directly, as
one bisection decides on one run per rate; a run that fell behind its
schedule, and so ran slower, does not count), and the hypervisor's
steal, per CPU. docs/performance.md states the goals and the latest
figures.
"""

import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration", "lib"))
from tclib import BUILD, SOURCE, Service, check, children, require, wait_for  # noqa: E402
from benchlib import figure, require_lttng_ust  # noqa: E402

RUNS = int(os.environ.get("TRACECTL_BENCH_RUNS", "15"))
COUNT = 100000           # per run: 2.8 MB for us, fits 8 x 1 MiB per CPU
ARRAY_COUNT = 40000      # per run: 5.4 MB for us (136-byte records), 5.6 for LTTng
SUBBUF_SIZE = "1M"
NUM_SUBBUF = "8"
DISABLED_COUNT = 200000000
DISABLED_RUNS = 7
PACED_SECONDS = 2.0
AT_TWICE_RUNS = 5
# The contexts of ust_event_contexts_ns: a cached id, a cached namespace
# and the call site, each read without a system call by both tracers.
CONTEXTS = ["vuid", "net_ns", "ip"]
LOOP_FIGURES = {"ust_event_ns_1thread", "ust_event_scaling_2threads",
                "ust_event_scaling_2threads_consumer_paused",
                "ust_event_scaling_2threads_cpu_time"}


def cpu_times():
    """{CPU: (steal, total)} clock ticks since boot (/proc/stat), "cpu" for
    all of them."""
    times = {}
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("cpu"):
                name, *fields = line.split()
                fields = [int(v) for v in fields]
                times[name] = (fields[7], sum(fields[:8]))
    return times


def print_steal(before):
    """A note, not a figure: the share of the CPUs' time the hypervisor gave
    other guests during the run, which no tracer can make up for; per CPU
    too, as it can differ (the two-thread loops run on CPUs 0 and 1, the
    one-thread loops on CPU 0)."""
    def share(name):
        steal, total = (now - then for now, then in zip(cpu_times()[name], before[name]))
        return 100.0 * steal / max(total, 1)
    per_cpu = ", ".join(f"{name} {share(name):.1f}%" for name in before if name != "cpu")
    print(f"note cpu_steal={share('cpu'):.1f}% of the run ({per_cpu})", flush=True)


# The loops start on a 64-byte boundary in both programs: a disabled
# tracepoint is a load and a branch, and a loop whose six instructions
# straddle two cache lines takes about twice as long, which measures where
# the linker happened to put the loop rather than the tracepoint.
CFLAGS = ["-O2", "-falign-loops=64"]


# The SDT builds of the loop (tracepoint.h): its file name's suffix, and
# the defines beside TRACECTL_SDT.
SDT_BUILDS = {"sdt": [], "sdt_semaphores": ["-D_SDT_HAS_SEMAPHORES"]}
SDT_FIGURES = [f"ust_{kind}_{build}_ns" for build in SDT_BUILDS for kind in ("event", "disabled")]
# The events of other field kinds (ust-loop.c): each figure's kind of
# event and events a loop.
KIND_FIGURES = {"ust_event_enum_float_ns": ("enum_float", COUNT),
                "ust_event_array_ns": ("arrays", ARRAY_COUNT)}
# The application context of ust_event_app_context_ns (ust-loop.c).
APP_CONTEXT = "$app.bench:request"
FIGURES = LOOP_FIGURES | set(SDT_FIGURES) | {
    "ust_disabled_ns", "ust_sustained_rate", "ust_sustained_rate_rt_consumer",
    "ust_event_contexts_ns", "ust_event_app_context_ns"} | set(KIND_FIGURES)


def build_ours(tmp, name, defines):
    subprocess.run(["cc", *CFLAGS, *defines, "-o", f"{tmp}/{name}", f"{HERE}/ust-loop.c",
                    f"-I{SOURCE}/probes/include", f"-L{BUILD}/probes", "-ltracectl-ust",
                    f"-Wl,-rpath,{os.path.abspath(BUILD)}/probes", "-lpthread"], check=True)


def build(tmp, with_lttng=True):
    build_ours(tmp, "loop-ours", [])
    for name, defines in SDT_BUILDS.items():
        build_ours(tmp, f"loop-ours-{name}", ["-DTRACECTL_SDT", *defines])
    if with_lttng:
        subprocess.run(["cc", *CFLAGS, "-DTRACER_LTTNG", "-o", f"{tmp}/loop-lttng",
                        f"{HERE}/ust-loop.c", f"-I{HERE}", "-llttng-ust", "-ldl", "-lpthread"],
                       check=True)


def run_loop(program, env, threads, count, kind="event"):
    """The loop's ns_per_event, events_per_s and events_per_cpu_s, with
    events of kind (ust-loop.c)."""
    out = subprocess.run([program, "loop", str(threads), str(count), kind], env=env, check=True,
                         capture_output=True, text=True, timeout=600).stdout
    return {key: float(value) for key, value in (part.split("=") for part in out.split())}


def run_paced(program, env, rate):
    """The rate reached (events/s) and the loop's largest lag behind its
    schedule (s), after which it ran at full speed to catch up."""
    out = subprocess.run([program, "paced", str(rate), str(PACED_SECONDS)], env=env, check=True,
                         capture_output=True, text=True, timeout=600).stdout
    values = {key: float(value) for key, value in (part.split("=") for part in out.split())}
    return values["rate"], values["max_lag_us"] / 1e6


class Ours:
    def __init__(self, tmp, svc, name="tracectl"):
        self.name = name
        self.tmp, self.svc, self.program = tmp, svc, f"{tmp}/loop-ours"
        self.env = svc.env()
        self.n = 0

    def session(self, channel_args, enable=True, contexts=(), pattern="bench:*"):
        self.n += 1
        name = f"s{self.n}"
        self.svc.cli("create", name, "--output", f"{self.tmp}/ours-{name}")
        if channel_args is not None:
            self.svc.cli("enable-channel", "-u", "c", *channel_args)
            if enable:
                self.svc.cli("enable-event", "-u", "-c", "c", pattern)
        elif enable:
            self.svc.cli("enable-event", "-u", pattern)
        if contexts:
            self.svc.cli("add-context", "-u", *[a for c in contexts for a in ("-t", c)])
        self.svc.cli("start")
        return name

    def consumer_pids(self):
        return [pid for pid in children(self.svc.proc.pid)
                if "consumerd" in open(f"/proc/{pid}/cmdline").read()]

    def discarded(self, name):
        status = self.svc.cli("list", name).stdout
        return sum(int(n) for n in re.findall(r"Events discarded: (\d+)", status))

    def end(self, name):
        self.svc.cli("stop", name)
        discarded = self.discarded(name)
        self.svc.cli("destroy", name)
        shutil.rmtree(f"{self.tmp}/ours-{name}", ignore_errors=True)
        return discarded


class Lttng:
    name = "lttng"

    def __init__(self, tmp):
        self.tmp, self.program = tmp, f"{tmp}/loop-lttng"
        home = f"{tmp}/lttng-home"
        os.makedirs(home, exist_ok=True)
        self.env = dict(os.environ, LTTNG_HOME=home, HOME=home)
        # A child of ours, not a daemon: ended by its pid, never by name,
        # which would end other people's too.
        self.sessiond = subprocess.Popen(["lttng-sessiond", "--no-kernel"], env=self.env,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: subprocess.run(["lttng", "list"], env=self.env,
                                        capture_output=True).returncode == 0,
                 20, "lttng-sessiond to answer")
        self.n = 0

    def lttng(self, *args):
        return subprocess.run(["lttng", *args], env=self.env, capture_output=True, text=True,
                              check=True).stdout

    def session(self, channel_args, enable=True, contexts=(), pattern="bench:*"):
        self.n += 1
        name = f"s{self.n}"
        self.lttng("create", name, "--output", f"{self.tmp}/lttng-{name}")
        if channel_args is not None:
            self.lttng("enable-channel", "-u", "c", *channel_args)
            if enable:
                self.lttng("enable-event", "-u", "-c", "c", pattern)
        elif enable:
            self.lttng("enable-event", "-u", pattern)
        if contexts:
            self.lttng("add-context", "-u", *[a for c in contexts for a in ("-t", c)])
        self.lttng("start")
        return name

    def end(self, name):
        self.lttng("stop", name)
        listing = self.lttng("list", name)
        discarded = sum(int(n) for n in re.findall(r"Discarded events: (\d+)", listing))
        self.lttng("destroy", name)
        shutil.rmtree(f"{self.tmp}/lttng-{name}", ignore_errors=True)
        return discarded

    def consumer_pids(self):
        """The consumers our lttng-sessiond started (its children)."""
        return [pid for pid in children(self.sessiond.pid)
                if "lttng-consumerd" in open(f"/proc/{pid}/cmdline").read()]

    def close(self):
        """SIGTERM: lttng-sessiond ends its consumers itself."""
        self.sessiond.terminate()
        self.sessiond.wait(timeout=60)


GEOMETRY = ["--subbuf-size", SUBBUF_SIZE, "--num-subbuf", NUM_SUBBUF]


def run_loop_consumer_paused(tracer, threads):
    pids = tracer.consumer_pids()
    check(pids, f"no {tracer.name} consumer to pause")
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    try:
        return run_loop(tracer.program, tracer.env, threads, COUNT)
    finally:
        for pid in pids:
            os.kill(pid, signal.SIGCONT)


def per_event(tracer):
    """Medians over RUNS of the interleaved loops: ns/event of one thread
    ("ns"); events/s of one thread and of two ("one", "two"), the same with
    the consumer paused ("one_paused", "two_paused"), and per second of
    each thread's CPU time ("one_cpu", "two_cpu")."""
    loops = {"one": [], "two": [], "one_paused": [], "two_paused": []}
    session = tracer.session(GEOMETRY)
    for _ in range(RUNS):
        loops["one"].append(run_loop(tracer.program, tracer.env, 1, COUNT))
        time.sleep(0.3)  # let the consumer empty the buffers
        loops["two"].append(run_loop(tracer.program, tracer.env, 2, COUNT))
        time.sleep(0.3)
        loops["one_paused"].append(run_loop_consumer_paused(tracer, 1))
        time.sleep(0.3)
        loops["two_paused"].append(run_loop_consumer_paused(tracer, 2))
        time.sleep(0.3)
    discarded = tracer.end(session)
    check(discarded == 0, f"{tracer.name} discarded {discarded} events in the loops")

    def median(kind, key):
        return statistics.median(loop[key] for loop in loops[kind])

    return {"ns": median("one", "ns_per_event"),
            "one": median("one", "events_per_s"), "two": median("two", "events_per_s"),
            "one_paused": median("one_paused", "events_per_s"),
            "two_paused": median("two_paused", "events_per_s"),
            "one_cpu": median("one", "events_per_cpu_s"),
            "two_cpu": median("two", "events_per_cpu_s")}


def one_thread_loops(tracer, contexts):
    """Medians of RUNS one-thread loops that fit in the buffers, with
    contexts in the channel: ns/event of wall-clock time ("ns") and of the
    thread's own CPU time ("cpu_ns")."""
    session = tracer.session(GEOMETRY, contexts=contexts)
    loops = []
    for _ in range(RUNS):
        loops.append(run_loop(tracer.program, tracer.env, 1, COUNT))
        time.sleep(0.3)  # let the consumer empty the buffers
    discarded = tracer.end(session)
    check(discarded == 0, f"{tracer.name} discarded {discarded} events with {contexts}")
    return {"ns": statistics.median(loop["ns_per_event"] for loop in loops),
            "cpu_ns": statistics.median(cpu_ns_per_event(loop) for loop in loops)}


def with_contexts(tracer):
    """One-thread loops with CONTEXTS ("with") and, for the note of what
    they add, without any ("without")."""
    return {"with": one_thread_loops(tracer, CONTEXTS),
            "without": one_thread_loops(tracer, [])}




def app_context_loops(tracer):
    """{"with", "without"}: medians of RUNS one-thread loops of ours, the
    program registering bench:request, each in a session of its own whose
    channel records the context or not, the two alternating (which goes
    first, too), so that the machine's load weighs on both alike."""
    env = dict(tracer.env, BENCH_APP_CONTEXT="1")
    loops = {"with": [], "without": []}
    for run in range(RUNS):
        for key in (("with", "without") if run % 2 else ("without", "with")):
            session = tracer.session(GEOMETRY, contexts=[APP_CONTEXT] if key == "with" else [])
            loops[key].append(run_loop(tracer.program, env, 1, COUNT))
            discarded = tracer.end(session)
            check(discarded == 0, f"{tracer.name} discarded {discarded} events ({key})")
    return {key: {"ns": statistics.median(loop["ns_per_event"] for loop in runs),
                  "cpu_ns": statistics.median(cpu_ns_per_event(loop) for loop in runs)}
            for key, runs in loops.items()}


def print_app_context_figure(found):
    figure("ust_event_app_context_ns", found["with"]["ns"], found["without"]["ns"], "ns")
    print(f"note ust_event_app_context_cpu_ns: ours {found['with']['cpu_ns']:.1f} ns "
          f"({found['without']['cpu_ns']:.1f} without the context) of the thread's CPU "
          "time per event; the anchor is ours without it: LTTng-UST 2.13 has no public "
          "context provider API", flush=True)


def per_event_of_kinds(tracer):
    """{figure: (median ns of one thread's CPU time per event, median
    wall-clock ns per event)} over RUNS loops of the events of other field
    kinds, in one session that records them all, the kinds' loops
    interleaved."""
    loops = {name: [] for name in KIND_FIGURES}
    session = tracer.session(GEOMETRY, pattern="bench_kinds:*")
    for _ in range(RUNS):
        for name, (kind, count) in KIND_FIGURES.items():
            loops[name].append(run_loop(tracer.program, tracer.env, 1, count, kind))
            time.sleep(0.3)  # let the consumer empty the buffers
    discarded = tracer.end(session)
    check(discarded == 0, f"{tracer.name} discarded {discarded} events in the kinds' loops")
    return {name: (statistics.median(cpu_ns_per_event(loop) for loop in loops[name]),
                   statistics.median(loop["ns_per_event"] for loop in loops[name]))
            for name in KIND_FIGURES}


def print_kinds(ours, anchor, wanted=KIND_FIGURES):
    for name in KIND_FIGURES:
        if name in wanted:
            figure(name, ours[name][0], anchor[name][0], "ns")
            print(f"note {name}_wall_clock ours={ours[name][1]:.3f} "
                  f"anchor={anchor[name][1]:.3f} ratio={ours[name][1] / anchor[name][1]:.3f} "
                  "unit=ns", flush=True)



def disabled(tracer):
    session = tracer.session(GEOMETRY, enable=False)
    values = [run_loop(tracer.program, tracer.env, 1, DISABLED_COUNT)["ns_per_event"]
              for _ in range(DISABLED_RUNS)]
    tracer.end(session)
    return min(values)


def cpu_ns_per_event(loop):
    """ns of the thread's own CPU time per event, of a one-thread loop."""
    return 1e9 / loop["events_per_cpu_s"]


def sdt(tracer):
    """{figure: (with SDT, without)}: ns of one thread's CPU time per
    event, enabled (medians of RUNS) and not (the least of DISABLED_RUNS),
    of each SDT build of the loop and of the plain one, run in turn in one
    session, each round in another order so that none always follows the
    same."""
    programs = [(name, f"{tracer.tmp}/loop-ours-{name}") for name in SDT_BUILDS]
    programs.append((None, tracer.program))

    def rounds(count):
        for n in range(count):
            first = n % len(programs)
            yield programs[first:] + programs[:first]

    enabled = {name: [] for name, _ in programs}
    session = tracer.session(GEOMETRY)
    for order in rounds(RUNS):
        for name, program in order:
            enabled[name].append(cpu_ns_per_event(run_loop(program, tracer.env, 1, COUNT)))
            time.sleep(0.3)  # let the consumer empty the buffers
    discarded = tracer.end(session)
    check(discarded == 0, f"{tracer.name} discarded {discarded} events in the SDT loops")
    disabled = {name: [] for name, _ in programs}
    session = tracer.session(GEOMETRY, enable=False)
    for order in rounds(DISABLED_RUNS):
        for name, program in order:
            disabled[name].append(cpu_ns_per_event(run_loop(program, tracer.env, 1,
                                                            DISABLED_COUNT)))
    tracer.end(session)
    figures = {}
    for name in SDT_BUILDS:
        figures[f"ust_event_{name}_ns"] = (statistics.median(enabled[name]),
                                          statistics.median(enabled[None]))
        figures[f"ust_disabled_{name}_ns"] = (min(disabled[name]), min(disabled[None]))
    return figures


def print_sdt(figures, wanted=SDT_FIGURES):
    for name in SDT_FIGURES:
        if name in wanted:
            figure(name, *figures[name], "ns")


def main_sdt(wanted):
    """The SDT figures alone: no LTTng needed."""
    with tempfile.TemporaryDirectory(prefix="tracectl-bench-ust-") as tmp:
        build(tmp, with_lttng=False)
        with Service() as svc:
            print_sdt(sdt(Ours(tmp, svc)), wanted)


def main_app_context():
    """ust_event_app_context_ns alone: ours only."""
    with tempfile.TemporaryDirectory(prefix="tracectl-bench-ust-") as tmp:
        build(tmp, with_lttng=False)
        with Service() as svc:
            print_app_context_figure(app_context_loops(Ours(tmp, svc)))


def sustained(tracer):
    """Bisection on the rate asked for, between 100k/s and 60M/s, with the
    default channel; returns the highest rate reached without a discarded
    event (a rate asked for above what the tracepoint can do is reached
    only as far as it can)."""
    low, high, best = 100000.0, 60000000.0, 0.0
    while high / low > 1.2:
        rate = (low * high) ** 0.5
        session = tracer.session(None)
        reached, lag = run_paced(tracer.program, tracer.env, rate)
        time.sleep(0.5)
        discarded = tracer.end(session)
        print(f"{tracer.name} sustained: asked {rate / 1e6:.2f} M/s, reached "
              f"{reached / 1e6:.2f} M/s, discarded {discarded}, largest lag "
              f"{lag * 1e3:.2f} ms", file=sys.stderr, flush=True)
        if discarded == 0:
            low, best = rate, max(best, reached)
        else:
            high = rate
    return best


def lossless_runs(tracer, rate):
    """How many of AT_TWICE_RUNS paced runs at rate reached it (99 %) and
    discarded nothing: a run whose tracepoint cannot go that fast falls
    behind its schedule and runs at its own top speed instead."""
    lossless = 0
    for _ in range(AT_TWICE_RUNS):
        session = tracer.session(None)
        reached, lag = run_paced(tracer.program, tracer.env, rate)
        time.sleep(0.5)
        discarded = tracer.end(session)
        print(f"{tracer.name} at {rate / 1e6:.2f} M/s: reached {reached / 1e6:.2f} M/s, "
              f"discarded {discarded}, largest lag {lag * 1e3:.2f} ms", file=sys.stderr,
              flush=True)
        lossless += discarded == 0 and reached >= 0.99 * rate
    return lossless


def measure(tracer, wanted, with_sdt=False):
    """The figures of wanted that one tracer's runs give: "loops",
    "disabled", "sdt" (with_sdt: ours only), "rate", "contexts", "kinds"."""
    found = {}
    if wanted & LOOP_FIGURES:
        found["loops"] = per_event(tracer)
    if "ust_disabled_ns" in wanted:
        found["disabled"] = disabled(tracer)
    if with_sdt and wanted & set(SDT_FIGURES):
        found["sdt"] = sdt(tracer)
    if with_sdt and "ust_event_app_context_ns" in wanted:
        found["app_context"] = app_context_loops(tracer)
    if wanted & {"ust_sustained_rate", "ust_sustained_rate_rt_consumer"}:
        found["rate"] = sustained(tracer)
    if "ust_event_contexts_ns" in wanted:
        found["contexts"] = with_contexts(tracer)
    if wanted & set(KIND_FIGURES):
        found["kinds"] = per_event_of_kinds(tracer)
    return found


def print_loop_figures(o_loops, l_loops):
    figure("ust_event_ns_1thread", o_loops["ns"], l_loops["ns"], "ns")
    for name, two, one in (("ust_event_scaling_2threads", "two", "one"),
                           ("ust_event_scaling_2threads_consumer_paused", "two_paused",
                            "one_paused"),
                           ("ust_event_scaling_2threads_cpu_time", "two_cpu", "one_cpu")):
        figure(name, o_loops[two] / o_loops[one], l_loops[two] / l_loops[one], "x")


def print_rate_figures(tmp, o_rate, l_rate):
    """ust_sustained_rate, then the runs that need the anchor's rate: the
    real-time consumer's figure and the note at twice the anchor's rate."""
    with Service() as svc:
        at_twice = lossless_runs(Ours(tmp, svc), 2 * l_rate)
    with Service(args=["--consumer-rt-priority", "1"]) as svc:
        o_rate_rt = sustained(Ours(tmp, svc, "tracectl-rt"))
    figure("ust_sustained_rate", o_rate, l_rate, "events/s")
    figure("ust_sustained_rate_rt_consumer", o_rate_rt, l_rate, "events/s")
    print(f"note ust_sustained_at_2x: {at_twice} of {AT_TWICE_RUNS} runs of ours asked for "
          f"{2 * l_rate / 1e6:.1f} M events/s (twice the anchor's rate) reached it and "
          f"discarded nothing", flush=True)


def print_contexts_figure(ours, anchor):
    """The figure, then a note of the CPU time per event with and without
    the contexts, which a loaded machine's preemptions do not count."""
    figure("ust_event_contexts_ns", ours["with"]["ns"], anchor["with"]["ns"], "ns")
    print(f"note ust_event_contexts_cpu_ns: ours {ours['with']['cpu_ns']:.1f} ns "
          f"({ours['without']['cpu_ns']:.1f} without contexts), anchor "
          f"{anchor['with']['cpu_ns']:.1f} ns ({anchor['without']['cpu_ns']:.1f} without) "
          f"of the thread's CPU time per event", flush=True)


def print_figures(tmp, o, a, wanted):
    if "loops" in o:
        print_loop_figures(o["loops"], a["loops"])
    if "disabled" in o:
        figure("ust_disabled_ns", o["disabled"], a["disabled"], "ns")
    if "sdt" in o:
        print_sdt(o["sdt"], wanted)
    if "rate" in o:
        print_rate_figures(tmp, o["rate"], a["rate"])
    if "contexts" in o:
        print_contexts_figure(o["contexts"], a["contexts"])
    if "app_context" in o:
        print_app_context_figure(o["app_context"])
    if "kinds" in o:
        print_kinds(o["kinds"], a["kinds"], wanted)


def main():
    wanted = set(sys.argv[1:]) or FIGURES
    require(wanted <= FIGURES, f"figures are {', '.join(sorted(FIGURES))}")
    if wanted <= set(SDT_FIGURES):
        main_sdt(sorted(wanted))
        return
    if wanted == {"ust_event_app_context_ns"}:
        main_app_context()
        return
    require_lttng_ust()
    require(os.cpu_count() >= 2, "two CPUs are needed")
    start = cpu_times()
    with tempfile.TemporaryDirectory(prefix="tracectl-bench-ust-") as tmp:
        build(tmp)
        with Service() as svc:
            o = measure(Ours(tmp, svc), wanted, with_sdt=True)
        lttng = Lttng(tmp)
        try:
            a = measure(lttng, wanted)
        finally:
            lttng.close()
        print_figures(tmp, o, a, wanted)
    print_steal(start)


if __name__ == "__main__":
    main()
