// The exact odds of one outcome as an inline SVG chart: a bar for "exactly N", a line for "at least N", each
// bar and point focusable (and tapped on a touch screen), its percentage and exact fraction in its <title> (shown
// on hover) and in a readout under the chart (shown on hover, focus or a tap, and read out by screen readers); a
// legend says which is the bar and which the line. Below it, the same numbers as a table.
import { fracText, parseFrac, percent, rows, toNumber } from "./frac.js";

const NS = "http://www.w3.org/2000/svg";

function el(name, attrs = {}, text = null) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== null) node.textContent = text;
  return node;
}

function html(name, attrs = {}, text = null) {
  const node = document.createElement(name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== null) node.textContent = text;
  return node;
}

// "exactly 2 hits: 32.9% (80/243)": the percentage first, the exact fraction beside it.
function say(kind, item, name) {
  const p = kind === "exactly" ? item.exactly : item.atLeast;
  return `${kind} ${item.key} ${name}: ${percent(p)} (${fracText(p)})`;
}

// The legend: a swatch of the bar and of the line as the chart draws them, each with what it shows.
function legend(label, line) {
  const key = (cls, draw) => {
    const svg = el("svg", { viewBox: "0 0 24 12", width: 24, height: 12, class: `key ${cls}`, "aria-hidden": "true" });
    svg.append(draw);
    return svg;
  };
  const items = [html("span", { class: "legend-item" })];
  items[0].append(key("key-bar", el("rect", { x: 5, y: 1, width: 14, height: 10, class: "bar" })),
    document.createTextNode(` bars: exactly N ${label}`));
  if (line) {
    const item = html("span", { class: "legend-item" });
    const swatch = key("key-line", el("line", { x1: 1, y1: 6, x2: 23, y2: 6, class: "at-least" }));
    swatch.append(el("circle", { cx: 12, cy: 6, r: 3.5, class: "point" }));
    item.append(swatch, document.createTextNode(` line: at least N ${label}`));
    items.push(item);
  }
  const p = html("p", { class: "legend" });
  p.append(...items);
  return p;
}

export function outcomeChart(name, distribution, mean) {
  const { items, numeric } = rows(distribution);
  const label = name.replace(/_/g, " ");
  const figure = html("figure", { class: "chart", "data-outcome": name });
  const caption = html("figcaption");
  caption.append(html("strong", {}, label));
  if (mean !== undefined && mean !== null) {
    let text = String(mean);
    try {
      const f = parseFrac(mean);
      if (f.den !== 1n) text = `≈ ${toNumber(f).toFixed(3)} (exactly ${fracText(f)})`;
    } catch (exc) { /* shown as sent */ }
    caption.append(document.createTextNode(` — mean ${text}`));
  }
  figure.append(caption);

  const width = 320, height = 150, left = 34, right = 8, top = 8, bottom = 24;
  const plotW = width - left - right, plotH = height - top - bottom;
  const svg = el("svg", { viewBox: `0 0 ${width} ${height}`, class: "chart-svg", role: "group",
                          "aria-label": `${label}: exactly N as bars, at least N as a line` });
  for (const g of [0, 0.25, 0.5, 0.75, 1]) {
    const y = top + plotH * (1 - g);
    svg.append(el("line", { x1: left, x2: width - right, y1: y, y2: y, class: "grid" }));
    svg.append(el("text", { x: left - 4, y: y + 4, class: "axis", "text-anchor": "end" }, `${g * 100}%`));
  }
  const n = Math.max(items.length, 1);
  const slot = plotW / n;
  const readout = html("p", { class: "readout", "aria-live": "polite" });
  const show = (text) => () => { readout.textContent = text; };
  const points = [];
  items.forEach((item, i) => {
    const x = left + slot * i;
    const h = plotH * toNumber(item.exactly);
    const bar = el("rect", { x: x + slot * 0.15, y: top + plotH - h, width: slot * 0.7, height: Math.max(h, 0.5),
                             class: "bar", tabindex: 0, "data-value": item.key,
                             "data-exactly": fracText(item.exactly) });
    const text = say("exactly", item, label);
    bar.append(el("title", {}, text));
    bar.setAttribute("aria-label", text);
    for (const ev of ["mouseenter", "focus", "click"]) bar.addEventListener(ev, show(text));
    svg.append(bar);
    if (n <= 24 || i % Math.ceil(n / 24) === 0) {
      svg.append(el("text", { x: x + slot / 2, y: height - 8, class: "axis", "text-anchor": "middle" }, item.key));
    }
    if (numeric) points.push([x + slot / 2, top + plotH * (1 - toNumber(item.atLeast)), item]);
  });
  if (points.length) {
    svg.append(el("polyline", { points: points.map(([x, y]) => `${x},${y}`).join(" "), class: "at-least" }));
    for (const [x, y, item] of points) {
      const dot = el("circle", { cx: x, cy: y, r: 4.5, class: "point", tabindex: 0, "data-value": item.key,
                                 "data-at-least": fracText(item.atLeast) });
      const text = say("at least", item, label);
      dot.append(el("title", {}, text));
      dot.setAttribute("aria-label", text);
      for (const ev of ["mouseenter", "focus", "click"]) dot.addEventListener(ev, show(text));
      svg.append(dot);
    }
  }
  readout.textContent = "Tap or point at a bar or a point for its exact odds.";
  figure.append(svg, legend(label, points.length > 0), readout);

  const details = html("details", { class: "odds-table" });
  details.append(html("summary", {}, `${label} as a table`));
  const table = html("table");
  const head = html("tr");
  for (const h of [label, "exactly", "at least"]) head.append(html("th", { scope: "col" }, h));
  table.append(head);
  for (const item of items) {
    const tr = html("tr", { "data-value": item.key });
    tr.append(html("th", { scope: "row" }, item.key));
    tr.append(html("td", { class: "exactly" }, `${fracText(item.exactly)} (${percent(item.exactly)})`));
    tr.append(html("td", { class: "at-least" }, item.atLeast ? `${fracText(item.atLeast)} (${percent(item.atLeast)})` : "—"));
    table.append(tr);
  }
  details.append(table);
  figure.append(details);
  return figure;
}
