// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracectl's Cockpit page: the sessions the logged-in user may see, kept
 * up to date by the service's signals; a session's details, channels and
 * statistics; creating (local, streamed, live, snapshot), starting,
 * stopping, rotating, snapshotting and destroying. What a session records
 * is set up in setup.js, its statistics plotted in plots.js, its newest
 * events read in newest-events.js and its audit trail in audit.js.
 *
 * Nothing here decides what the user may do: every button is a call to
 * tracectld (service.js), which asks polkit and checks ownership, and a
 * refusal is shown as the service named it. The list is never polled:
 * it is read once, then changed by SessionCreated, SessionStarted,
 * SessionStopped, SessionDestroyed, ProblemChanged and the sessions'
 * PropertiesChanged, which tracectld sends to this user's bridge after
 * Subscribe(). A session's statistics, which no signal carries, are read
 * again while it records at its channels' monitor timer, the period at
 * which the service samples them.
 */

import { Service, SESSION_PATH_PREFIX, describeError } from "./service.js";
import { _, $, element, formatBytes, showError, clearError } from "./ui.js";
import { applicationsChanged, forgetLists, initSetup, renderSetup } from "./setup.js";
import { addSample, forgetSamples, renderPlots } from "./plots.js";
import {
    forgetEvents, initNewestEvents, renderNewestEvents, stopReading, traceOf,
} from "./newest-events.js";
import { auditCommand, forgetAudit, initAudit, renderAudit } from "./audit.js";

// The quickest statistics refresh: a monitor timer may be 1 ms, which the
// service samples for triggers, not for a person reading a table.
const MIN_REFRESH_MS = 1000;
// A kernel channel is read at the call, it has no monitor timer.
const KERNEL_REFRESH_MS = 1000;
const RECONNECT_FIRST_MS = 3000;
const RECONNECT_MAX_MS = 60000;
// A live session's timer when the create form leaves it empty, as
// `tracectl create --live` without a value.
const DEFAULT_LIVE_TIMER_MS = 1000;

const service = new Service({
    signal: onSignal,
    properties: onProperties,
    owner: onOwner,
    closed: onClosed,
});

// path -> { path, name, ownerUid, state, output, problem, snapshot }
let sessions = new Map();
// uid -> user name, from /etc/passwd as the user's bridge reads it.
const users = new Map();
// path -> the snapshot directories recorded while the page was open.
const snapshots = new Map();
// Paths with a call of this page under way: their buttons wait for it.
const busy = new Set();
// The session shown: { path, described, failed } or null for the list.
let detail = null;
let detailLoading = false;
let detailReloadAgain = false;
let refreshTimer = null;
let listing = false;
let listAgain = false;
let serviceOwner;
let reconnectMs = RECONNECT_FIRST_MS;
let reconnectTimer = null;
let identity = "";
let administrative = false;

/*
 * Runs call() for an action a person asked for, with the session's
 * buttons disabled meanwhile. Returns { ok, value }; a failure is shown.
 */
async function act(action, path, call) {
    clearError();
    if (path)
        busy.add(path);
    render();
    try {
        return { ok: true, value: await call() };
    } catch (error) {
        showError(action, error);
        return { ok: false };
    } finally {
        if (path)
            busy.delete(path);
        render();
    }
}

/* Formatting */

function ownerName(uid) {
    if (uid === undefined || uid === null)
        return "";
    const name = users.get(uid);
    return name ? `${name} (${uid})` : String(uid);
}

function sessionId(path) {
    return path.startsWith(SESSION_PATH_PREFIX) ? path.substring(SESSION_PATH_PREFIX.length) : path;
}

function stateBadge(state) {
    return element("span",
                   { className: "tc-badge tc-state tc-state-" + state, textContent: state });
}

/* The list */

function sortedSessions() {
    return [...sessions.values()].sort(
        (a, b) => a.name.localeCompare(b.name) || a.ownerUid - b.ownerUid);
}

function sessionButton(session, label, className, handler) {
    const button = element("button", {
        type: "button", className: "tc-button " + className, textContent: label,
    });
    button.disabled = busy.has(session.path);
    button.addEventListener("click", handler);
    return button;
}

