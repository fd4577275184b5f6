#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Cockpit page in a real browser: Debian's cockpit-ws on 127.0.0.1,
headless Chromium driven by Selenium, two test users who log in with
their passwords through Cockpit's login form (PAM), their bridges on the
embedded service's bus (cockpitlib.py says how).

alice (in `tracing`, and in `adm`, which reads the system's journal)
creates a live session in the page, streamed to an lttng-relayd of the
test's: the page says it is live, with its timer, as `tracectl list`
does. She creates a local session, adds a channel to it (discard mode,
sub-buffers, timers) and a context field picked from the names the
service lists, and enables the event she picks from the events of the
example application, which is registered and waiting, and a kernel event
picked from the kernel's list. She starts it and the application runs:
the plot of bytes written moves, its points changing at the monitor
timer with no click; the newest events, which babeltrace2 reads as her,
are the application's, with the context. She stops it and reads the
channel's statistics, which are those `tracectl list NAME` gives her,
rotates it and sees the archive, which holds the application's events,
and reads the audit trail: an entry of her uid for each call she made.
A snapshot session made in the page records only
the events of its log level, and its snapshot is listed. Sessions she
makes, starts and destroys with the CLI meanwhile appear, change and go
in the page's list, which never reads the list again: the service's
signals move it. bob sees none of her sessions; given the address of
one, the page shows the service's refusals to read it and to destroy it
(polkit's: acting on another user's session is for administrators); her
session is still there. His own creations with a bad name and with a
relay nobody listens on, and his kernel event, are refused with the
service's error names and messages; the audit trail of his own session
shows journalctl's hint that he may not read the system's journal. She
destroys hers from the list. carol, whom a polkit rule of the test's
makes an administrator of tracectl (manage-other-users), sees a session
alice started with the CLI in her list, under alice's name, and stops
it from the list: the service stopped it, and alice's list, open
meanwhile, follows; bob, who is not, still sees
none of alice's sessions. (Cockpit's own administrative access,
"superuser": "try" through sudo, is not tested: no sudo here.)
Screenshots of every step go to
<build>/meson-logs/screenshots/integration-cockpit/.

