#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Auto-loading at the service's start (tracectld --session-dir, the
system's /etc/tracectl/sessions by default): a root-owned session file of
the directory becomes root's session, set up and recording as the file
says; files another user owns, that others may write, or that are
symbolic links, and sessions with what the service leaves to `tracectl
load` (a kernel domain), are refused with a log line naming them, and no
session comes of them."""

import os
import shutil
import tempfile

from tclib import Service, check, log, run, wait_for
from tracelib import read_trace

K = 50

SESSION = """<?xml version="1.0" encoding="UTF-8"?>
<sessions>
	<session>
		<name>{name}</name>
		<domains>
			<domain>
				<type>UST</type>
				<buffer_type>PER_UID</buffer_type>
				<channels>
					<channel>
						<name>ch</name>
						<enabled>true</enabled>
						<overwrite_mode>DISCARD</overwrite_mode>
						<subbuffer_size>262144</subbuffer_size>
						<subbuffer_count>4</subbuffer_count>
						<switch_timer_interval>0</switch_timer_interval>
						<read_timer_interval>200000</read_timer_interval>
						<output_type>MMAP</output_type>
						<events>
							<event>
								<name>example:all_types</name>
								<enabled>true</enabled>
								<type>TRACEPOINT</type>
								<filter>seq &gt; 40</filter>
							</event>
						</events>
					</channel>
				</channels>
			</domain>
		</domains>
		<started>true</started>
		<output>
			<consumer_output>
				<enabled>true</enabled>
				<destination>
					<path>{path}</path>
				</destination>
			</consumer_output>
		</output>
	</session>
</sessions>
"""


# A kernel domain: the service leaves it to `tracectl load`.
KERNEL_DOMAIN = """<domain>
				<type>KERNEL</type>
				<buffer_type>GLOBAL</buffer_type>
				<channels>
					<channel>
						<name>channel0</name>
						<enabled>true</enabled>
						<events>
							<event>
								<name>sched_switch</name>
								<enabled>true</enabled>
								<type>TRACEPOINT</type>
							</event>
						</events>
					</channel>
				</channels>
			</domain>
			<domain>
				<type>UST</type>"""


def write(directory, file_name, session, out, mode=0o644, owner=0, kernel=False):
    path = os.path.join(directory, file_name)
    text = SESSION.format(name=session, path=out)
    if kernel:
        text = text.replace("<domain>\n\t\t\t\t<type>UST</type>", KERNEL_DOMAIN, 1)
    with open(path, "w") as f:
        f.write(text)
    os.chown(path, owner, owner)
    os.chmod(path, mode)
    return path


def test():
    top = tempfile.mkdtemp(prefix="tracectl-autoload-")
    try:
        check_autoload(top)
    finally:
        shutil.rmtree(top, ignore_errors=True)


def check_autoload(top):
    os.chmod(top, 0o755)
    directory = os.path.join(top, "sessions")
    os.mkdir(directory, 0o755)
    out = os.path.join(top, "out")
    write(directory, "good.lttng", "autoroot", out)
    bad_mode = write(directory, "badmode.lttng", "badmode", os.path.join(top, "m"), mode=0o666)
    bad_owner = write(directory, "badowner.lttng", "badowner", os.path.join(top, "o"),
                      owner=65534)
    kernel = write(directory, "kernel.lttng", "kernel", os.path.join(top, "k"), kernel=True)
    link = os.path.join(directory, "link.lttng")
    os.symlink(os.path.join(directory, "good.lttng"), link)
    with Service(args=["--session-dir", directory]) as svc:
        wait_for(lambda: any(s["name"] == "autoroot" for s in svc.sessions()), timeout=30,
                 what="the auto-loaded session")
        session = svc.session("autoroot")
        check(session["owner_uid"] == 0 and session["state"] == "active",
              f"auto-loaded session: {session}")
        enabling = session["channels"][0]["enablings"][0]
        check(session["channels"][0]["name"] == "ch" and enabling["filter"] == "seq > 40",
              f"auto-loaded channel: {session['channels']}")
        names = sorted(s["name"] for s in svc.sessions())
        check(names == ["autoroot"], f"refused files made sessions: {names}")
        # Another user does not see root's session.
        bob = svc.add_user("tctest-abob")
        check(svc.sessions(user=bob) == [], "another user sees root's auto-loaded session")
        svc.run_app("--count", str(K))
        svc.cli("stop", "autoroot")
        seqs = sorted(fields["seq"] for name, fields in read_trace(out)
                      if name.endswith("all_types"))
        check(seqs == list(range(41, K)), f"auto-loaded session recorded {seqs}")
        with open(svc.log_path, errors="replace") as f:
            logged = f.read()
        for path, why in ((bad_mode, "writable by its group or others (mode 0666)"),
                          (bad_owner, "owned by uid 65534, not root"),
                          (link, "a symbolic link"),
                          (kernel, "session 'kernel' not loaded: auto-loading does not set "
                                   "up its kernel domain")):
            check(path in logged and why in logged, f"no refusal of {path} ({why}) logged")
        log("one file loaded and recording, four refused by name")
        svc.cli("destroy", "autoroot")


run(test)
