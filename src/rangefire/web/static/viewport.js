// Zoom and pan over the table's drawing by its viewBox: the wheel zooms about the pointer, a drag pans, two
// fingers pinch, buttons and keys (+, -, 0, arrows) do the same for those without a mouse. A press that does
// not move is a click, handed to onPick with the unit under it (the drawing's g[data-unit]). A press on a piece the
// page's mover takes (one's own unit, its turning handle) drags that piece instead of the table.
//
// The table's labels (names, badges, the range, terrain) are drawn at least MIN_TEXT pixels high at any zoom, a
// unit's name and badges grown together away from its piece; the drawing's title is wrapped to the width of the
// table as fitted, and the view takes the room it needs above the table, so that it is never cut.

const MIN_SPAN = 40;     // pixels of the drawing at the most zoomed in
const CLICK_SLOP = 6;    // a press that moves less than this (screen pixels) is a click, not a drag
const MIN_TEXT = 11;     // pixels: the least a label of the table or the title is drawn at
const NARROW = window.matchMedia("(max-width: 820px)");  // as style.css: the table above the panel
const SVGNS = "http://www.w3.org/2000/svg";

export class Viewport {
  constructor(host, onPick) {
    this.host = host;
    this.onPick = onPick;
    this.svg = null;
    this.full = null;     // the drawing's own viewBox: [x, y, w, h]
    this.view = null;     // the part shown
    this.pointers = new Map();
    this.moved = 0;
    this.mover = null;    // moves.js's Mover, once the page has one
    this.onView = null;   // called whenever the part shown changes
    host.addEventListener("wheel", (e) => this.wheel(e), { passive: false });
    host.addEventListener("pointerdown", (e) => this.down(e));
    host.addEventListener("pointermove", (e) => this.move(e));
    host.addEventListener("pointerup", (e) => this.up(e));
    host.addEventListener("pointercancel", (e) => {
      if (this.pointers.get(e.pointerId)?.grab) this.mover?.abandon();
      this.pointers.delete(e.pointerId);
    });
    host.addEventListener("keydown", (e) => this.key(e));
    window.addEventListener("resize", () => this.size());  // a tablet turned, a window narrowed
  }

  // A new drawing: the view is kept when the user had zoomed or panned and the drawing is the same size.
  show(svg) {
    const box = (svg.getAttribute("viewBox") || "0 0 100 100").split(/[\s,]+/).map(Number);
    const keep = this.view && this.full && this.full[2] === box[2] && this.full[3] === box[3] && this.zoomed();
    this.full = box;
    svg.removeAttribute("width");
    svg.removeAttribute("height");
    svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
    this.host.replaceChildren(svg);
    this.svg = svg;
    this.readAt = null;
    this.home = tableBox(svg, box);
    this.size();
    this.fitTitle();
    if (!keep) this.view = [...this.home];
    this.apply();
  }

  // Screen pixels to a unit of the drawing, for a view (the one shown unless told): "meet", so the larger ratio
  // governs.
  scale(view = this.view) {
    const r = this.host.getBoundingClientRect();
    if (!view || !r.width || !r.height) return 0;
    return Math.min(r.width / view[2], r.height / view[3]);
  }

  // The title wrapped to the table's width as fitted, at least MIN_TEXT pixels high there; the fitted view grown
  // upwards by what it needs (twice over: a taller view may draw a little smaller on a wide screen).
  fitTitle() {
    for (let i = 0; i < 3; i++) {
      const above = wrapTitle(this.svg, this.scale(this.home), this.home);
      if (above <= 0.5) return;
      this.home = [this.home[0], this.home[1] - above, this.home[2], this.home[3] + above];
      this.size();
    }
  }

  // On a narrow screen the table takes the height its shape needs at that width, no more (the panel follows).
  size() {
    const width = this.host.clientWidth;
    if (!width || !NARROW.matches || !this.home) { this.host.style.height = ""; return; }
    const tall = (width * this.home[3]) / this.home[2];
    this.host.style.height = `${Math.round(Math.min(Math.max(tall + 8, 240), window.innerHeight * 0.7))}px`;
    this.readAt = null;
  }

