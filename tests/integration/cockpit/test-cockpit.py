#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Cockpit page in a real browser: Debian's cockpit-ws on 127.0.0.1,
headless Chromium driven by Selenium, two test users who log in with
their passwords through Cockpit's login form (PAM), their bridges on the
embedded service's bus (cockpitlib.py says how).

alice (in `tracing`) creates a session in the page, enables a user-space
and a kernel event, starts it, runs the example application, stops it and
reads the channels' statistics: read again while it records, and after
the stop those `tracectl list NAME` gives her; the trace holds the
application's events. A snapshot session made in the page records only
the events of its log level, and its snapshot is listed. Sessions she
makes, starts and destroys with the CLI meanwhile appear, change and go
in the page's list, which never reads the list again: the service's
signals move it. bob sees none of her sessions; given the address of
one, the page shows the service's refusals to read it and to destroy it
(polkit's: acting on another user's session is for administrators); her
session is still there. His own creations with a bad name and with a
relay nobody listens on, and his kernel event, are refused with the
service's error names and messages. She destroys hers from the list. Screenshots of every step go to
<build>/meson-logs/screenshots/integration-cockpit/.
"""

import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tclib import BUILD, Service, check, log, mount_tracefs, run  # noqa: E402
from tracelib import read_trace  # noqa: E402
from cockpitlib import (Browser, Cockpit, free_port, install_package,  # noqa: E402
                        require_browser, require_cockpit, set_password)

ALICE = "tccockpit-alice"
BOB = "tccockpit-bob"
PASSWORD = "a-Long-passw0rd"
DENIED = "org.tracectl.Tracing1.Error.PermissionDenied"
SHOTS = os.path.join(BUILD, "meson-logs", "screenshots", "integration-cockpit")
EVENTS = 50


def kernel_available():
    """tracefs, for the kernel event of alice's session (a machine
    without it still runs the rest)."""
    try:
        mount_tracefs()
    except (subprocess.CalledProcessError, OSError) as error:
        log(f"no tracefs ({error}): alice's kernel event is left out")
        return False
    return True


def test():
    require_cockpit()
    require_browser()
    shutil.rmtree(SHOTS, ignore_errors=True)
    started = time.monotonic()
    with Service() as svc:
        alice = svc.add_user(ALICE, groups=("tracing",))
        bob = svc.add_user(BOB)
        for user in (alice, bob):
            set_password(user, PASSWORD)
            install_package(user)
        directory = os.path.join(svc.rundir, "cockpit")
        os.mkdir(directory)
        with Cockpit(svc, directory) as cockpit:
            with Browser(directory, "alice", SHOTS) as page:
                page.login(cockpit, alice, PASSWORD)
                page.open_page(cockpit)
                page.screenshot("no-session")
                check(page.find("#tc-sessions-empty").is_displayed(), "alice's empty list")
                web = record(svc, page, alice, kernel_available())
                snapshot(svc, page, alice)
                page.open_page(cockpit)
                live_list(svc, page, alice)
                with Browser(directory, "bob", SHOTS) as other:
                    other.login(cockpit, bob, PASSWORD)
                    refusals(svc, other, cockpit, web, alice, bob)
                page.open_page(cockpit)
                destroy_from_list(svc, page, alice)
    log(f"the test took {time.monotonic() - started:.1f} s; screenshots in {SHOTS}")


def wait_state(page, state, where="#tc-detail-state"):
    page.wait(lambda d: page.text(where) == state, f"the page to show the session {state}")


def enable_event(page, domain, pattern, loglevel=""):
    page.select("#tc-event-domain", domain)
    page.fill("#tc-event-pattern", pattern)
    if domain == "ust":
        page.select("#tc-event-loglevel", loglevel)
    page.click("#tc-event-enable")


def channel_row(page, domain, channel="channel0"):
    rows = page.find_all(f"#tc-channels tr[data-domain='{domain}'][data-channel='{channel}']")
    return rows[0] if rows else None


def cell(row, name):
    """The text of a channel's cell, None before the row is there."""
    return row.find_element("css selector", f".tc-{name}").text if row else None


