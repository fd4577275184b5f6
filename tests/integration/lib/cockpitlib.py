# SPDX-License-Identifier: LGPL-2.1-or-later
"""Cockpit in front of the test's service, and a headless Chromium driven
by Selenium, for the tests of the Cockpit page (cockpit/) and its
benchmark.

Cockpit(svc) runs Debian's cockpit-ws on 127.0.0.1 as its own account
(cockpit-wsinstance, as its systemd units do), so that a login goes
through cockpit-session, set-uid root, and PAM's password check, and
the user's cockpit-bridge runs as that user: the page's calls reach
tracectld as that user, as they would on a real machine. The bridge looks
for the system bus where every program does, /run/dbus/system_bus_socket:
cockpit-ws runs in a mount namespace of its own whose /run/dbus is a
tmpfs holding only a link to the embedded service's bus, and its
children (cockpit-session, the bridges) inherit it. Nothing of the
machine's is changed: no PAM file, no environment, no bus.

install_package(user) copies the page as meson stages it in the build
tree (build/cockpit/) into the user's ~/.local/share/cockpit/tracectl,
where the bridge finds packages, before the user logs in (the bridge
reads the packages when it starts).

Cockpit(svc, directory, audit_log=svc.log_path) also mounts
journalctl-stand-in.py over /usr/bin/journalctl in that namespace: the
test's service logs its audit entries to its log file, there being no
journal, and the page's audit trail asks journalctl for them.
"""

import contextlib
import importlib.util
import os
import pwd
import shutil
import signal
import socket
import subprocess
import time

from tclib import BUILD, check, children, log, require, wait_for

COCKPIT_WS = "/usr/lib/cockpit/cockpit-ws"
COCKPIT_SESSION = "/usr/lib/cockpit/cockpit-session"
COCKPIT_BRIDGE = "/usr/bin/cockpit-bridge"
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
WS_ACCOUNT = "cockpit-wsinstance"
JOURNALCTL = "/usr/bin/journalctl"
JOURNALCTL_STAND_IN = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                   "journalctl-stand-in.py")
PACKAGE = os.path.join(BUILD, "cockpit")
# What a login, a page load or a call is given before the test fails.
PAGE_TIMEOUT_S = 60


def require_cockpit():
    for path in (COCKPIT_WS, COCKPIT_SESSION, COCKPIT_BRIDGE):
        require(os.path.exists(path), f"{path} is not installed (cockpit-ws, cockpit-bridge)")
    require(os.path.exists("/usr/share/cockpit/shell/manifest.json"),
            "Cockpit's shell is not installed (cockpit-system)")
    try:
        pwd.getpwnam(WS_ACCOUNT)
    except KeyError:
        require(False, f"no {WS_ACCOUNT} account (cockpit-ws creates it)")
    require(os.path.exists(os.path.join(PACKAGE, "manifest.json")),
            f"the page is not built in {PACKAGE}")


def require_browser():
    for path in (CHROMIUM, CHROMEDRIVER):
        require(os.path.exists(path), f"{path} is not installed (chromium, chromium-driver)")
    require(importlib.util.find_spec("selenium") is not None,
            "Selenium is not installed (python3-selenium)")


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def set_password(user, password):
    subprocess.run(["chpasswd"], input=f"{user.name}:{password}\n", text=True, check=True)


def install_package(user):
    """The page, as built, into user's ~/.local/share/cockpit/tracectl."""
    target = os.path.join(user.home, ".local", "share", "cockpit", "tracectl")
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(PACKAGE, target)
    for directory in (os.path.join(user.home, ".local"), os.path.join(user.home, ".local", "share"),
                      os.path.dirname(target), target):
        os.chown(directory, user.uid, user.gid)
    for name in os.listdir(target):
        os.chown(os.path.join(target, name), user.uid, user.gid)


def bus_socket(address):
    """The socket path of a unix:path=... D-Bus address."""
    for part in address.split(";")[0].split(":", 1)[1].split(","):
        key, _, value = part.partition("=")
        if key == "path":
            return value
    raise AssertionError(f"no socket path in the bus address {address!r}")