There is no journal here (no systemd), and the service runs embedded,
writing its audit entries to its log: journalctl, in Cockpit's mount
namespace only, is journalctl-stand-in.py, which gives back those
entries as journal records (cockpitlib.py).
"""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tclib import BUILD, Installed, Service, check, log, mount_tracefs, run  # noqa: E402
from tracelib import read_trace  # noqa: E402
from relaylib import Relay  # noqa: E402
from cockpitlib import (Browser, Cockpit, free_port, install_package,  # noqa: E402
                        require_browser, require_cockpit, set_password)

ALICE = "tccockpit-alice"
BOB = "tccockpit-bob"
# An administrator of tracectl through polkit, not in any group.
CAROL = "tccockpit-carol"
ADMIN_RULE = """polkit.addRule(function(action, subject) {
    if (action.id == "org.tracectl.Tracing1.manage-other-users" &&
        subject.user == "%s")
        return polkit.Result.YES;
});
""" % CAROL
ADMIN_RULE_PATH = "/etc/polkit-1/rules.d/59-tracectl-test-cockpit.rules"
PASSWORD = "a-Long-passw0rd"
DENIED = "org.tracectl.Tracing1.Error.PermissionDenied"
SHOTS = os.path.join(BUILD, "meson-logs", "screenshots", "integration-cockpit")
# At EVENT_INTERVAL_US apart: 1.5 s of recording, more than a monitor
# timer's period, so that the plot gets points as they come.
EVENTS = 150
EVENT_INTERVAL_US = 10000
# What alice does to her session "web" in the page, each call audited.
ALICE_CALLS = ("CreateSessionWithOptions", "EnableChannel", "AddContext", "EnableEvent", "Start",
               "Stop", "Rotate")


def kernel_available():
    """tracefs, for the kernel event of alice's session (a machine
    without it still runs the rest)."""
    try:
        mount_tracefs()
    except (subprocess.CalledProcessError, OSError) as error:
        log(f"no tracefs ({error}): alice's kernel event is left out")
        return False
    return True


STARTED = time.monotonic()


def step(what):
    """Logs how long the test ran until what, to see where the time goes."""
    log(f"{time.monotonic() - STARTED:5.1f} s: {what}")


def test():
    require_cockpit()
    require_browser()
    shutil.rmtree(SHOTS, ignore_errors=True)
    installed = Installed()
    try:
        with tempfile.NamedTemporaryFile("w", suffix=".rules") as rule:
            rule.write(ADMIN_RULE)
            rule.flush()
            installed.install(rule.name, ADMIN_RULE_PATH)
        run_cockpit()
    finally:
        installed.restore()
    step(f"the end; screenshots in {SHOTS}")


def run_cockpit():
    with Service() as svc:
        alice = svc.add_user(ALICE, groups=("tracing", "adm"))
        bob = svc.add_user(BOB)
        carol = svc.add_user(CAROL)
        for user in (alice, bob, carol):
            set_password(user, PASSWORD)
            install_package(user)
        directory = os.path.join(svc.rundir, "cockpit")
        os.mkdir(directory)
        relay = Relay(directory).start()
        try:
            with Cockpit(svc, directory, audit_log=svc.log_path) as cockpit:
                with Browser(directory, "alice", SHOTS) as page:
                    scenario(svc, cockpit, page, directory, relay, alice, bob, carol)
        finally:
            relay.stop()


def scenario(svc, cockpit, page, directory, relay, alice, bob, carol):
    # Registered before the page lists the applications, waiting for
    # SIGUSR1 to emit its events.
    app = svc.app("--pause", "--count", str(EVENTS), "--interval-us", str(EVENT_INTERVAL_US),
                  user=alice, wait_ready=True)
    page.login(cockpit, alice, PASSWORD)
    page.open_page(cockpit)
    page.screenshot("no-session")
    check(page.find("#tc-sessions-empty").is_displayed(), "alice's empty list")
    step("alice's page")
    live_session(svc, page, alice, relay)
    step("live session")
    web = record(svc, page, alice, app, kernel_available())
    step("recorded")
    snapshot(svc, page, alice)
    step("snapshot")
    page.open_page(cockpit)
    live_list(svc, page, alice)
    step("list following the CLI")
    with Browser(directory, "bob", SHOTS) as other:
        other.login(cockpit, bob, PASSWORD)
        refusals(svc, other, cockpit, web, alice, bob)
    step("bob's refusals")
    page.open_page(cockpit)
    with Browser(directory, "carol", SHOTS) as admin:
        admin.login(cockpit, carol, PASSWORD)
        administrator(svc, admin, cockpit, alice, page)
    step("carol, an administrator")
    destroy_from_list(svc, page, alice)


def wait_state(page, state, where="#tc-detail-state"):
    page.wait(lambda d: page.text(where) == state, f"the page to show the session {state}")


def enable_event(page, domain, pattern, loglevel=""):
    page.select("#tc-event-domain", domain)
    page.fill("#tc-event-pattern", pattern)
    if domain == "ust":
        page.select("#tc-event-loglevel", loglevel)
    page.click("#tc-event-enable")


def pick_event(page, domain, name, channel=""):
    """The event name picked from the service's list of domain."""
    page.select("#tc-event-domain", domain)
    if domain == "ust":
        page.pick("#tc-event-channel", channel)
    page.fill("#tc-event-filter", name)
    page.pick("#tc-event-pick", name)
    check(page.find("#tc-event-pattern").get_attribute("value") == name,
          f"the pattern of the event picked: {page.find('#tc-event-pattern').get_attribute('value')}")
    page.screenshot(f"{domain}-event-picked", show="#tc-event-form")
    page.click("#tc-event-enable")


def channel_row(page, domain, channel="channel0"):
    rows = page.find_all(f"#tc-channels tr[data-domain='{domain}'][data-channel='{channel}']")
    return rows[0] if rows else None


def cell(row, name):
    """The text of a channel's cell, None before the row is there."""
    return row.find_element("css selector", f".tc-{name}").text if row else None


def live_session(svc, page, alice, relay):
    """A live session, streamed to the test's relay: what the page says of
    it is what the service says."""
    page.fill("#tc-create-name", "live")
    page.fill("#tc-create-output", relay.url)
    page.find("#tc-create-live").click()
    page.fill("#tc-create-live-timer", "500")
    page.click("#tc-create-button")
    page.wait(lambda d: page.text("#tc-detail-name") == "live" and page.text("#tc-detail-kind"),
              "the live session's page")
    page.no_error("create a live session")
    kind = page.text("#tc-detail-kind")
    check(kind == "live, streamed to a relay, flushed every 500 ms", f"kind: {kind!r}")
    listed = svc.cli("list", "live", user=alice).stdout
    check(f"Trace output: {relay.url}" in listed and "Live timer interval: 500000 us" in listed,
          f"`tracectl list live`: {listed}")
    check(not page.find("#tc-rotate").is_displayed(), "Rotate offered for a streamed session")
    page.screenshot("live-session")
    page.click("#tc-destroy")
    page.wait(lambda d: page.find("#tc-list-view").is_displayed() and page.row("live") is None,
              "the list without the live session")
    page.no_error("destroy the live session")