  zoomed() { return this.view.some((v, i) => Math.abs(v - this.full[i]) > 0.5); }

  apply() {
    if (this.svg) {
      this.svg.setAttribute("viewBox", this.view.map((v) => v.toFixed(2)).join(" "));
      const s = this.scale();
      if (s && s !== this.readAt) {  // a pan leaves the scale as it was: nothing to redo
        this.readAt = s;
        enlargeLabels(this.svg, s, this.home);
      }
    }
    this.onView?.();
  }

  // The table itself (its title above it), the legend and notes below left for panning or "whole drawing".
  fit() { if (this.home) { this.view = [...this.home]; this.apply(); } }

  whole() { if (this.full) { this.view = [...this.full]; this.apply(); } }

  // The drawing's coordinates under a point of the screen.
  toDrawing(clientX, clientY) {
    const r = this.host.getBoundingClientRect();
    const [x, y, w, h] = this.view;
    const s = Math.max(w / r.width, h / r.height);  // "meet": the larger ratio governs, the rest is centred
    const ox = x - (r.width * s - w) / 2, oy = y - (r.height * s - h) / 2;
    return [ox + (clientX - r.left) * s, oy + (clientY - r.top) * s, s];
  }

  // The point of the screen a point of the drawing is shown at.
  toScreen(x, y) {
    const r = this.host.getBoundingClientRect();
    const [vx, vy, w, h] = this.view;
    const s = Math.max(w / r.width, h / r.height);
    const ox = vx - (r.width * s - w) / 2, oy = vy - (r.height * s - h) / 2;
    return [r.left + (x - ox) / s, r.top + (y - oy) / s];
  }

  zoom(factor, clientX, clientY) {
    if (!this.view) return;
    const r = this.host.getBoundingClientRect();
    const cx = clientX ?? r.left + r.width / 2, cy = clientY ?? r.top + r.height / 2;
    const [px, py] = this.toDrawing(cx, cy);
    let [x, y, w, h] = this.view;
    const most = Math.max(this.full[2], this.full[3]) * 2;
    const nw = Math.min(Math.max(w / factor, MIN_SPAN), most);
    const k = nw / w;
    this.view = [px - (px - x) * k, py - (py - y) * k, w * k, h * k];
    this.apply();
  }

  pan(dx, dy) {  // in the drawing's units
    if (!this.view) return;
    this.view[0] += dx;
    this.view[1] += dy;
    this.apply();
  }

  wheel(e) {
    e.preventDefault();
    this.zoom(Math.exp(-e.deltaY * (e.deltaMode === 1 ? 0.05 : 0.0015)), e.clientX, e.clientY);
  }

  down(e) {
    if (e.button !== undefined && e.button > 0) return;
    this.host.setPointerCapture?.(e.pointerId);
    const first = this.pointers.size === 0;
    const grab = first && this.mover ? this.mover.grab(e.target, this.toDrawing(e.clientX, e.clientY)) : false;
    this.pointers.set(e.pointerId, { x: e.clientX, y: e.clientY, target: e.target, grab });
    if (first) { this.moved = 0; return; }
    this.moved = CLICK_SLOP + 1;  // a second finger: a pinch, never a click, nor a piece dragged
    for (const p of this.pointers.values()) {
      if (p.grab) { p.grab = false; this.mover?.abandon(); }
    }
  }

