#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A Python program instrumented for LTTng through its logging agent
(python3-lttngust), unmodified otherwise: importing lttngust registers
with the system's session daemon before the import returns.

    lttng-agent-app.py ROUNDS [PAUSE_S]

Each round logs one record of every level to each of the loggers
app.alpha, app.beta and other, with the round's number in the message;
it prints "ready" after the import and "done" at the end."""

import logging
import sys
import time

import lttngust  # noqa: F401 (registers with the session daemon)

LOGGERS = ("app.alpha", "app.beta", "other")
LEVELS = (logging.DEBUG, logging.INFO, logging.WARNING, logging.ERROR, logging.CRITICAL)


def main():
    rounds = int(sys.argv[1])
    pause = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
    print("ready", flush=True)
    for number in range(rounds):
        for name in LOGGERS:
            for level in LEVELS:
                logging.getLogger(name).log(level, "round %d level %d", number, level)
        time.sleep(pause)
    print("done", flush=True)


main()
