// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The page's side of tracectld's D-Bus API (data/org.tracectl.Tracing1.xml):
 * one cockpit.dbus() client on the system bus, the calls the page makes,
 * each with its signature, and the service's signals.
 *
 * Who calls: the logged-in user's cockpit-bridge, a process of that user,
 * so the bus gives tracectld that user's uid and polkit decides for that
 * user, as for the CLI. The page holds no privilege of its own. With
 * Cockpit's administrative access turned on, "superuser": "try" sends the
 * calls through Cockpit's root bridge instead, as `sudo tracectl` would;
 * without it, they stay the user's.
 *
 * Every call allows interactive authorization ("flags": "i"), so that an
 * action polkit grants after a password goes to the session's agent, as
 * the CLI's do on a terminal; where there is none, polkit refuses and the
 * page shows the service's refusal.
 */

export const BUS_NAME = "org.tracectl.Tracing1";
export const MANAGER_PATH = "/org/tracectl/Tracing1";
export const SESSION_PATH_PREFIX = MANAGER_PATH + "/session/";
const MANAGER = "org.tracectl.Tracing1.Manager";
const SESSION = "org.tracectl.Tracing1.Session";
const PROPERTIES = "org.freedesktop.DBus.Properties";

// As the CLI's: Stop and DestroySession return once everything recorded
// is on disk, which a large buffer or a slow disk makes long.
const CALL_TIMEOUT_MS = 10 * 60 * 1000;

// LTTng's log levels, most severe first, as EnableEventWithOptions takes
// them ("loglevel": 0 to 14).
export const LOG_LEVELS = [
    "TRACE_EMERG", "TRACE_ALERT", "TRACE_CRIT", "TRACE_ERR", "TRACE_WARNING",
    "TRACE_NOTICE", "TRACE_INFO", "TRACE_DEBUG_SYSTEM", "TRACE_DEBUG_PROGRAM",
    "TRACE_DEBUG_PROCESS", "TRACE_DEBUG_MODULE", "TRACE_DEBUG_UNIT",
    "TRACE_DEBUG_FUNCTION", "TRACE_DEBUG_LINE", "TRACE_DEBUG",
];

/*
 * { name, message } of a failed call: the D-Bus error name and message
 * the service (or the bus) replied with, or Cockpit's problem code when
 * the call never reached the bus (the bridge's channel closed).
 */
export function describeError(error) {
    if (error && typeof error.name === "string" && error.name.includes(".")) {
        return { name: error.name, message: error.message || "" };
    }
    if (error && error.problem) {
        return { name: "cockpit: " + error.problem, message: cockpit.message(error) };
    }
    return { name: "Error", message: String(error && error.message ? error.message : error) };
}

function unwrap(dictionary) {
    const plain = {};
    for (const [key, variant] of Object.entries(dictionary || {})) {
        plain[key] = variant && typeof variant === "object" && "v" in variant ? variant.v : variant;
    }
    return plain;
}

// Channels property and ChannelStatistics, as plain objects.
function channelsOf(channels) {
    return (channels || []).map(([name, domain, subbufSize, subbufCount, patterns, settings]) => ({
        name, domain, subbufSize, subbufCount, patterns, settings: unwrap(settings),
    }));
}

function statisticsOf(statistics) {
    return (statistics || []).map(
        ([domain, channel, bufferBytes, inUse, peak, discarded, packets]) => ({
            domain, channel, bufferBytes, inUse, peak, discarded, packets,
        }));
}

function described(properties, statistics) {
    return {
        properties, channels: channelsOf(properties.Channels), statistics: statisticsOf(statistics),
    };
}

export class Service {
    /*
     * handlers: signal(member, path, args) for the manager's signals and
     * properties(path, changed, invalidated) for the sessions'
     * PropertiesChanged; owner(owner) when the service's bus name changes
     * hands; closed(error) when the bridge's channel to the bus closes.
     */
    constructor(handlers) {
        this.handlers = handlers;
        this.client = null;
        this.matches = [];
    }

    open() {
        this.close();
        const client = cockpit.dbus(BUS_NAME, { bus: "system", superuser: "try" });
        this.client = client;
        client.addEventListener("close", (event, options) => {
            if (this.client === client) {
                this.client = null;
                this.handlers.closed(describeError(options));
            }
        });
        client.addEventListener("owner", (event, owner) => {
            if (this.client === client)
                this.handlers.owner(owner);
        });
        // Signals come from the service's unique name and only after
        // Subscribe(), addressed to this bridge's connection alone.
        const managerSignal = (path, iface, member, args) => {
            this.handlers.signal(member, path, args);
        };
        const sessionProperties = (path, iface, member, args) => {
            if (args[0] === SESSION)
                this.handlers.properties(path, unwrap(args[1]), args[2] || []);
        };
        this.matches = [
            client.subscribe({ path: MANAGER_PATH, interface: MANAGER }, managerSignal),
            client.subscribe({
                path_namespace: MANAGER_PATH, interface: PROPERTIES, member: "PropertiesChanged",
            }, sessionProperties),
        ];
    }

    close() {
        for (const match of this.matches)
            match.remove();
        this.matches = [];
        if (this.client) {
            const client = this.client;
            this.client = null;
            client.close();
        }
    }

    call(path, iface, method, type, args) {
        if (!this.client)
            return Promise.reject(new Error("not connected to the system bus"));
        return this.client.call(path, iface, method, args,
                                { type, flags: "i", timeout: CALL_TIMEOUT_MS });
    }

    subscribe() {
        return this.call(MANAGER_PATH, MANAGER, "Subscribe", "", []);
    }