def plot_points(page, plot):
    """(points drawn, the last value) of a plot."""
    figure = page.find(f"#{plot}")
    return int(figure.get_attribute("data-points") or 0), figure.get_attribute("data-last")


def record(svc, page, alice, app, kernel):
    """A session made, set up, started, stopped and rotated in the page;
    its statistics are the CLI's, its trace and archive the application's,
    its audit trail what alice did."""
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

    # Small sub-buffers closed every 200 ms: packets are written while the
    # application runs, and the plot of bytes written climbs.
    page.fill("#tc-channel-name", "chan")
    page.select("#tc-channel-mode", "discard")
    page.select("#tc-channel-subbuf-size", "16384")
    page.select("#tc-channel-subbuf-count", "4")
    page.fill("#tc-channel-switch-timer", "200")
    page.fill("#tc-channel-monitor-timer", "1000")
    page.click("#tc-channel-add")
    page.wait(lambda d: channel_row(page, "ust", "chan"), "the channel added")
    page.no_error("add a channel")
    page.pick("#tc-context-channel", "chan")
    page.pick("#tc-context-name", "vpid")
    page.click("#tc-context-add")
    page.wait(lambda d: cell(channel_row(page, "ust", "chan"), "contexts") == "vpid",
              "the context added to chan")
    page.no_error("add a context")
    settings = svc.cli_json("list", "web", user=alice)["channels"][0]
    check((settings["name"], settings["subbuf_size"], settings["num_subbuf"],
           settings["settings"]["overwrite"], settings["settings"]["switch_timer"],
           settings["settings"]["monitor_timer"], settings["settings"]["contexts"]) ==
          ("chan", 16384, 4, False, 200000, 1000000, ["vpid"]),
          f"the channel the page made: {settings}")

    pick_event(page, "ust", "example:all_types", channel="chan")
    page.wait(lambda d: cell(channel_row(page, "ust", "chan"), "events") == "example:all_types",
              "chan with the event picked")
    page.no_error("enable the event picked")
    if kernel:
        pick_event(page, "kernel", "sched:sched_process_exec")
        page.wait(lambda d: channel_row(page, "kernel"), "the kernel channel")
        page.no_error("enable a kernel event")
    page.screenshot("channel-context-events", show="#tc-channels")

    page.click("#tc-start")
    wait_state(page, "active")
    page.no_error("start")
    check(svc.cli_json("list", "web", user=alice)["state"] == "active", "the service says active")
    first = plot_points(page, "tc-plot-written")
    app.send_signal(signal.SIGUSR1)
    # No signal carries the statistics: the page reads them again at the
    # monitor timer (1 s) while the session records, with no click, and
    # each read is a point of the plots.
    page.wait(lambda d: plot_points(page, "tc-plot-written")[0] > first[0] and
              float(plot_points(page, "tc-plot-written")[1] or 0) > 0,
              "the plot of bytes written to move", timeout=15)
    moved = plot_points(page, "tc-plot-written")
    log(f"the plot of bytes written: {first} then {moved} (points, last value)")
    page.screenshot("plot-moving", show=".tc-plots")

    # Written packets are in the trace: babeltrace2 reads them as alice.
    page.click("#tc-newest-read")
    page.wait(lambda d: page.error() or "example:all_types" in page.text("#tc-newest-events"),
              "the newest events to be the application's")
    page.no_error("read the newest events")
    newest = page.text("#tc-newest-events").splitlines()
    check(all("{ vpid = " in line for line in newest if "example:all_types" in line),
          f"the newest events have no vpid context: {newest[-3:]}")
    page.screenshot("newest-events", show="#tc-newest-events")

    out, err = app.communicate(timeout=60)
    check(app.returncode == 0 and err == "", f"example app: {app.returncode} {err!r}")
    page.click("#tc-stop")
    wait_state(page, "inactive")
    page.no_error("stop")
    # Stop returns once the trace is on disk: the statistics read after it
    # are final, the same for the page and for the CLI.
    figures = svc.cli_json("list", "web", user=alice)["channels"]
    ust = [c for c in figures if c["domain"] == "ust"][0]["statistics"]

    def page_figures():
        row = channel_row(page, "ust", "chan")
        return row and (cell(row, "packets"), cell(row, "discarded"))
    expected = (str(ust["packets_written"]), str(ust["discarded_events"]))
    page.wait(lambda d: page_figures() == expected,
              f"the page's packets and discarded events to be the CLI's {expected}")
    check(ust["packets_written"] > 0 and ust["discarded_events"] == 0, f"statistics: {ust}")
    page.screenshot("stopped-statistics", show="#tc-channels")
    log(f"the page's chan: {page_figures()} (packets, discarded), as `tracectl list web`")

    # A stopped session's recording is archived once.
    archives = os.path.join(described["output_directory"], "archives") + "/"
    page.click("#tc-rotate")
    page.wait(lambda d: page.text("#tc-detail-archive").startswith(archives), "the archive")
    page.no_error("rotate")
    archive = page.text("#tc-detail-archive")
    page.screenshot("rotated")
    names = [name for name, _ in read_trace(archive)]
    check(names.count("example:all_types") == EVENTS,
          f"the archive of the session made in the page: {names[:10]}...")
    if kernel:
        check(any(name.endswith("sched_process_exec") for name in names),
              "the kernel event enabled in the page is in the trace")

    page.click("#tc-audit-read")
    page.wait(lambda d: page.error() or page.find_all("#tc-audit tbody tr") or
              page.find("#tc-audit-empty").is_displayed(), "the audit trail")
    page.no_error("read the audit trail")
    entries = [(row.get_attribute("data-action"), row.get_attribute("data-result"),
                row.get_attribute("data-caller")) for row in page.find_all("#tc-audit tbody tr")]
    for call in ALICE_CALLS:
        check((call, "allowed", str(alice.uid)) in entries,
              f"{call} by alice is not in the audit trail: {entries}")
    page.screenshot("audit-trail", show="#tc-audit")
    log(f"the audit trail of web: {len(entries)} entries, newest first: {entries[:4]}...")
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
    # bob is not in the groups that read the system's journal: what
    # journalctl says to him is shown, not an empty trail alone.
    page.click("#tc-audit-read")
    page.wait(lambda d: page.find("#tc-audit-said").is_displayed(), "journalctl's hint")
    said = page.text("#tc-audit-said")
    check("not seeing messages from other users and the system" in said and
          not page.find_all("#tc-audit tbody tr"), f"bob's audit trail: {said!r}")
    page.no_error("bob reading his audit trail")
    page.screenshot("audit-hint", show="#tc-audit-said")
    page.click("#tc-destroy")
    page.wait(lambda d: page.find("#tc-list-view").is_displayed(), "bob's list again")