def record(svc, page, alice, kernel):
    """A session made, started, stopped in the page; its statistics are
    the CLI's, its trace the application's."""
    page.fill("#tc-create-name", "web")
    page.click("#tc-create-button")
    page.wait(lambda d: page.find("#tc-detail-view").is_displayed() and
              page.text("#tc-detail-name") == "web", "the new session's page")
    page.no_error("create web")
    described = svc.cli_json("list", "web", user=alice)
    check(described["owner_uid"] == alice.uid and described["state"] == "inactive",
          f"the session the page made: {described}")
    check(page.text("#tc-detail-output") == described["output_directory"],
          f"output shown: {page.text('#tc-detail-output')!r}, {described['output_directory']!r}")
    wait_state(page, "inactive")

    enable_event(page, "ust", "example:*")
    page.wait(lambda d: cell(channel_row(page, "ust"), "events") == "example:*",
              "channel0, which the first event made, with example:*")
    page.no_error("enable example:*")
    if kernel:
        enable_event(page, "kernel", "sched:sched_process_exec")
        page.wait(lambda d: channel_row(page, "kernel"), "the kernel channel")
        page.no_error("enable a kernel event")
    page.screenshot("events-enabled", show="#tc-channels")

    page.click("#tc-start")
    wait_state(page, "active")
    page.no_error("start")
    check(svc.cli_json("list", "web", user=alice)["state"] == "active", "the service says active")
    page.screenshot("started")

    svc.run_app("--count", str(EVENTS), user=alice)
    # No signal carries the statistics: the page reads them again at the
    # monitor timer (1 s) while the session records, with no click.
    page.wait(lambda d: cell(channel_row(page, "ust"), "in-use") not in (None, "0 B", "—"),
              "the buffer usage to show the application's events", timeout=15)
    page.screenshot("recording", show="#tc-channels")
    page.click("#tc-stop")
    wait_state(page, "inactive")
    page.no_error("stop")
    # Stop returns once the trace is on disk: the statistics read after it
    # are final, the same for the page and for the CLI.
    figures = svc.cli_json("list", "web", user=alice)["channels"]
    ust = [c for c in figures if c["domain"] == "ust"][0]["statistics"]

    def page_figures():
        row = channel_row(page, "ust")
        return row and (cell(row, "packets"), cell(row, "discarded"))
    expected = (str(ust["packets_written"]), str(ust["discarded_events"]))
    page.wait(lambda d: page_figures() == expected,
              f"the page's packets and discarded events to be the CLI's {expected}")
    check(ust["packets_written"] > 0 and ust["discarded_events"] == 0, f"statistics: {ust}")
    page.screenshot("stopped-statistics", show="#tc-channels")
    log(f"the page's channel0: {page_figures()} (packets, discarded), as `tracectl list web`")

    names = [name for name, _ in read_trace(described["output_directory"])]
    check(names.count("example:all_types") == EVENTS and "example:done" in names,
          f"the trace of the session made in the page: {names[:10]}...")
    if kernel:
        check(any(name.endswith("sched_process_exec") for name in names),
              "the kernel event enabled in the page is in the trace")
    return described


def snapshot(svc, page, alice):
    """A snapshot session, an event at a log level, one snapshot."""
    page.find("#tc-back").click()
    page.wait(lambda d: page.find("#tc-list-view").is_displayed(), "the list")
    page.fill("#tc-create-name", "flight")
    page.find("#tc-create-snapshot").click()
    page.click("#tc-create-button")
    page.wait(lambda d: page.text("#tc-detail-name") == "flight" and
              page.find("#tc-snapshot").is_displayed(), "the snapshot session's page")
    check(page.text("#tc-detail-kind").startswith("snapshot"),
          f"kind: {page.text('#tc-detail-kind')!r}")
    # TRACE_INFO and more severe: example:startup is INFO, the others
    # have no level (TRACE_DEBUG_LINE).
    enable_event(page, "ust", "example:*", loglevel="6")
    page.wait(lambda d: channel_row(page, "ust"), "the snapshot session's channel")
    page.no_error("enable example:* at TRACE_INFO")
    enablings = svc.cli_json("list", "flight", user=alice)["channels"][0]["enablings"]
    check([(e["pattern"], e["loglevel_name"]) for e in enablings] == [("example:*", "TRACE_INFO")],
          f"the enabling the page made: {enablings}")
    page.click("#tc-start")
    wait_state(page, "active")
    svc.run_app("--count", "5", user=alice)
    page.click("#tc-snapshot")
    # The page's parts are drawn anew as the session changes: an element
    # is read within a wait, which finds it again when it was replaced.
    directory = page.wait(lambda d: page.text("#tc-snapshots li"), "the snapshot to be listed")
    page.no_error("record a snapshot")
    names = [name for name, _ in read_trace(directory)]
    check(names == ["example:startup"], f"the snapshot at TRACE_INFO: {names}")
    page.screenshot("snapshot", show="#tc-snapshots")
    page.click("#tc-destroy")
    page.wait(lambda d: page.find("#tc-list-view").is_displayed() and page.row("flight") is None,
              "the list without the destroyed session")
    page.no_error("destroy flight")