function renderList() {
    const rows = sortedSessions().map(session => {
        const row = element("tr");
        row.dataset.path = session.path;
        row.dataset.name = session.name;
        row.dataset.owner = String(session.ownerUid);
        const path = session.path;
        const link = element("a",
                             { href: "#/session/" + sessionId(path), textContent: session.name });
        const running = session.state === "active";
        row.append(
            element("td", { className: "tc-name" }, [link]),
            element("td", {}, [stateBadge(session.state)]),
            element("td", { className: "tc-owner", textContent: ownerName(session.ownerUid) }),
            element("td", { className: "tc-output tc-mono", textContent: session.output }),
            element("td", { className: "tc-problem", textContent: session.problem || "" }),
            element("td", { className: "tc-actions" }, [
                running
                    ? sessionButton(session, _("Stop"), "tc-stop", () => stopSession(path))
                    : sessionButton(session, _("Start"), "tc-start tc-primary",
                                    () => startSession(path)),
                sessionButton(session, _("Destroy"), "tc-destroy tc-danger",
                              () => destroySession(path)),
            ]));
        return row;
    });
    $("tc-sessions").tBodies[0].replaceChildren(...rows);
    $("tc-sessions").hidden = rows.length === 0;
    $("tc-sessions-empty").hidden = rows.length !== 0;
}

async function relist() {
    if (listing) {
        listAgain = true;
        return;
    }
    listing = true;
    try {
        const listed = await service.listSessions();
        if (!listAgain) {
            const fresh = new Map();
            const added = [];
            for (const session of listed) {
                const known = sessions.get(session.path);
                fresh.set(session.path, { ...known, ...session });
                if (!known)
                    added.push(session.path);
            }
            sessions = fresh;
            render();
            for (const path of added)
                readSessionProperties(path);
        }
    } catch (error) {
        showError(_("List the sessions"), error);
    } finally {
        listing = false;
        if (listAgain) {
            listAgain = false;
            relist();
        }
    }
}

/*
 * Problem and Snapshot, which ListSessions does not give. The service lets
 * only a session's owner and root read its properties: an administrator
 * who is neither sees other users' sessions with what the list says. A
 * session destroyed since the list leaves it by its own signal.
 */
async function readSessionProperties(path) {
    try {
        const properties = await service.properties(path);
        const session = sessions.get(path);
        if (session) {
            session.problem = properties.Problem;
            session.snapshot = properties.Snapshot;
            render();
        }
    } catch (error) {
        const { name } = describeError(error);
        if (name !== "org.tracectl.Tracing1.Error.PermissionDenied" &&
            name !== "org.tracectl.Tracing1.Error.NotFound" &&
            name !== "org.freedesktop.DBus.Error.UnknownObject")
            showError(cockpit.format(_("Read the properties of $0"), sessionLabel(path)), error);
    }
}

/* A session */

function described(path) {
    return detail && detail.path === path && detail.described ? detail.described.properties : null;
}

/*
 * What a signal or a call's reply says is newer than an answer to a read
 * that was under way: that answer is dropped and the list or the session
 * read again, so that a stale state never comes back on screen.
 */
function changed(path) {
    if (listing)
        listAgain = true;
    if (detail && detail.path === path)
        loadDetail();
}

// key: the list's field, property: the D-Bus property it mirrors.
function update(path, key, property, value) {
    const session = sessions.get(path);
    if (session)
        session[key] = value;
    const properties = described(path);
    if (properties)
        properties[property] = value;
    render();
    changed(path);
}

function setState(path, state) {
    update(path, "state", "State", state);
}

function setProblem(path, problem) {
    update(path, "problem", "Problem", problem);
}

function forget(path) {
    sessions.delete(path);
    snapshots.delete(path);
    forgetSamples(path);
    forgetEvents(path);
    forgetAudit(path);
    if (listing)
        listAgain = true;
    if (detail && detail.path === path) {
        cockpit.location.go([]);
        return;
    }
    render();
}

