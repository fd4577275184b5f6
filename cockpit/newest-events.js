// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The newest events of a session, read from its trace by babeltrace2 run
 * as the logged-in user: cockpit.spawn() without "superuser" runs it in
 * the user's own bridge, so it reads what the user may read and nothing
 * more (a session's trace belongs to its owner; an administrator's page
 * showing another user's session gets babeltrace2's refusal).
 *
 * babeltrace2 prints the whole trace, oldest first; the page keeps the
 * last lines as they stream in, so a large trace costs babeltrace2's time
 * but never the browser's memory. It reads only on a click: a trace can be
 * large, and reading it at every monitor tick would cost more than the
 * recording. A failure (babeltrace2 not installed, a directory the user
 * may not read, a trace it cannot decode) is shown with babeltrace2's own
 * words on its standard error.
 */

import { _, $, element, clearError, showError, spawnError } from "./ui.js";

export const COUNTS = [20, 50, 200];

// path -> { source, lines, read (Date) }: what was read last per session.
const shown = new Map();
// The babeltrace2 under way: { path, babeltrace } or null.
let reading = null;

/*
 * The trace to read, { directory } or { why } when there is none here: a
 * streamed session's trace is on its relay, a snapshot session's in its
 * snapshots. properties: the session's D-Bus properties.
 */
export function traceOf(properties, snapshots) {
    if (properties.OutputUrl && !properties.OutputUrl.startsWith("file://")) {
        return {
            why: properties.LiveTimer
                ? _("The trace goes to the relay daemon: follow it live with " +
                    "`tracectl view --live` or babeltrace2's lttng-live input.")
                : _("The trace goes to the relay daemon, which files it on its own machine."),
        };
    }
    if (properties.Snapshot) {
        if (snapshots.length === 0)
            return { why: _("A snapshot session writes nothing until a snapshot is recorded.") };
        return { directory: snapshots[snapshots.length - 1] };
    }
    return properties.OutputDirectory ? { directory: properties.OutputDirectory } : { why: "" };
}

// Keeps the last count lines of text in lines; returns how much of text
// was whole lines (the rest waits for more).
function keepLines(lines, count, text) {
    const end = text.lastIndexOf("\n");
    if (end < 0)
        return 0;
    for (const line of text.substring(0, end).split("\n")) {
        lines.push(line);
        if (lines.length > count)
            lines.shift();
    }
    return end + 1;
}

async function read(path, label, directory, count, render) {
    const lines = [];
    clearError();
    const babeltrace = cockpit.spawn(["babeltrace2", directory], { err: "message" });
    reading = { path, babeltrace };
    render();
    babeltrace.stream(text => keepLines(lines, count, text));
    try {
        const rest = await babeltrace;
        if (rest)
            keepLines(lines, count, rest + "\n");
        shown.set(path, { source: directory, lines, read: new Date() });
    } catch (error) {
        shown.delete(path);
        // A read given up because the page moved on is no failure.
        if (!(error && error.problem === "cancelled"))
            showError(cockpit.format(_("Read the newest events of $0"), label),
                      spawnError("babeltrace2", error));
    } finally {
        if (reading && reading.babeltrace === babeltrace)
            reading = null;
        render();
    }
}

// Ends a read under way, when its session's page is left.
export function stopReading() {
    if (reading) {
        reading.babeltrace.close("cancelled");
        reading = null;
    }
}

export function forgetEvents(path) {
    shown.delete(path);
}

/*
 * Draws the newest events of the session at path; trace: traceOf()'s
 * answer.
 */
export function renderNewestEvents(path, trace) {
    const busy = reading !== null && reading.path === path;
    const last = shown.get(path);
    const count = Number($("tc-newest-count").value);
    $("tc-newest-read").disabled = busy || !trace.directory;
    $("tc-newest-read").textContent = busy ? _("Reading…") : _("Read the newest events");
    $("tc-newest-source").replaceChildren(trace.directory
        ? element("code", { textContent: `babeltrace2 ${trace.directory} | tail -n ${count}` })
        : trace.why);
    $("tc-newest-events").textContent = last ? last.lines.join("\n") : "";
    $("tc-newest-events").hidden = !last;
    $("tc-newest-note").textContent = last
        ? cockpit.format(_("The last $0 lines babeltrace2 printed, read at $1."),
                         last.lines.length, last.read.toLocaleTimeString())
        : "";
}

/*
 * context: { current() (the session shown: { path, label, trace }, or
 * null), render() }.
 */
export function initNewestEvents(context) {
    $("tc-newest-count").append(...COUNTS.map(count => element("option", {
        value: String(count), textContent: cockpit.format(_("last $0"), count),
    })));
    $("tc-newest-count").value = "50";
    $("tc-newest-count").addEventListener("change", context.render);
    $("tc-newest-read").addEventListener("click", () => {
        const session = context.current();
        if (session && session.trace.directory) {
            read(session.path, session.label, session.trace.directory,
                 Number($("tc-newest-count").value), context.render);
        }
    });
}