def live_list(svc, page, alice):
    """The list follows what the CLI does, through the signals."""
    svc.cli("create", "from-cli", user=alice)
    page.wait(lambda d: page.row_state("from-cli") == "inactive", "SessionCreated in the list")
    svc.cli("start", "from-cli", user=alice)
    page.wait(lambda d: page.row_state("from-cli") == "active", "SessionStarted in the list")
    page.screenshot("live-list")
    svc.cli("destroy", "from-cli", user=alice)
    page.wait(lambda d: page.row("from-cli") is None, "SessionDestroyed in the list")
    page.no_error("the list following the CLI")


def refusals(svc, page, cockpit, web, alice, bob):
    """bob and alice's session: unseen, unreadable, not destroyed."""
    page.open_page(cockpit)
    check(page.find_all("#tc-sessions tbody tr") == [] and
          page.find("#tc-sessions-empty").is_displayed(), "bob sees none of alice's sessions")
    page.screenshot("no-session-of-alice")

    session_id = web["path"].rsplit("/", 1)[1]
    page.open_page(cockpit, f"#/session/{session_id}")
    name, message = page.wait_error("reading alice's session")
    check(name == DENIED and "belongs to another user" in message,
          f"bob reading alice's session: {name}: {message}")
    page.click("#tc-destroy")
    page.wait(lambda d: page.error() and "manage-other-users" in page.error()[1],
              "the refusal of Destroy")
    name, message = page.error()
    check(name == DENIED and
          f"This belongs to another user (uid {alice.uid}); acting on it needs the "
          "org.tracectl.Tracing1.manage-other-users authorization" in message,
          f"bob destroying alice's session: {name}: {message}")
    page.screenshot("refused")
    log(f"bob destroying alice's session: {name}: {message}")
    check([s["name"] for s in svc.sessions(user=alice)] == ["web"],
          "alice's session is still there")

    page.open_page(cockpit)
    # What the service finds wrong in a creation, named as it names it.
    page.fill("#tc-create-name", "no spaces")
    page.click("#tc-create-button")
    name, message = page.wait_error("a bad session name")
    check(name == "org.tracectl.Tracing1.Error.InvalidArgument" and "no spaces" in message,
          f"a bad session name: {name}: {message}")
    page.fill("#tc-create-name", "far")
    relay = f"net://127.0.0.1:{free_port()}"
    page.fill("#tc-create-output", relay)
    page.click("#tc-create-button")
    page.wait(lambda d: page.error() and "far" in page.error_action(), "a relay refused")
    name, message = page.error()
    log(f"a relay nobody listens on: {name}: {message}")
    check(name == "org.tracectl.Tracing1.Error.Failed" and relay in message,
          f"a relay nobody listens on: {name}: {message}")
    page.screenshot("relay-refused")
    page.fill("#tc-create-output", "")
    page.fill("#tc-create-name", "mine")
    page.click("#tc-create-button")
    page.wait(lambda d: page.text("#tc-detail-name") == "mine", "bob's own session")
    enable_event(page, "kernel", "sched:sched_process_exec")
    name, message = page.wait_error("bob's kernel event")
    check(name == DENIED and "Tracing the kernel is for members of the 'tracing' group" in message,
          f"bob's kernel event: {name}: {message}")
    page.screenshot("kernel-refused")
    check(svc.cli_json("list", "mine", user=bob)["channels"] == [],
          "the refused kernel event changed nothing")
    page.click("#tc-destroy")
    page.wait(lambda d: page.find("#tc-list-view").is_displayed(), "bob's list again")


def destroy_from_list(svc, page, alice):
    page.wait(lambda d: page.row_state("web") == "inactive", "web in alice's list")
    page.click_row("web", ".tc-destroy")
    page.wait(lambda d: page.row("web") is None, "web to leave the list")
    page.no_error("destroy web")
    page.screenshot("destroyed")
    check(svc.sessions(user=alice) == [], "alice has no session left")


run(test)
