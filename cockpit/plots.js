// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Live plots of a session's buffer usage, events discarded and bytes
 * written, drawn as small SVG line charts.
 *
 * They take no reads of their own: each point is one answer to the
 * DescribeSession read the session's page makes anyway, at the channels'
 * monitor timer while the session records and the page is shown, and
 * when a signal says the session changed. A stopped session or a hidden
 * page gets no new point, and the plots hold what was seen meanwhile.
 *
 * Bytes written is counted as the service counts it for its
 * session-consumed-size trigger: packets written times the channel's
 * sub-buffer size, a packet being a whole sub-buffer. The kernel's
 * channel with the kernel's default buffers has no size to count with
 * and is left out of that plot.
 */

import { _, $, element, formatBytes } from "./ui.js";

// What a plot keeps: at the 1 s monitor timer, the last five minutes.
const MAX_POINTS = 300;
const WIDTH = 320;
const HEIGHT = 96;
const MARGIN = 4;
const SVG = "http://www.w3.org/2000/svg";

export const SERIES = [
    {
        id: "tc-plot-usage", key: "usage", title: _("Buffer usage"),
        format: value => (value * 100).toFixed(value < 0.1 ? 1 : 0) + " %",
        // A share of the buffers: the scale is the whole of them.
        top: () => 1,
    },
    {
        id: "tc-plot-discarded", key: "discarded", title: _("Events discarded"),
        format: value => String(value),
        top: max => Math.max(max, 1),
    },
    {
        id: "tc-plot-written", key: "written", title: _("Bytes written"),
        format: value => formatBytes(value),
        top: max => Math.max(max, 1),
    },
];

// path -> [{ time, usage, discarded, written }], oldest first.
const histories = new Map();

/*
 * One point from a DescribeSession answer ({ channels, statistics } of
 * service.js), or none when the consumer gave no statistics.
 */
function pointOf(described) {
    if (described.statistics.length === 0)
        return null;
    let buffers = 0;
    let inUse = 0;
    let discarded = 0;
    let written = 0;
    for (const figures of described.statistics) {
        buffers += Number(figures.bufferBytes);
        inUse += Number(figures.inUse);
        discarded += Number(figures.discarded);
        const channel = described.channels.find(
            c => c.domain === figures.domain && c.name === figures.channel);
        if (channel && channel.subbufSize)
            written += Number(figures.packets) * Number(channel.subbufSize);
    }
    return { time: Date.now(), usage: buffers ? inUse / buffers : 0, discarded, written };
}

export function addSample(path, described) {
    const point = pointOf(described);
    if (!point)
        return;
    const history = histories.get(path) || [];
    history.push(point);
    if (history.length > MAX_POINTS)
        history.splice(0, history.length - MAX_POINTS);
    histories.set(path, history);
}

export function forgetSamples(path) {
    histories.delete(path);
}

// "x,y x,y ..." of values over times, scaled into the chart.
function polylinePoints(times, values, top) {
    const first = times[0];
    const span = Math.max(times[times.length - 1] - first, 1);
    return values.map((value, i) => {
        const x = times.length === 1
            ? WIDTH - MARGIN
            : MARGIN + (times[i] - first) / span * (WIDTH - 2 * MARGIN);
        const y = HEIGHT - MARGIN - Math.min(value / top, 1) * (HEIGHT - 2 * MARGIN);
        return x.toFixed(1) + "," + y.toFixed(1);
    }).join(" ");
}

function svgNode(tag, attributes) {
    const node = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attributes))
        node.setAttribute(name, value);
    return node;
}

function drawPlot(figure, series, history) {
    const times = history.map(point => point.time);
    const values = history.map(point => point[series.key]);
    const max = values.length ? Math.max(...values) : 0;
    const top = series.top(max);
    const svg = svgNode("svg", {
        class: "tc-plot-chart", viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img",
        "aria-label": series.title,
    });
    svg.append(svgNode("rect", {
        class: "tc-plot-frame", x: 0.5, y: 0.5, width: WIDTH - 1, height: HEIGHT - 1,
    }));
    if (values.length) {
        svg.append(svgNode("polyline", {
            class: "tc-plot-line", points: polylinePoints(times, values, top),
        }));
    }
    const last = values.length ? values[values.length - 1] : null;
    // The numbers behind the line, for whoever reads the page's DOM.
    figure.dataset.points = String(values.length);
    figure.dataset.last = last === null ? "" : String(last);
    figure.replaceChildren(
        element("figcaption", {}, [
            element("span", { className: "tc-plot-title", textContent: series.title }),
            element("span", {
                className: "tc-plot-value",
                textContent: last === null ? "—" : series.format(last),
            }),
        ]),
        svg,
        element("span", {
            className: "tc-plot-scale tc-muted",
            textContent: cockpit.format(_("scale: $0"), series.format(top)),
        }));
}

/*
 * Draws path's plots; periodMs: how often the page reads the session
 * while it records, null when it does not (stopped, or the page hidden).
 */
export function renderPlots(path, periodMs) {
    const history = histories.get(path) || [];
    for (const series of SERIES)
        drawPlot($(series.id), series, history);
    let note;
    if (history.length === 0)
        note = _("No figures yet: points are added while the session records.");
    else if (periodMs !== null)
        note = cockpit.format(_("A point every $0 s, at the channels' monitor timer; " +
                                "the last $1 points are kept while this page is open."),
                              (periodMs / 1000).toFixed(periodMs < 10000 ? 1 : 0), MAX_POINTS);
    else
        note = _("No point is added while the session is stopped or the page is hidden.");
    $("tc-plots-note").textContent = note;
}