def administrator(svc, page, cockpit, alice, owner_page):
    """carol, an administrator of tracectl through polkit, stops alice's
    running session from her list; alice's own list, open meanwhile,
    follows. Each change is waited for in alice's page before the next,
    as the CLI's sessions are in live_list()."""
    svc.cli("create", "busy", user=alice)
    svc.cli("enable-event", "-u", "-s", "busy", "example:*", user=alice)
    svc.cli("start", "busy", user=alice)
    owner_page.wait(lambda d: owner_page.row_state("busy") == "active", "busy in alice's list")
    page.open_page(cockpit)
    page.wait(lambda d: page.row_state("busy") == "active", "alice's running session in "
              "carol's list")
    owner = page.row("busy").find_element("css selector", ".tc-owner").text
    check(owner == f"{ALICE} ({alice.uid})", f"the owner carol sees: {owner!r}")
    page.screenshot("administrator")
    page.click_row("busy", ".tc-stop")
    page.wait(lambda d: page.row_state("busy") == "inactive", "carol's stop in her list")
    page.no_error("carol stopping alice's session")
    state = [s["state"] for s in svc.sessions(user=alice) if s["name"] == "busy"]
    check(state == ["inactive"], f"alice's session after carol's stop: {state}")
    log("carol, an administrator, stopped alice's session from her list")
    page.screenshot("administrator-stopped")
    owner_page.wait(lambda d: owner_page.row_state("busy") == "inactive",
                    "carol's stop in alice's list")
    svc.cli("destroy", "busy", user=alice)
    owner_page.wait(lambda d: owner_page.row("busy") is None, "busy to leave alice's list")


def destroy_from_list(svc, page, alice):
    page.wait(lambda d: page.row_state("web") == "inactive", "web in alice's list")
    page.click_row("web", ".tc-destroy")
    page.wait(lambda d: page.row("web") is None, "web to leave the list")
    page.no_error("destroy web")
    page.screenshot("destroyed")
    check(svc.sessions(user=alice) == [], "alice has no session left")


run(test)