function sessionLabel(path) {
    const session = sessions.get(path);
    const properties = described(path);
    return (properties && properties.Name) || (session && session.name) ||
        cockpit.format(_("session $0"), sessionId(path));
}

async function startSession(path) {
    const what = cockpit.format(_("Start $0"), sessionLabel(path));
    const { ok } = await act(what, path, () => service.start(path));
    if (ok)
        setState(path, "active");
}

async function stopSession(path) {
    const what = cockpit.format(_("Stop $0"), sessionLabel(path));
    const { ok } = await act(what, path, () => service.stop(path));
    if (ok)
        setState(path, "inactive");
}

async function destroySession(path) {
    // The trace stays on disk: destroying loses nothing recorded, so the
    // page asks no confirmation, as `tracectl destroy` does not.
    const what = cockpit.format(_("Destroy $0"), sessionLabel(path));
    const { ok } = await act(what, path, () => service.destroy(path));
    if (ok)
        forget(path);
}

async function rotateSession(path) {
    const what = cockpit.format(_("Rotate $0"), sessionLabel(path));
    const { ok, value } = await act(what, path, () => service.rotate(path));
    if (ok)
        setLastArchive(path, value);
}

// LastArchive, which no PropertiesChanged carries: Rotate's answer and
// ArchiveRotated (a rotation schedule's, another client's) say it.
function setLastArchive(path, archive) {
    const properties = described(path);
    if (properties)
        properties.LastArchive = archive;
    render();
}

async function recordSnapshot(path) {
    const what = cockpit.format(_("Record a snapshot of $0"), sessionLabel(path));
    const { ok, value } = await act(what, path, () => service.recordSnapshot(path));
    if (ok)
        addSnapshot(path, value);
}

function addSnapshot(path, directory) {
    const list = snapshots.get(path) || [];
    if (!list.includes(directory))
        list.push(directory);
    snapshots.set(path, list);
    render();
}

async function createSession(event) {
    event.preventDefault();
    const name = $("tc-create-name").value.trim();
    const output = $("tc-create-output").value.trim();
    const timerMs = $("tc-create-live-timer").value.trim();
    const kind = {
        snapshot: $("tc-create-snapshot").checked,
        liveTimerUs: $("tc-create-live").checked
            ? Math.round(Number(timerMs || DEFAULT_LIVE_TIMER_MS) * 1000)
            : null,
    };
    const { ok, value } = await act(cockpit.format(_("Create session $0"), name), null,
                                    () => service.createSession(name, output, kind));
    if (ok) {
        $("tc-create").reset();
        $("tc-create-live-timer").disabled = true;
        await relist();
        cockpit.location.go(["session", sessionId(value)]);
    }
}

/*
 * Reads the session shown (DescribeSession, as `tracectl status`); one
 * read at a time, another one after it when something changed meanwhile.
 */
async function loadDetail() {
    if (!detail)
        return;
    if (detailLoading) {
        detailReloadAgain = true;
        return;
    }
    const shown = detail;
    const session = sessions.get(shown.path);
    detailLoading = true;
    try {
        const described = await service.describe(shown.path, session ? session.name : null);
        if (!detailReloadAgain) {
            shown.described = described;
            shown.failed = false;
            addSample(shown.path, described);
            if (session) {
                session.state = described.properties.State;
                session.problem = described.properties.Problem;
                session.snapshot = described.properties.Snapshot;
            }
        }
    } catch (error) {
        if (detail === shown) {
            shown.failed = true;
            showError(cockpit.format(_("Read $0"), sessionLabel(shown.path)), error);
        }
    } finally {
        detailLoading = false;
    }
    if (detailReloadAgain && detail) {
        detailReloadAgain = false;
        loadDetail();
        return;
    }
    render();
    scheduleRefresh();
}

function refreshPeriod() {
    const properties = detail && detail.described && detail.described.properties;
    if (!properties || properties.State !== "active" || cockpit.hidden)
        return null;
    let period = null;
    for (const channel of detail.described.channels) {
        const monitorUs = channel.settings["monitor-timer"];
        let ms = null;
        if (channel.domain === "kernel")
            ms = KERNEL_REFRESH_MS;
        else if (monitorUs)
            ms = Math.max(MIN_REFRESH_MS, monitorUs / 1000);
        if (ms !== null && (period === null || ms < period))
            period = ms;
    }
    return period;
}

