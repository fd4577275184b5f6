#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Cockpit page against the CLI (the anchor), in one run, as root:
a test user logged in to Debian's cockpit-ws on 127.0.0.1 in headless
Chromium (tests/integration/lib/cockpitlib.py), the page open on the
user's session "bench" (its example:* event enabled). Prints

  figure NAME ours=X anchor=Y ratio=X/Y unit=U

console_action_ms  from the click on Start (the click event's time
                   stamp, in the page) until the page shows the session
                   active (a MutationObserver on its state), against the
                   wall time of `tracectl start bench` run as the same
                   user from this script (fork, exec and setpriv
                   included)

Each figure is the median of TRACECTL_BENCH_COCKPIT_RUNS (20) starts
after two warm-ups, the page's and the CLI's alternated; the session is
stopped with the CLI between them, and the page waits until it shows the
session inactive again. Both sides ask polkitd once per Start: its
stalls (docs/testing.md) fall on either, and the medians leave them out.
"""

import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration", "lib"))
from tclib import Service, log  # noqa: E402
from benchlib import figure, machine  # noqa: E402
from cockpitlib import (Browser, Cockpit, install_package, require_browser,  # noqa: E402
                        require_cockpit, set_password)

RUNS = int(os.environ.get("TRACECTL_BENCH_COCKPIT_RUNS", "20"))
WARM_UPS = 2
USER = "tcbench-cockpit"
PASSWORD = "a-Long-passw0rd"

# Arms the measure of one click: the click's time stamp is taken before
# the page's own handler runs (a capturing listener on the document), the
# end when the state shown becomes "active".
ARM = """
window.tcBench = { took: null };
const state = document.getElementById("tc-detail-state");
document.addEventListener("click", event => {
    if (event.target.id === "tc-start")
        window.tcBench.clicked = event.timeStamp;
}, { capture: true, once: true });
const observer = new MutationObserver(() => {
    if (state.textContent === "active" && window.tcBench.clicked !== undefined) {
        window.tcBench.took = performance.now() - window.tcBench.clicked;
        observer.disconnect();
    }
});
observer.observe(state, { childList: true, subtree: true, characterData: true });
"""


def page_start_ms(page):
    page.driver.execute_script(ARM)
    page.click("#tc-start")
    return page.wait(lambda d: d.execute_script("return window.tcBench.took"),
                     "the page to show the session active")


def cli_start_ms(svc, user):
    start = time.monotonic()
    svc.cli("start", "bench", user=user)
    return (time.monotonic() - start) * 1000


def stop(svc, page, user):
    svc.cli("stop", "bench", user=user)
    page.wait(lambda d: page.text("#tc-detail-state") == "inactive",
              "the page to show the session inactive")


def main():
    require_cockpit()
    require_browser()
    print(f"# {machine()}", flush=True)
    with Service() as svc, tempfile.TemporaryDirectory(prefix="tracectl-bench-cockpit-") as tmp:
        user = svc.add_user(USER)
        set_password(user, PASSWORD)
        install_package(user)
        svc.cli("create", "bench", user=user)
        svc.cli("enable-event", "-u", "example:*", "-s", "bench", user=user)
        session_id = svc.cli_json("list", "bench", user=user)["path"].rsplit("/", 1)[1]
        with Cockpit(svc, tmp) as cockpit, Browser(tmp, "bench") as page:
            page.login(cockpit, user, PASSWORD)
            page.open_page(cockpit, f"#/session/{session_id}")
            page.wait(lambda d: page.text("#tc-detail-state") == "inactive", "the session's page")
            times = ([], [])
            for run in range(WARM_UPS + RUNS):
                ours = page_start_ms(page)
                stop(svc, page, user)
                anchor = cli_start_ms(svc, user)
                stop(svc, page, user)
                if run >= WARM_UPS:
                    times[0].append(ours)
                    times[1].append(anchor)
            error = page.error()
            if error:
                log(f"the page shows an error: {error}")
                sys.exit(1)
    log("page's Start, ms: " + " ".join(f"{t:.1f}" for t in times[0]))
    log("tracectl start, ms: " + " ".join(f"{t:.1f}" for t in times[1]))
    figure("console_action_ms", statistics.median(times[0]), statistics.median(times[1]), "ms")


if __name__ == "__main__":
    started = time.monotonic()
    main()
    log(f"took {time.monotonic() - started:.0f} s")