  move(e) {
    const p = this.pointers.get(e.pointerId);
    if (!p) return;
    if (this.pointers.size === 2) {
      const [a, b] = [...this.pointers.values()];
      const before = Math.hypot(a.x - b.x, a.y - b.y);
      p.x = e.clientX; p.y = e.clientY;
      const after = Math.hypot(a.x - b.x, a.y - b.y);
      if (before > 0 && after > 0) this.zoom(after / before, (a.x + b.x) / 2, (a.y + b.y) / 2);
      return;
    }
    const [qx, qy, s] = this.toDrawing(e.clientX, e.clientY);
    const dx = e.clientX - p.x, dy = e.clientY - p.y;
    this.moved += Math.abs(dx) + Math.abs(dy);
    p.x = e.clientX; p.y = e.clientY;
    if (this.moved <= CLICK_SLOP) return;
    if (p.grab) this.mover.drag([qx, qy]);
    else this.pan(-dx * s, -dy * s);
  }

  up(e) {
    const p = this.pointers.get(e.pointerId);
    this.pointers.delete(e.pointerId);
    if (p && p.grab && this.moved > CLICK_SLOP) {
      const r = this.host.getBoundingClientRect();
      const inside = e.clientX >= r.left && e.clientX <= r.right && e.clientY >= r.top && e.clientY <= r.bottom;
      const [qx, qy] = this.toDrawing(e.clientX, e.clientY);
      this.mover.drop([qx, qy], inside);
      return;
    }
    if (p && p.grab) this.mover.grabbed = null;
    if (!p || this.pointers.size || this.moved > CLICK_SLOP) return;
    const hit = document.elementFromPoint(e.clientX, e.clientY) || p.target;
    if (!hit || !hit.closest) return;
    const unit = hit.closest("g[data-unit]");
    if (unit) { this.onPick(unit.getAttribute("data-unit")); return; }
    // a unit's name is drawn above every piece (g.label data-for="<id>"): a press on it picks the unit too
    const label = hit.closest("g.label[data-for]");
    const owner = label ? label.getAttribute("data-for") : null;
    if (owner && [...this.svg.querySelectorAll("g[data-unit]")].some((g) => g.getAttribute("data-unit") === owner)) {
      this.onPick(owner);
    }
  }

  key(e) {
    if (!this.view) return;
    if (this.mover && this.mover.key(e)) { e.preventDefault(); e.stopPropagation(); return; }
    const step = this.view[2] / 10;
    const keys = {
      "+": () => this.zoom(1.25), "=": () => this.zoom(1.25), "-": () => this.zoom(0.8), "0": () => this.fit(),
      ArrowLeft: () => this.pan(-step, 0), ArrowRight: () => this.pan(step, 0),
      ArrowUp: () => this.pan(0, -step), ArrowDown: () => this.pan(0, step),
    };
    if (keys[e.key] && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault();
      keys[e.key]();
    }
  }
}

