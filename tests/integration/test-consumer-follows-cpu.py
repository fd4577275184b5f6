#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The consumer waits for a busy buffer on the CPU that fills it
(service/consumerd/tc-consumer-affinity.h), through the whole system:

- an application held on CPU 1 wakes the consumer, whose main thread is
  then held on CPU 1 (its Cpus_allowed_list), and on CPU 0 after one held
  on CPU 0;
- a second after the last wake-up it has all its CPUs back;
- a stream whose writers lost events at three wake-ups in a row while the
  consumer was held on their CPU is no longer followed: three times, the
  consumer is stopped (SIGSTOP) while held on CPU 1 and an application
  there overfills its buffer; after two it is still held there, after
  the third it logs why, gets its CPUs back, and a later run on CPU 1 no
  longer moves it; the trace counts the discarded events."""

import os
import signal
import time

from tclib import (STRESS_APP, Service, check, children, log, read_streams, require, run,
                   wait_for)

TASKSET = "/usr/bin/taskset"


def consumer_pid(svc):
    pids = [pid for pid in children(svc.proc.pid)
            if "consumerd" in open(f"/proc/{pid}/cmdline").read()]
    check(len(pids) == 1, f"one consumer expected, found {pids}")
    return pids[0]


def main_thread_cpus(pid):
    """The consumer's main thread's CPUs, as /proc says them ("0-1")."""
    with open(f"/proc/{pid}/task/{pid}/status") as f:
        for line in f:
            if line.startswith("Cpus_allowed_list:"):
                return line.split()[1]
    raise AssertionError("no Cpus_allowed_list")


def run_on(svc, cpu, count, paced=True):
    """The stress application, one thread, held on cpu, count events; paced,
    100 events (3 KiB) a millisecond, which the buffer takes without loss."""
    pace = ["--pace", "100"] if paced else []
    return svc.run_app("-c", str(cpu), STRESS_APP, "--threads", "1", "--count", str(count),
                       "--signals", "0", *pace, program=TASKSET, timeout=120)


def test():
    require(os.path.exists(TASKSET), "taskset is not installed (util-linux)")
    require(len(os.sched_getaffinity(0)) >= 2 and {0, 1} <= os.sched_getaffinity(0),
            "CPUs 0 and 1 are needed")
    with Service() as svc:
        out = os.path.join(svc.rundir, "follow")
        svc.cli("create", "follow", "--output", out)
        # 4 x 4 KiB per CPU: a run of 3000 events (about 30 bytes each)
        # switches sub-buffers, hence wakes the consumer, about 20 times.
        # Events lost in those runs would stop the following.
        svc.cli("enable-channel", "-u", "c", "--subbuf-size", "4k", "--num-subbuf", "4")
        svc.cli("enable-event", "-u", "-c", "c", "stress:*")
        svc.cli("start")
        consumer = consumer_pid(svc)
        everything = main_thread_cpus(consumer)
        log(f"consumer {consumer} runs on CPUs {everything}")

        for cpu in (1, 0, 1):
            run_on(svc, cpu, 3000)
            held = main_thread_cpus(consumer)
            check(held == str(cpu), f"after a run on CPU {cpu} the consumer is on {held}")
        wait_for(lambda: main_thread_cpus(consumer) == everything, timeout=5,
                 what="the consumer to get its CPUs back after a second")
        log("followed CPUs 1, 0, 1, then released")

        # Held on CPU 1 again, then stopped while the application there
        # writes ten buffers' worth, three times (well within the second
        # that would release the consumer).
        run_on(svc, 1, 3000)
        for losing in range(1, 4):
            os.kill(consumer, signal.SIGSTOP)
            try:
                check(main_thread_cpus(consumer) == "1",
                      f"the consumer is not held on CPU 1 before losing wake-up {losing}")
                run_on(svc, 1, 20000, paced=False)
            finally:
                os.kill(consumer, signal.SIGCONT)
            if losing < 3:
                time.sleep(0.1)
                check(main_thread_cpus(consumer) == "1",
                      f"released after {losing} losing wake-up(s), not 3")
        wait_for(lambda: main_thread_cpus(consumer) == everything, timeout=5,
                 what="the consumer to be released after its stream lost events")
        with open(svc.log_path, "rb") as f:
            text = f.read().decode(errors="replace")
        check("c_1 lost events at 3 wake-ups in a row while the consumer ran on their CPU"
              in text,
              "the consumer did not log why it stopped following stream c_1")
        run_on(svc, 1, 3000)
        time.sleep(0.2)
        check(main_thread_cpus(consumer) == everything,
              f"stream c_1 still moved the consumer: {main_thread_cpus(consumer)}")
        log("stopped following stream c_1 after its losses")

        svc.cli("stop")
        trace = read_streams(out)
        discarded = sum(trace["discarded"].values())
        check(discarded > 0, "the overfilled buffer reported no discarded events")
        log(f"{discarded} events discarded while the consumer was stopped")
        svc.cli("destroy", "follow")


run(test)
