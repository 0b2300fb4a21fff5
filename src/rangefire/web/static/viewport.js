// Zoom and pan over the table's drawing by its viewBox: the wheel zooms about the pointer, a drag pans, two
// fingers pinch, buttons and keys (+, -, 0, arrows) do the same for those without a mouse. A press that does
// not move is a click, handed to onPick with the unit under it (the drawing's g[data-unit]). A press on a piece the
// page's mover takes (one's own unit, its turning handle) drags that piece instead of the table.

const MIN_SPAN = 40;     // pixels of the drawing at the most zoomed in
const CLICK_SLOP = 6;
const NARROW = window.matchMedia("(max-width: 820px)");  // as style.css: the table above the panel    // a press that moves less than this (screen pixels) is a click, not a drag

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
    this.home = tableBox(svg, box);
    if (!keep) this.view = [...this.home];
    svg.removeAttribute("width");
    svg.removeAttribute("height");
    svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
    this.host.replaceChildren(svg);
    this.svg = svg;
    this.size();
    this.apply();
  }

  // On a narrow screen the table takes the height its shape needs at that width, no more (the panel follows).
  size() {
    const width = this.host.clientWidth;
    if (!width || !NARROW.matches || !this.home) { this.host.style.height = ""; return; }
    const tall = (width * this.home[3]) / this.home[2];
    this.host.style.height = `${Math.round(Math.min(Math.max(tall + 8, 240), window.innerHeight * 0.7))}px`;
  }

  zoomed() { return this.view.some((v, i) => Math.abs(v - this.full[i]) > 0.5); }

  apply() {
    if (this.svg) this.svg.setAttribute("viewBox", this.view.map((v) => v.toFixed(2)).join(" "));
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