function scheduleRefresh() {
    window.clearTimeout(refreshTimer);
    refreshTimer = null;
    const period = refreshPeriod();
    if (period !== null)
        refreshTimer = window.setTimeout(loadDetail, period);
}

function renderChannels(channels, statistics) {
    const rows = channels.map(channel => {
        const figures = statistics.find(
            s => s.domain === channel.domain && s.channel === channel.name);
        const row = element("tr");
        row.dataset.domain = channel.domain;
        row.dataset.channel = channel.name;
        const name = channel.settings.enabled === false
            ? cockpit.format(_("$0 (disabled)"), channel.name)
            : channel.name;
        const geometry = channel.subbufSize
            ? `${channel.subbufCount} × ${formatBytes(channel.subbufSize)}`
            : _("the kernel's default");
        const cell = (className, text, title) => element(
            "td", { className, textContent: text, title: title || "" });
        // The kernel's peak is not sampled (0): ChannelStatistics.
        const peak = figures && !(channel.domain === "kernel" && figures.peak === 0)
            ? formatBytes(figures.peak)
            : "—";
        row.append(
            cell("tc-domain", channel.domain === "kernel" ? _("kernel") : _("user space")),
            cell("tc-channel", name),
            cell("tc-events tc-mono", channel.patterns.join(", ")),
            cell("tc-contexts tc-mono", (channel.settings.contexts || []).join(", ")),
            cell("tc-buffer",
                 figures && figures.bufferBytes ? formatBytes(figures.bufferBytes) : geometry,
                 cockpit.format(_("sub-buffers: $0"), geometry)),
            cell("tc-in-use", figures ? formatBytes(figures.inUse) : "—"),
            cell("tc-peak", peak),
            cell("tc-discarded", figures ? String(figures.discarded) : "—"),
            cell("tc-packets", figures ? String(figures.packets) : "—"));
        return row;
    });
    $("tc-channels").tBodies[0].replaceChildren(...rows);
    $("tc-channels").hidden = rows.length === 0;
    $("tc-channels-empty").hidden = rows.length !== 0;
    const missing = channels.length > 0 && statistics.length === 0;
    const period = refreshPeriod();
    $("tc-statistics-note").textContent = missing
        ? _("The session's consumer gave no statistics: its Problem says why when it knows.")
        : period !== null
            ? cockpit.format(
                _("Read again every $0 s while the session records (the channels' monitor timer)."),
                (period / 1000).toFixed(period < 10000 ? 1 : 0))
            : _("Buffer usage is the consumer's last sample; " +
                "statistics are read when the session changes.");
}