    // [{ path, name, ownerUid, state, output }]: the caller's sessions, or
    // everyone's for a caller allowed to manage other users'.
    async listSessions() {
        const [sessions] = await this.call(MANAGER_PATH, MANAGER, "ListSessions", "", []);
        return sessions.map(([path, name, ownerUid, state, output]) => (
            { path, name, ownerUid, state, output }));
    }

    // The session's properties, readable by its owner and root only.
    async properties(path) {
        const [properties] = await this.call(path, PROPERTIES, "GetAll", "s", [SESSION]);
        return unwrap(properties);
    }

    /*
     * output: "" for the default directory, an absolute directory, or a
     * URL (file://, net://, net6://) given to the service as "url", which
     * checks it and names what is wrong with it. kind: { snapshot,
     * liveTimerUs }, liveTimerUs null for a session that is not live (a
     * live one without a URL streams to net://127.0.0.1, as `tracectl
     * create --live` does).
     */
    async createSession(name, output, kind) {
        const options = {};
        let directory = output;
        if (output.includes("://")) {
            options.url = cockpit.variant("s", output);
            directory = "";
        }
        if (kind.snapshot)
            options.snapshot = cockpit.variant("b", true);
        if (kind.liveTimerUs !== null)
            options["live-timer-us"] = cockpit.variant("u", kind.liveTimerUs);
        const [path] = await this.call(MANAGER_PATH, MANAGER, "CreateSessionWithOptions", "ssa{sv}",
                                       [name, directory, options]);
        return path;
    }

    // channel: "" for channel0; loglevel: null for every level, else 0
    // to 14 (user space only).
    enableEvent(path, domain, channel, pattern, loglevel) {
        if (loglevel === null)
            return this.call(path, SESSION, "EnableEvent", "sss", [domain, channel, pattern]);
        return this.call(path, SESSION, "EnableEventWithOptions", "sssa{sv}",
                         [domain, channel, pattern, { loglevel: cockpit.variant("i", loglevel) }]);
    }

    /*
     * settings: { overwrite, subbufSize, subbufCount, switchTimerUs,
     * readTimerUs, monitorTimerUs }, each null for the service's default.
     * The kernel's channel takes only its geometry (EnableChannel).
     */
    enableChannel(path, domain, name, settings) {
        const options = {};
        const add = (key, type, value) => {
            if (value !== null && value !== undefined)
                options[key] = cockpit.variant(type, value);
        };
        add("subbuf-size", "t", settings.subbufSize);
        add("num-subbuf", "u", settings.subbufCount);
        if (domain === "ust") {
            add("overwrite", "b", settings.overwrite);
            add("switch-timer", "u", settings.switchTimerUs);
            add("read-timer", "u", settings.readTimerUs);
            add("monitor-timer", "u", settings.monitorTimerUs);
        }
        return this.call(path, SESSION, "EnableChannel", "ssa{sv}", [domain, name, options]);
    }

    // channel: "" for every channel of the session.
    addContexts(path, domain, channel, contexts) {
        return this.call(path, SESSION, "AddContext", "ssas", [domain, channel, contexts]);
    }

    async rotate(path) {
        const [archive] = await this.call(path, SESSION, "Rotate", "", []);
        return archive;
    }

    // The context names AddContext takes in domain, as `tracectl
    // add-context --list` shows them.
    async listContexts(domain) {
        const [contexts] = await this.call(MANAGER_PATH, MANAGER, "ListContexts", "s", [domain]);
        return contexts;
    }

    // [{ pid, uid, processName, tracer, events: [{ name, loglevel, fields }] }]:
    // the registered applications the caller may see (`tracectl list -u`).
    async listApplications() {
        const [applications] = await this.call(MANAGER_PATH, MANAGER, "ListApplications", "", []);
        return applications.map(([pid, uid, processName, tracer, events]) => ({
            pid, uid, processName, tracer,
            events: events.map(([name, loglevel, fields]) => ({ name, loglevel, fields })),
        }));
    }

    // "system:event" names of the machine's kernel (`tracectl list -k`).
    async listKernelEvents() {
        const [events] = await this.call(MANAGER_PATH, MANAGER, "ListKernelEvents", "b", [false]);
        return events;
    }

    start(path) {
        return this.call(path, SESSION, "Start", "", []);
    }

    stop(path) {
        return this.call(path, SESSION, "Stop", "", []);
    }

    destroy(path) {
        return this.call(MANAGER_PATH, MANAGER, "DestroySession", "o", [path]);
    }

    async recordSnapshot(path) {
        const [directory] = await this.call(path, SESSION, "RecordSnapshot", "", []);
        return directory;
    }

    /*
     * { properties, channels, statistics } of a session, as `tracectl
     * status` shows them: DescribeSession, which finds the caller's own
     * sessions by name. Another user's (for a caller allowed to see it)
     * is read through its object: its properties, then ChannelStatistics.
     */
    async describe(path, name) {
        if (name) {
            try {
                const [found, properties, statistics] = await this.call(
                    MANAGER_PATH, MANAGER, "DescribeSession", "s", [name]);
                if (found === path)
                    return described(unwrap(properties), statistics);
            } catch (error) {
                // The caller's own session of that name is not this one;
                // anything else is the answer.
                if (describeError(error).name !== BUS_NAME + ".Error.NotFound")
                    throw error;
            }
        }
        const properties = await this.properties(path);
        const [statistics] = await this.call(path, SESSION, "ChannelStatistics", "", []);
        return described(properties, statistics);
    }
}