// The labels of the table drawn at least MIN_TEXT pixels high at `s` screen pixels to a unit of the drawing, and
// laid out again so that they stay readable: each grown about its middle, a unit's (its name, its badges, a
// refusal's clause) together about the edge of them nearest its piece, so that they grow away from it; then, in
// the drawing's units, each kept on the table's area (the fitted view `home` where the drawing marks none) and
// moved off the title and the labels placed before it (a unit's name, the range, a clause first; badges and
// terrain names after, left out where no room is found: the units' list and a zoom show them). Never shrunk: at a
// zoom where they read, they are as drawn.
function enlargeLabels(svg, s, home) {
  const groups = new Map();
  for (const g of svg.querySelectorAll("g.labels > g.label")) {
    const key = g.getAttribute("data-for") || g;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(g);
  }
  const plans = new Map();  // label -> its box once grown, how, and its inner group
  for (const [key, labels] of groups) {
    const inners = labels.map(grownOf);
    for (const inner of inners) { inner.removeAttribute("transform"); inner.removeAttribute("display"); }
    let boxes;
    try { boxes = inners.map((inner) => inner.getBBox()); } catch (exc) { continue; }  // not laid out yet
    const sizes = labels.flatMap((g) => [...g.querySelectorAll("text")].map((t) => Number(t.getAttribute("font-size")) || 14));
    // a hair over, so that rounding never leaves one a fraction of a pixel short
    const k = sizes.length ? (MIN_TEXT * 1.02) / (Math.min(...sizes) * s) : 1;
    const grow = k > 1 ? k : 1;
    const all = union(boxes);
    let ay = all.y + all.height / 2;
    const piece = typeof key === "string"
      ? [...svg.querySelectorAll("g[data-unit]")].find((g) => g.getAttribute("data-unit") === key) : null;
    if (piece && grow > 1) {
      const p = piece.getBBox();
      const py = p.y + p.height / 2;
      if (py <= all.y) ay = all.y;
      else if (py >= all.y + all.height) ay = all.y + all.height;
    }
    const ax = all.x + all.width / 2;
    labels.forEach((g, i) => {
      const b = boxes[i];
      plans.set(g, { inner: inners[i], k: grow, ax, ay, box: { x: ax + (b.x - ax) * grow, y: ay + (b.y - ay) * grow,
                                                              width: b.width * grow, height: b.height * grow } });
    });
  }
  const optional = (g) => g.classList.contains("badges") || g.classList.contains("terrain-name");
  const order = [...plans.keys()].sort((a, b) => Number(optional(a)) - Number(optional(b)));
  // the labels stay on the table, under the title (which is in the way of none of them)
  const area = tableArea(svg) || { x: home[0], y: home[1], width: home[2], height: home[3] };
  const room = [area.x, area.y, area.width, area.height];
  const placed = [];
  const title = svg.querySelector("text.title");
  try { if (title) placed.push(title.getBBox()); } catch (exc) { /* not laid out yet */ }
  const gap = 6 / s;  // six pixels between labels
  for (const g of order) {
    const { inner, k, ax, ay, box } = plans.get(g);
    if (k === 1) { placed.push(box); continue; }  // as drawn: where the drawing put it
    const w = box.width + gap, hgt = box.height + gap;
    const tries = [[0, 0], [0, hgt], [0, -hgt], [w / 2, 0], [-w / 2, 0], [0, 2 * hgt], [0, -2 * hgt]];
    let at = null;
    for (const [tx, ty] of tries) {
      const moved = inside({ ...box, x: box.x + tx, y: box.y + ty }, room);
      if (!placed.some((o) => overlap(o, moved, gap))) { at = moved; break; }
    }
    if (!at) {
      if (optional(g)) { inner.setAttribute("display", "none"); continue; }
      at = inside(box, room);
    }
    placed.push(at);
    const dx = at.x - box.x, dy = at.y - box.y;
    inner.setAttribute("transform", `translate(${dx.toFixed(2)} ${dy.toFixed(2)}) translate(${ax.toFixed(2)} ${ay.toFixed(2)}) `
      + `scale(${k.toFixed(3)}) translate(${(-ax).toFixed(2)} ${(-ay).toFixed(2)})`);
  }
}

// The table's own area in the drawing (rect.table-area), or null.
function tableArea(svg) {
  const rect = svg.querySelector("rect.table-area");
  if (!rect) return null;
  const [x, y, width, height] = ["x", "y", "width", "height"].map((k) => Number(rect.getAttribute(k)));
  return [x, y, width, height].every(Number.isFinite) && width > 0 && height > 0 ? { x, y, width, height } : null;
}

// The group a label's shapes are grown in (the label's own transform is left alone: a terrain piece dragged in
// set-up moves its name by it); its tooltip stays on the label.
function grownOf(label) {
  let inner = label.querySelector(":scope > g.grown");
  if (!inner) {
    inner = document.createElementNS(SVGNS, "g");
    inner.setAttribute("class", "grown");
    inner.append(...[...label.childNodes].filter((n) => n.nodeName !== "title"));
    label.append(inner);
  }
  return inner;
}