function renderDetail() {
    const path = detail.path;
    const session = sessions.get(path);
    const properties = (detail.described && detail.described.properties) || {};
    const state = properties.State || (session && session.state) || "";
    const ownerUid = properties.OwnerUid !== undefined
        ? properties.OwnerUid
        : session && session.ownerUid;
    const running = state === "active";
    const isBusy = busy.has(path);

    $("tc-detail-name").textContent = sessionLabel(path);
    $("tc-detail-state").replaceChildren(state ? stateBadge(state) : "");
    $("tc-detail-owner").textContent = ownerName(ownerUid);
    let kind = "";
    if (properties.Snapshot)
        kind = _("snapshot (overwrite buffers, written on demand)");
    else if (properties.LiveTimer)
        kind = cockpit.format(_("live, streamed to a relay, flushed every $0 ms"),
                              properties.LiveTimer / 1000);
    else if (properties.TraceHostname)
        kind = _("streamed to a relay");
    else if (properties.Name)
        kind = _("recorded to disk");
    $("tc-detail-kind").textContent = kind;
    const streamed = properties.OutputUrl && !properties.OutputUrl.startsWith("file://");
    $("tc-detail-output").textContent = streamed
        ? properties.OutputUrl
        : properties.OutputDirectory || (session && session.output) || "";
    const problem = properties.Problem !== undefined
        ? properties.Problem
        : session && session.problem;
    // Unknown until the service described the session.
    $("tc-detail-problem").textContent = problem || (problem === "" ? _("none") : "");
    $("tc-detail-note").textContent = detail.failed
        ? _("The service did not describe this session: what it said is above.")
        : "";

    let archive = properties.LastArchive || "";
    if (!archive && properties.Name)
        archive = properties.Snapshot || streamed ? "—" : _("none yet");
    $("tc-detail-archive").textContent = archive;

    $("tc-start").disabled = isBusy || running;
    $("tc-stop").disabled = isBusy || (!running && state !== "");
    $("tc-snapshot").hidden = properties.Snapshot !== true;
    $("tc-snapshot").disabled = isBusy;
    // Rotate archives a local trace: the service refuses it for
    // snapshot and streamed sessions, so the button is not offered there.
    $("tc-rotate").hidden = properties.Snapshot === true || Boolean(streamed);
    $("tc-rotate").disabled = isBusy;
    $("tc-destroy").disabled = isBusy;

    const channels = detail.described ? detail.described.channels : [];
    renderSetup(channels, isBusy);
    renderChannels(channels, detail.described ? detail.described.statistics : []);
    renderPlots(path, refreshPeriod());
    const taken = snapshots.get(path) || [];
    $("tc-snapshots").replaceChildren(...taken.map(directory =>
        element("li", { className: "tc-mono", textContent: directory })));
    $("tc-snapshots-card").hidden = taken.length === 0;
    const shown = shownSession();
    renderNewestEvents(path, shown.trace);
    renderAudit(path, shown.auditCommand, ownerName);
}

/*
 * The session shown, as newest-events.js and audit.js need it, or null
 * on the list.
 */
function shownSession() {
    if (!detail)
        return null;
    const path = detail.path;
    const properties = (detail.described && detail.described.properties) || {};
    const snapshotDirectories = snapshots.get(path) || [];
    return {
        path,
        label: sessionLabel(path),
        trace: properties.Name ? traceOf(properties, snapshotDirectories) : { why: "" },
        auditCommand: properties.Name ? auditCommand(properties.OwnerUid, properties.Name) : null,
    };
}

function render() {
    $("tc-identity").textContent = identity;
    if (detail) {
        $("tc-list-view").hidden = true;
        $("tc-detail-view").hidden = false;
        renderDetail();
    } else {
        $("tc-detail-view").hidden = true;
        $("tc-list-view").hidden = false;
        renderList();
    }
}

/* Navigation: #/ is the list, #/session/ID a session */

function route() {
    const [page, id] = cockpit.location.path;
    window.clearTimeout(refreshTimer);
    refreshTimer = null;
    if (page === "session" && /^[A-Za-z0-9_]+$/.test(id || "")) {
        const path = SESSION_PATH_PREFIX + id;
        if (!detail || detail.path !== path) {
            stopReading();
            detail = { path, described: null, failed: false };
            render();
            loadDetail();
            return;
        }
    } else {
        stopReading();
        detail = null;
    }
    render();
}

/* The service's signals */

function onSignal(member, path, args) {
    switch (member) {
    case "SessionCreated":
        // The signal has no output directory: the list has.
        relist();
        break;
    case "SessionStarted":
        setState(args[0], "active");
        break;
    case "SessionStopped":
        setState(args[0], "inactive");
        break;
    case "SessionDestroyed":
        forget(args[0]);
        break;
    case "ProblemChanged":
        setProblem(args[0], args[1]);
        break;
    case "SnapshotRecorded":
        addSnapshot(args[0], args[1]);
        break;
    case "ArchiveRotated":
        setLastArchive(args[0], args[1]);
        break;
    case "ApplicationRegistered":
    case "ApplicationGone":
        applicationsChanged();
        break;
    }
}

function onProperties(path, changed, invalidated) {
    if ("State" in changed)
        setState(path, changed.State);
    if ("Problem" in changed)
        setProblem(path, changed.Problem);
    if (invalidated.includes("Channels") && detail && detail.path === path)
        loadDetail();
}