class Cockpit:
    """cockpit-ws --no-tls on 127.0.0.1:port, its bridges on svc's bus;
    with audit_log, a journalctl that reads the audit entries there."""

    def __init__(self, svc, directory, audit_log=None):
        require_cockpit()
        self.svc = svc
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = os.path.join(directory, "cockpit-ws.log")
        socket_path = bus_socket(svc.address)
        script = ("set -e\n"
                  "mkdir -p /run/dbus\n"
                  "mount -t tmpfs -o mode=0755,size=64k tmpfs /run/dbus\n"
                  f"ln -s '{socket_path}' /run/dbus/system_bus_socket\n")
        if audit_log:
            # The users' bridges run it: a script of the test's directory
            # that they may read, naming the log.
            journalctl = os.path.join(directory, "journalctl")
            with open(journalctl, "w") as f:
                f.write(f"#!/bin/sh\nexec /usr/bin/python3 '{JOURNALCTL_STAND_IN}' "
                        f"--service-log '{audit_log}' \"$@\"\n")
            os.chmod(journalctl, 0o755)
            script += f"mount --bind '{journalctl}' {JOURNALCTL}\n"
        script += (f"exec setpriv --reuid={WS_ACCOUNT} --regid={WS_ACCOUNT} --init-groups -- "
                   f"{COCKPIT_WS} --no-tls --address 127.0.0.1 --port {self.port}\n")
        self.logfile = open(self.log_path, "wb")
        # unshare and sh exec: the pid is cockpit-ws's own.
        self.proc = subprocess.Popen(
            ["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
            env={"PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "LANG": "C.UTF-8"},
            stdin=subprocess.DEVNULL, stdout=self.logfile, stderr=subprocess.STDOUT)

        def listening():
            check(self.proc.poll() is None, f"cockpit-ws exited: {self.log()}")
            with socket.socket() as sock:
                return sock.connect_ex(("127.0.0.1", self.port)) == 0
        wait_for(listening, 20, "cockpit-ws to listen")

    def log(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()[-6000:]

    def stop(self):
        """Ends cockpit-ws, then whatever of its sessions and bridges
        outlived it."""
        if self.proc.poll() is None:
            left = set()
            for child in children(self.proc.pid):
                left.add(child)
                left.update(children(child))
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            deadline = time.monotonic() + 5
            for pid in left:
                while os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:
                    time.sleep(0.05)
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        self.logfile.close()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None:
            log("---- cockpit-ws log ----")
            log(self.log())
        self.stop()
        return False


class Browser:
    """Headless Chromium, a profile of its own under directory, through
    chromedriver. Screenshots go to shots/NN-NAME.png when shots is set."""

    def __init__(self, directory, name, shots=None):
        require_browser()
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service as DriverService

        self.name = name
        self.shots = shots
        self.shot_number = 0
        home = os.path.join(directory, f"browser-{name}")
        os.makedirs(home, exist_ok=True)
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for argument in ("--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", "--no-first-run", "--disable-extensions",
                         "--disable-background-networking", "--disable-sync",
                         "--password-store=basic", "--window-size=1400,1200",
                         f"--user-data-dir={home}/profile", f"--disk-cache-dir={home}/cache"):
            options.add_argument(argument)
        # The page's console, for the log of a failure.
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        # Chromium writes beside its profile too (crash reports, caches):
        # into the test's directory, never root's home.
        env = {"PATH": "/usr/bin:/bin", "HOME": home, "XDG_CONFIG_HOME": f"{home}/config",
               "XDG_CACHE_HOME": f"{home}/cache", "LANG": "C.UTF-8"}
        self.driver_log = os.path.join(directory, f"chromedriver-{name}.log")
        service = DriverService(executable_path=CHROMEDRIVER, log_path=self.driver_log, env=env)
        self.driver = webdriver.Chrome(service=service, options=options)
        self.driver.set_page_load_timeout(PAGE_TIMEOUT_S)
        self.frame = None

    def quit(self):
        with contextlib.suppress(Exception):
            self.driver.quit()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None:
            with contextlib.suppress(Exception):
                self.screenshot("failure")
                log(f"---- {self.name}'s page when the test failed ----")
                log(self.driver.find_element("css selector", "body").text[-4000:])
                for entry in self.driver.get_log("browser")[-30:]:
                    log(f"console: {entry.get('level')} {entry.get('message')}")
        self.quit()
        return False

    def screenshot(self, step, show=None):
        """Saves the window as the step's picture, the element of CSS
        selector show scrolled into view first."""
        if not self.shots:
            return
        if show:
            self.driver.execute_script("arguments[0].scrollIntoView()", self.find(show))
        os.makedirs(self.shots, exist_ok=True)
        self.shot_number += 1
        path = os.path.join(self.shots, f"{self.shot_number:02d}-{self.name}-{step}.png")
        self.driver.save_screenshot(path)

    def wait(self, condition, what, timeout=PAGE_TIMEOUT_S):
        """Waits until condition(driver) returns something true, which it
        returns; exceptions of elements not there yet count as false."""
        from selenium.common.exceptions import (NoSuchElementException,
                                                StaleElementReferenceException,
                                                TimeoutException)
        from selenium.webdriver.support.ui import WebDriverWait

        try:
            return WebDriverWait(self.driver, timeout, poll_frequency=0.05,
                                 ignored_exceptions=(NoSuchElementException,
                                                     StaleElementReferenceException)
                                 ).until(condition)
        except TimeoutException:
            raise AssertionError(f"{self.name}: timed out after {timeout} s waiting for {what}")

    def login(self, cockpit, user, password):
        """Cockpit's own login form, as a person fills it."""
        from selenium.webdriver.common.by import By

        self.driver.get(cockpit.url + "/")
        self.wait(lambda d: d.find_element(By.ID, "login-user-input").is_displayed(),
                  "the login form")
        self.driver.find_element(By.ID, "login-user-input").send_keys(user.name)
        self.driver.find_element(By.ID, "login-password-input").send_keys(password)
        self.screenshot("login")
        self.driver.find_element(By.ID, "login-button").click()
        # Cockpit's shell, with its navigation, once the login is done.
        self.wait(lambda d: d.find_elements(By.CSS_SELECTOR, "iframe.container-frame"),
                  f"the shell after {user.name}'s login")

    def open_page(self, cockpit, fragment=""):
        """The tracectl page in the shell (its menu entry's URL), the
        driver switched into its frame, once it read the first list."""
        from selenium.webdriver.common.by import By

        self.driver.switch_to.default_content()
        self.driver.get(f"{cockpit.url}/tracectl{fragment}")
        frame = self.wait(lambda d: d.find_element(
            By.CSS_SELECTOR, "iframe[name='cockpit1:localhost/tracectl']"), "the page's frame")
        self.driver.switch_to.frame(frame)
        self.wait(lambda d: d.find_element(By.CSS_SELECTOR, "body[data-ready='true']"),
                  "the page to be ready")

    def find(self, css):
        from selenium.webdriver.common.by import By
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def find_all(self, css):
        from selenium.webdriver.common.by import By
        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def text(self, css):
        return self.find(css).text

    def click(self, css):
        self.wait(lambda d: self.find(css).is_enabled() and self.find(css).is_displayed(),
                  f"{css} to be enabled")
        self.find(css).click()

    def fill(self, css, value):
        field = self.find(css)
        field.clear()
        field.send_keys(value)

    def select(self, css, value):
        from selenium.webdriver.support.ui import Select
        Select(self.find(css)).select_by_value(value)

    def pick(self, css, value):
        """Selects value in the list css, which the page fills once the
        service (or a program) answered: waits for the option to be there.
        A list that allows several choices keeps those made before."""
        from selenium.webdriver.support.ui import Select

        def picked(driver):
            Select(self.find(css)).select_by_value(value)
            return True
        self.wait(picked, f"{value!r} to be listed in {css}")

    def error(self):
        """(D-Bus error name, message) the page shows, or None."""
        alert = self.find("#tc-error")
        if not alert.is_displayed():
            return None
        return (alert.find_element("css selector", ".tc-error-name").text,
                alert.find_element("css selector", ".tc-error-message").text)

    def error_action(self):
        """What the page says failed, with the error shown."""
        return self.find("#tc-error .tc-error-action").text

    def wait_error(self, what):
        return self.wait(lambda d: self.error(), f"the page to show an error ({what})")

    def no_error(self, what):
        shown = self.error()
        check(shown is None, f"{what}: the page shows an error: {shown}")

    def row(self, name):
        """The list's row of session name, or None."""
        rows = self.find_all(f"#tc-sessions tr[data-name='{name}']")
        return rows[0] if rows else None

    def click_row(self, name, css):
        """Clicks the button css of session name's row. The list's rows
        are drawn anew whenever it changes: a row found just before may
        be gone, and is found again."""
        def clicked(driver):
            row = self.row(name)
            button = row and row.find_element("css selector", css)
            if not button or not button.is_enabled():
                return False
            button.click()
            return True
        self.wait(clicked, f"{css} of {name}'s row")

    def row_state(self, name):
        row = self.row(name)
        return row.find_element("css selector", ".tc-state").text if row else None