function union(boxes) {
  const x0 = Math.min(...boxes.map((b) => b.x)), y0 = Math.min(...boxes.map((b) => b.y));
  const x1 = Math.max(...boxes.map((b) => b.x + b.width)), y1 = Math.max(...boxes.map((b) => b.y + b.height));
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

function overlap(a, b, gap) {
  return a.x < b.x + b.width + gap && b.x < a.x + a.width + gap && a.y < b.y + b.height + gap && b.y < a.y + a.height + gap;
}

// A box moved into a view [x, y, w, h] as far as it fits (a box wider than the view keeps its left edge in).
function inside(box, view) {
  const [vx, vy, vw, vh] = view;
  const x = Math.max(vx, Math.min(box.x, vx + vw - box.width));
  const y = Math.max(vy, Math.min(box.y, vy + vh - box.height));
  return { ...box, x, y };
}

// The drawing's title (text.title) in lines no wider than the view `home` leaves right of it, drawn at least
// MIN_TEXT pixels high at `s` screen pixels to a unit; its last line stays where the title was drawn (above the
// table). Answers the room the lines need above the view's top, in the drawing's units (0: none).
function wrapTitle(svg, s, home) {
  const title = svg && svg.querySelector("text.title");
  if (!title || !s) return 0;
  if (title.dataset.text === undefined) {
    title.dataset.text = title.textContent;
    title.dataset.size = title.getAttribute("font-size") || "18";
  }
  // a hair over: the view grown for the title draws a little smaller on a wide screen
  const size = Math.max(Number(title.dataset.size) || 18, (MIN_TEXT * 1.05) / s);
  const x = Number(title.getAttribute("x")) || 0, y = Number(title.getAttribute("y")) || 0;
  const room = home[0] + home[2] - x - 4;
  title.setAttribute("font-size", size.toFixed(2));
  title.replaceChildren();
  const probe = document.createElementNS(SVGNS, "tspan");
  title.append(probe);
  const lines = [];
  let line = "";
  for (const word of title.dataset.text.split(/\s+/).filter(Boolean)) {
    const next = line ? `${line} ${word}` : word;
    probe.textContent = next;
    if (line && probe.getComputedTextLength() > room) { lines.push(line); line = word; } else line = next;
  }
  lines.push(line);
  title.replaceChildren();
  const lead = size * 1.2;
  lines.forEach((text, i) => {
    const span = document.createElementNS(SVGNS, "tspan");
    span.setAttribute("x", String(x));
    span.setAttribute("y", (y - (lines.length - 1 - i) * lead).toFixed(2));
    span.textContent = text;
    title.append(span);
  });
  const top = y - (lines.length - 1) * lead - size;
  return Math.max(0, home[1] - (top - 4));
}

// The box of the drawing's table area (and the title above it), within the whole drawing.
function tableBox(svg, full) {
  const area = svg.querySelector("rect.table-area");
  if (!area) return [...full];
  const x = Number(area.getAttribute("x")), y = Number(area.getAttribute("y"));
  const w = Number(area.getAttribute("width")), h = Number(area.getAttribute("height"));
  if (![x, y, w, h].every(Number.isFinite) || w <= 0 || h <= 0) return [...full];
  const pad = 12;
  return [Math.max(full[0], x - pad), full[1], Math.min(w + 2 * pad, full[2]), Math.min(y + h + pad - full[1], full[3])];
}

// The server's drawing as a node of this page. It is the engine's own SVG (its text escaped by the engine);
// still, nothing that could run is let in: no script, no foreign HTML, no event handler, no javascript: link.
export function parseDrawing(text) {
  const doc = new DOMParser().parseFromString(text, "image/svg+xml");
  const root = doc.documentElement;
  if (!root || root.nodeName !== "svg" || doc.getElementsByTagName("parsererror").length) {
    throw new Error("the drawing could not be read");
  }
  for (const bad of [...root.querySelectorAll("script, foreignObject")]) bad.remove();
  for (const node of [root, ...root.querySelectorAll("*")]) {
    for (const attr of [...node.attributes]) {
      const name = attr.name.toLowerCase();
      if (name.startsWith("on") || ((name === "href" || name.endsWith(":href")) && /^\s*javascript:/i.test(attr.value))) {
        node.removeAttribute(attr.name);
      }
    }
  }
  return document.importNode(root, true);
}