/*
 * The service exits when idle and the bus starts it again at the next
 * call: the sessions went with the instance that left, and a new one
 * knows nothing of this page's subscription, so the page subscribes
 * again and reads the list anew.
 */
function onOwner(owner) {
    const previous = serviceOwner;
    serviceOwner = owner;
    if (!owner) {
        if (previous) {
            sessions = new Map();
            render();
        }
        return;
    }
    if (previous !== undefined && owner !== previous) {
        forgetLists();
        subscribeAndList();
    }
}

function onClosed(error) {
    showError(_("Stay connected to the system bus"), error);
    window.clearTimeout(reconnectTimer);
    reconnectTimer = window.setTimeout(connect, reconnectMs);
    reconnectMs = Math.min(reconnectMs * 2, RECONNECT_MAX_MS);
}

async function subscribeAndList() {
    try {
        await service.subscribe();
    } catch (error) {
        showError(_("Subscribe to the service's signals"), error);
    }
    await relist();
    if (detail)
        loadDetail();
}

async function connect() {
    serviceOwner = undefined;
    service.open();
    await subscribeAndList();
    reconnectMs = RECONNECT_FIRST_MS;
}

/* Who the calls are made as */

async function readUsers() {
    try {
        const passwd = await cockpit.file("/etc/passwd").read();
        for (const line of (passwd || "").split("\n")) {
            const fields = line.split(":");
            if (fields.length >= 3 && /^[0-9]+$/.test(fields[2]))
                users.set(Number(fields[2]), fields[0]);
        }
    } catch (error) {
        // Owners are then shown by uid, which is what the service gives.
        console.warn("reading /etc/passwd:", error);
    }
    render();
}

function describeIdentity(user) {
    identity = administrative
        ? _("Administrative access is on: calls are made as root.")
        : cockpit.format(
            _("Calls are made as $0: tracectld and polkit decide as for the tracectl command."),
            user ? user.name : _("you"));
    render();
}

function watchSuperuser(user) {
    const superuser = cockpit.dbus(null, { bus: "internal" })
            .proxy("cockpit.Superuser", "/superuser");
    let known = false;
    const update = () => {
        const current = superuser.Current;
        const now = current !== undefined && current !== "none" && current !== "init";
        if (known && now === administrative)
            return;
        const changed = known;
        known = true;
        administrative = now;
        describeIdentity(user);
        // The calls go through the other bridge from now on ("superuser":
        // "try" picked the right one when the page connected first).
        if (changed)
            connect();
    };
    superuser.addEventListener("changed", update);
    superuser.wait().then(update, () => {});
}

function init() {
    initSetup({
        service, act, render, current: () => detail, reload: loadDetail,
    });
    initNewestEvents({ current: shownSession, render });
    initAudit({ current: shownSession, render });
    $("tc-create").addEventListener("submit", createSession);
    $("tc-create-live").addEventListener("change", () => {
        $("tc-create-live-timer").disabled = !$("tc-create-live").checked;
    });
    $("tc-error-close").addEventListener("click", clearError);
    $("tc-start").addEventListener("click", () => startSession(detail.path));
    $("tc-stop").addEventListener("click", () => stopSession(detail.path));
    $("tc-rotate").addEventListener("click", () => rotateSession(detail.path));
    $("tc-snapshot").addEventListener("click", () => recordSnapshot(detail.path));
    $("tc-destroy").addEventListener("click", () => destroySession(detail.path));
    $("tc-refresh").addEventListener("click", () => {
        clearError();
        loadDetail();
    });
    cockpit.addEventListener("locationchanged", route);
    cockpit.addEventListener("visibilitychange", () => {
        if (detail)
            loadDetail();
    });
    cockpit.user().then(user => {
        describeIdentity(user);
        watchSuperuser(user);
    }, () => describeIdentity(null));
    readUsers();
    // data-ready: the first list is read, for tests and for styles.
    connect().then(route).then(() => {
        document.body.dataset.ready = "true";
    });
}

init();
