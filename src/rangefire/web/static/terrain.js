// Terrain in set-up (DC-10.4, AL-10.3, BU-9.3: either side places it): a polygon drawn on the table or typed as its
// corners, checked on the page as the server checks one (a simple polygon of positive area: a self-crossing shape is
// refused here with the reason, before anything is sent); the pieces on the table listed, each removed by a button;
// a picked piece dragged to a new place. The corners are exact numbers, as the scenario holds them.
import { clauseLine, h } from "./dom.js";
import { tableFrame } from "./moves.js";

// -- exact numbers of the table ------------------------------------------------------------------------------------
// A corner's numbers are kept exact, as the server reads them (10.1 is 101/10; "1/3" a third): {num, den} with
// BigInt terms, den > 0, in lowest terms.
function gcd(a, b) { a = a < 0n ? -a : a; b = b < 0n ? -b : b; while (b) [a, b] = [b, a % b]; return a; }
function ratio(num, den) {
  if (den < 0n) { num = -num; den = -den; }
  const g = gcd(num, den) || 1n;
  return { num: num / g, den: den / g };
}

// "10", "-2.25", ".5", "3/4" or a number of the page: exactly, or null when it is none of those.
export function exactOf(value) {
  const text = typeof value === "number" ? (Number.isFinite(value) ? String(value) : "") : String(value ?? "");
  let m = /^\s*([+-]?)(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (m) {
    const den = BigInt(m[3]);
    return den === 0n ? null : ratio((m[1] === "-" ? -1n : 1n) * BigInt(m[2]), den);
  }
  m = /^\s*([+-]?)(\d*)(?:\.(\d*))?\s*$/.exec(text);
  if (!m || !(m[2] || m[3])) return null;
  const decimals = m[3] || "";
  return ratio((m[1] === "-" ? -1n : 1n) * BigInt(`${m[2] || "0"}${decimals}`), 10n ** BigInt(decimals.length));
}

// An exact number as the scenario is sent it: a JSON number where a short decimal says it exactly, else "n/d".
export function exactValue(f) {
  let den = f.den, k = 0n;
  for (const p of [2n, 5n]) while (den % p === 0n) den /= p;
  if (den !== 1n) return `${f.num}/${f.den}`;
  while ((10n ** k) % f.den !== 0n) k += 1n;
  const scaled = (f.num < 0n ? -f.num : f.num) * (10n ** k / f.den);
  const digits = scaled.toString().padStart(Number(k) + 1, "0");
  const text = `${f.num < 0n ? "-" : ""}${k ? `${digits.slice(0, -Number(k))}.${digits.slice(-Number(k))}` : digits}`;
  return digits.replace(/^0+/, "").length <= 15 ? Number(text) : text;
}

function exactText(f) {
  const v = exactValue(f);
  return typeof v === "number" ? String(v) : v;
}

function exactNumber(f) { return Number(f.num) / Number(f.den); }

// -- a polygon of terrain ------------------------------------------------------------------------------------------
export const MAX_CORNERS = 256;  // as the scenario's polygons allow

// "x,y x,y x,y" (any spaces, commas or semicolons between the numbers, taken two by two): exact corners, or an
// error naming what does not read.
export function parseCorners(text) {
  const words = String(text || "").replace(/[()[\]]/g, " ").split(/[\s,;]+/).filter(Boolean);
  const numbers = words.map((w, i) => {
    const f = exactOf(w);
    if (!f) throw new Error(`corners: ${JSON.stringify(w)} (number ${i + 1}) is not a number (10, 2.5 or 1/3)`);
    return f;
  });
  if (numbers.length % 2) {
    throw new Error(`corners: ${numbers.length} numbers, not pairs: each corner is x,y (as "0,0 6,0 6,4")`);
  }
  const corners = [];
  for (let i = 0; i < numbers.length; i += 2) corners.push([numbers[i], numbers[i + 1]]);
  return corners;
}

export function cornersText(corners) { return corners.map(([x, y]) => `${exactText(x)},${exactText(y)}`).join(" "); }

// The corners on one grid of whole numbers (each coordinate times the least common denominator), so that every
// test below is exact.
function onGrid(corners) {
  let lcm = 1n;
  for (const [x, y] of corners) for (const f of [x, y]) lcm = (lcm / gcd(lcm, f.den)) * f.den;
  return corners.map(([x, y]) => [x.num * (lcm / x.den), y.num * (lcm / y.den)]);
}

function orient(a, b, c) {
  const v = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
  return v > 0n ? 1 : v < 0n ? -1 : 0;
}

function within(p, a, b) {  // p on the closed segment ab, given the three on one line
  const lo = (i) => (a[i] < b[i] ? a[i] : b[i]), hi = (i) => (a[i] < b[i] ? b[i] : a[i]);
  return lo(0) <= p[0] && p[0] <= hi(0) && lo(1) <= p[1] && p[1] <= hi(1);
}

function meet(a, b, c, d) {  // the closed segments ab and cd share a point (touching counts)
  const o1 = orient(a, b, c), o2 = orient(a, b, d), o3 = orient(c, d, a), o4 = orient(c, d, b);
  if (o1 * o2 < 0 && o3 * o4 < 0) return true;
  return (o1 === 0 && within(c, a, b)) || (o2 === 0 && within(d, a, b)) || (o3 === 0 && within(a, c, d))
    || (o4 === 0 && within(b, c, d));
}

// Why these corners are not a piece of terrain, or null when they are: a simple polygon of positive area, as the
// server reads one (at least 3 corners, no corner repeated, no side crossing or doubling back over another).
export function polygonProblem(corners) {
  const n = corners.length;
  if (n < 3) {
    return `a piece of terrain has at least 3 corners; ${n === 0 ? "none is" : n === 1 ? "1 is" : `${n} are`} given`;
  }
  if (n > MAX_CORNERS) return `a piece of terrain has at most ${MAX_CORNERS} corners; ${n} are given`;
  const p = onGrid(corners);
  const side = (i) => `the side from corner ${i + 1} to ${((i + 1) % n) + 1}`;
  for (let i = 0; i < n; i++) {
    const [a, b] = [p[i], p[(i + 1) % n]];
    if (a[0] === b[0] && a[1] === b[1]) return `corner ${((i + 1) % n) + 1} is corner ${i + 1} again`;
  }
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const [a, b, c, d] = [p[i], p[(i + 1) % n], p[j], p[(j + 1) % n]];
      if (j === i + 1 || (i === 0 && j === n - 1)) {
        // two sides from one corner meet there only: on one line they must not turn back over each other
        const [from, at, to] = j === i + 1 ? [a, b, d] : [c, a, b];
        const back = (at[0] - from[0]) * (to[0] - at[0]) + (at[1] - from[1]) * (to[1] - at[1]) < 0n;
        const [first, second] = j === i + 1 ? [i, j] : [j, i];
        if (orient(from, at, to) === 0 && back) return `${side(first)} turns back over ${side(second)}`;
      } else if (meet(a, b, c, d)) {
        return `${side(i)} crosses ${side(j)}: a piece of terrain is one shape whose sides meet only at its corners`;
      }
    }
  }
  let area2 = 0n;
  for (let i = 0; i < n; i++) { const [a, b] = [p[i], p[(i + 1) % n]]; area2 += a[0] * b[1] - b[0] * a[1]; }
  return area2 === 0n ? "its corners enclose no area (they lie on one line)" : null;
}

// The corners moved by an offset, exactly.
export function shifted(corners, dx, dy) {
  const add = (f, g) => ratio(f.num * g.den + g.num * f.den, f.den * g.den);
  return corners.map(([x, y]) => [add(x, dx), add(y, dy)]);
}

// -- terrain on the table in set-up --------------------------------------------------------------------------------
// A polygon drawn on the table (Draw, then a click or a tap at each corner; the first corner again, Enter or
// Close ends it; Backspace takes back a corner, Escape gives up), or typed as "x,y x,y x,y"; the pieces on the
// table listed, each removed by a button; a piece picked (a click or a tap on it) dragged to a new place. Every
// change is a set-up edit of the terrain section (POST .../edit), which either side may make (DC-10.4, AL-10.3,
// BU-9.3). Corners drawn or dragged fall on the half unit of the table (inches, or steps).
export const SNAP = 0.5;
const SLOP = 6;          // screen pixels a press moves and is still a click
const CLOSE_NEAR = 14;   // screen pixels from the first corner that close the polygon (a finger: more)
const SVGNS = "http://www.w3.org/2000/svg";

function svgEl(name, attrs = {}) {
  const node = document.createElementNS(SVGNS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

function snapped(v) { return Math.round(v / SNAP) * SNAP; }
function half(v) { return ratio(BigInt(Math.round(v / SNAP)), BigInt(Math.round(1 / SNAP))); }
function itemsOf(exc) {
  const e = exc && exc.error ? exc.error : {};
  return Array.isArray(e.refusals) && e.refusals.length ? e.refusals
    : [{ clause: e.clause || null, reason: `${e.message || exc.message}${e.path ? ` (at ${e.path})` : ""}` }];
}

export class TerrainTool {
  // ctx: state() -> the battle's state as served; api() -> the page's Api; act(label, run) runs one action at a
  // time, showing a failure; refresh(reason) reloads the page's battle; say(text) writes the status line.
  constructor(viewport, ctx) {
    this.vp = viewport;
    this.ctx = ctx;
    this.on = false;
    this.kinds = [];
    this.drawing = false;
    this.changing = null;   // the id whose corners the form changes, else null (the form places a new piece)
    this.picked = null;     // the piece picked on the table
    this.press = null;      // a press on a piece, not yet a click or a drag
    this.drag = null;       // a picked piece being dragged: {id, pointerId, x, y, moved, by}
    this.pointers = new Map();  // while drawing: the pointers down (a second one pinches)
    this.hover = null;      // while drawing: the table point under a mouse
    this.box = null;
    const pane = viewport.host.parentElement;
    for (const [type, run] of [["pointerdown", (e) => this.down(e)], ["pointermove", (e) => this.move(e)],
      ["pointerup", (e) => this.up(e)], ["pointercancel", (e) => this.lost(e)]]) {
      pane.addEventListener(type, run, true);  // before the table's own pan and pick (viewport.js)
    }
    window.addEventListener("keydown", (e) => this.key(e), true);
    window.addEventListener("resize", () => this.place());
    new MutationObserver(() => this.decorate()).observe(viewport.host, { childList: true });
  }

  // -- the panel ------------------------------------------------------------------------------------------------
  build() {
    const field = (id, label, control, help) => h("div", { class: "field" }, h("label", { for: id }, label), control,
      help ? h("p", { class: "help", id: `${id}-help` }, help) : null);
    this.id = h("input", { id: "polygon-id", autocomplete: "off", placeholder: "given if left empty" });
    this.kind = h("select", { id: "polygon-kind" });
    this.corners = h("input", { id: "polygon-corners", autocomplete: "off", spellcheck: "false",
                                "aria-describedby": "polygon-corners-help", placeholder: "x,y x,y x,y" });
    this.drawButton = h("button", { type: "button", id: "polygon-draw" }, "Draw on the table");
    this.submit = h("button", { type: "submit", id: "polygon-place" }, "Place the polygon");
    this.stopChange = h("button", { type: "button", id: "polygon-keep", hidden: true }, "Leave it as it is");
    this.heading = h("h3", {}, "Terrain: a polygon");
    this.form = h("form", { id: "polygon-form", class: "choices" }, this.heading,
      field("polygon-id", "id", this.id), field("polygon-kind", "kind", this.kind),
      field("polygon-corners", "corners", this.corners,
        "Each corner x,y in order round the piece, spaces between: \"0,0 6,0 6,4\". Or Draw it: click or tap each "
        + "corner on the table, then the first corner again (or Enter) to close it; Backspace takes back a corner, "
        + "Escape gives up."),
      h("div", { class: "buttons" }, this.drawButton, this.submit, this.stopChange));
    this.refusals = h("ul", { id: "polygon-refusals", class: "refusals" });
    this.list = h("ul", { id: "setup-pieces", class: "setup-pieces", tabindex: "-1" });
    this.box = h("div", { id: "terrain-tool", class: "terrain-tool" }, this.form, this.refusals,
      h("h3", {}, "On the table"), h("p", { class: "hint", id: "setup-pieces-hint" },
        "Pick a piece of terrain (here or on the table) and drag it on the table to move it."), this.list);
    (document.getElementById("terrain-refusals") || document.getElementById("setup-section")).after(this.box);
    this.form.addEventListener("submit", (e) => { e.preventDefault(); this.send(); });
    this.drawButton.addEventListener("click", () => (this.drawing ? this.close() : this.start()));
    this.stopChange.addEventListener("click", () => this.reset("The piece is left as it was."));
    this.corners.addEventListener("input", () => this.draft());
    // a bar over the table while drawing, for a finger that has no Enter, Backspace or Escape
    this.closeButton = h("button", { type: "button", id: "draw-close", class: "primary" }, "Close it");
    this.backButton = h("button", { type: "button", id: "draw-back" }, "Take back a corner");
    this.quitButton = h("button", { type: "button", id: "draw-cancel" }, "Cancel");
    this.drawWhat = h("span", { id: "draw-what", "aria-live": "polite" });
    this.bar = h("div", { id: "draw-bar", class: "draw-bar", hidden: true }, this.drawWhat,
      h("span", { class: "buttons" }, this.closeButton, this.backButton, this.quitButton));
    this.closeButton.addEventListener("click", () => this.close());
    this.backButton.addEventListener("click", () => this.back());
    this.quitButton.addEventListener("click", () => this.stop("Drawing given up: nothing was placed."));
    this.vp.host.after(this.bar);
  }

  // Shown in set-up on a side's page (on: the page says so), with the game's kinds of terrain.
  render(on) {
    if (on && !this.box) this.build();
    if (!this.box) return;
    this.on = Boolean(on);
    this.box.hidden = !this.on;
    if (!this.on) { this.stop(null); this.picked = null; this.decorate(); return; }
    const state = this.ctx.state();
    const terrain = this.terrain();
    if (this.picked && !terrain.some((t) => t.id === this.picked)) this.picked = null;
    if (this.changing && !terrain.some((t) => t.id === this.changing)) this.reset(null);
    this.form.hidden = this.kinds.length === 0;
    const mine = (state.units || []).filter((u) => u.side === state.you.side).map((u) => u.id);
    const drawn = JSON.stringify([terrain.map((t) => [t.id, t.kind]), mine, this.picked]);
    if (drawn !== this.drawn) this.listPieces(terrain, mine);
    this.drawn = drawn;
    document.getElementById("setup-pieces-hint").hidden = terrain.length === 0;
    this.draft();
  }

  // The pieces on the table, each with its buttons; the focus kept on the button it was on (or, the piece gone,
  // on the row that took its place), so that a keyboard goes on from where it was.
  listPieces(terrain, mine) {
    const active = this.list.contains(document.activeElement) ? document.activeElement : null;
    const kind = active ? ["data-remove", "data-change"].find((a) => active.hasAttribute(a)) || "piece" : null;
    const row = active ? [...this.list.children].indexOf(active.closest("li")) : -1;
    const rows = terrain.map((t) => h("li", { "data-terrain": t.id, class: t.id === this.picked ? "picked" : null },
      h("button", { type: "button", class: "piece", "aria-pressed": t.id === this.picked ? "true" : "false",
                    onclick: () => this.pick(t.id === this.picked ? null : t.id) }, `${t.id} (${t.kind})`),
      h("button", { type: "button", "data-change": t.id, "aria-label": `Change the corners of ${t.id}`,
                    onclick: () => this.change(t.id) }, "Corners"),
      h("button", { type: "button", "data-remove": t.id, "aria-label": `Remove ${t.id}`,
                    onclick: () => this.remove("terrain", t.id) }, "Remove")));
    rows.push(...mine.map((uid) => h("li", { "data-unit": uid }, h("span", { class: "piece" }, uid),
      h("button", { type: "button", "data-remove": uid, "aria-label": `Remove ${uid}`,
                    onclick: () => this.remove("units", uid) }, "Remove"))));
    this.list.replaceChildren(...(rows.length ? rows : [h("li", { class: "hint" }, "Nothing placed yet.")]));
    if (!active) return;
    const id = active.getAttribute(kind) || active.closest("li").getAttribute("data-terrain")
      || active.closest("li").getAttribute("data-unit");
    const same = [...this.list.querySelectorAll("button")].find((b) => (b.getAttribute(kind) === id)
      || (kind === "piece" && b.classList.contains("piece") && b.closest("li").getAttribute("data-terrain") === id));
    const near = this.list.children[Math.min(row, this.list.children.length - 1)];
    const next = same || (near && (near.querySelector(`[${kind}]`) || near.querySelector("button")));
    (next || this.list).focus();
  }

  setKinds(kinds) {
    this.kinds = kinds;
    if (!this.box) return;
    this.kind.replaceChildren(...kinds.map((k) => h("option", { value: k }, k)));
    this.form.hidden = !this.on || kinds.length === 0;
  }

  terrain() {
    const battle = this.ctx.state() && this.ctx.state().battle;
    return battle && Array.isArray(battle.terrain) ? battle.terrain : [];
  }

  refuse(items) {
    this.refusals.replaceChildren(...items.map((r) => clauseLine("li", r.reason, r.clause)));
  }

  // The piece the form describes: its id (the first free "<kind>-<n>" when left empty), kind and exact corners.
  read() {
    const kind = this.kind.value;
    let id = this.changing || this.id.value.trim();
    if (!id) {
      const taken = new Set(this.terrain().map((t) => t.id));
      let n = 1;
      while (taken.has(`${kind}-${n}`)) n += 1;
      id = `${kind}-${n}`;
    }
    const corners = parseCorners(this.corners.value);
    const problem = polygonProblem(corners);
    if (problem) throw new Error(`corners: ${problem}`);
    return { id, kind, polygon: corners.map(([x, y]) => [exactValue(x), exactValue(y)]) };
  }

  send() {
    let data;
    try {
      data = this.read();
    } catch (exc) {
      this.refuse([{ reason: exc.message }]);
      this.ctx.say(`Not placed: ${exc.message}`);
      return;
    }
    const op = this.changing ? "change" : "place";
    const body = { op, section: "terrain", id: data.id,
                   data: op === "change" ? { kind: data.kind, polygon: data.polygon } : data };
    this.stop(null);
    this.edit(body, `${data.id} ${op === "place" ? "placed" : "changed"}`, () => this.reset(null));
  }

  // One action at a time: an edit asked while the page is still busy with the last one waits for it (a few
  // seconds at most, then it says so) rather than being dropped unseen.
  async edit(body, done, after) {
    for (let i = 0; i < 100 && this.ctx.busy?.(); i++) await new Promise((ready) => setTimeout(ready, 50));
    if (this.ctx.busy?.()) {
      this.ctx.say("The last action has not landed yet: nothing was sent; try again.");
      return;
    }
    await this.ctx.act("terrain", async () => {
      try {
        const result = await this.ctx.api().post("/edit", body);
        this.refuse([]);
        after?.();
        await this.ctx.refresh(`${done} (action ${result.action}).`);
      } catch (exc) {
        this.refuse(itemsOf(exc));
        this.decorate();
        throw exc;
      }
    });
  }

  remove(section, id) {
    if (section === "terrain" && this.picked === id) this.picked = null;
    if (this.changing === id) this.reset(null);
    return this.edit({ op: "remove", section, id }, `${id} removed`);
  }

  // The form changes a piece's corners (and kind): they are put in it to be edited.
  change(id) {
    const t = this.terrain().find((x) => x.id === id);
    if (!t) return;
    this.stop(null);
    this.changing = t.id;
    this.id.value = t.id;
    this.id.readOnly = true;
    if (this.kinds.includes(t.kind)) this.kind.value = t.kind;
    this.corners.value = cornersText(t.polygon.map(([x, y]) => [exactOf(x), exactOf(y)]));
    this.heading.textContent = `Terrain: the corners of ${t.id}`;
    this.submit.textContent = `Change ${t.id}`;
    this.stopChange.hidden = false;
    this.pick(t.id);
    this.corners.focus();
    this.draft();
  }

  reset(message) {
    this.changing = null;
    this.id.readOnly = false;
    this.id.value = "";
    this.corners.value = "";
    this.heading.textContent = "Terrain: a polygon";
    this.submit.textContent = "Place the polygon";
    this.stopChange.hidden = true;
    this.refuse([]);
    this.draft();
    if (message) this.ctx.say(message);
  }

  pick(id) {
    this.picked = id;
    for (const li of this.list.querySelectorAll("li[data-terrain]")) {
      const on = li.getAttribute("data-terrain") === id;
      li.classList.toggle("picked", on);
      li.querySelector("button.piece")?.setAttribute("aria-pressed", on ? "true" : "false");
    }
    this.decorate();
    if (id) this.ctx.say(`${id} picked: drag it on the table to move it; Corners or Remove beside it in the list.`);
  }

  // -- drawing ----------------------------------------------------------------------------------------------------
  start() {
    if (this.changing) this.reset(null);
    this.drawing = true;
    this.corners.value = "";
    this.refuse([]);
    this.drawButton.textContent = "Close it";
    this.vp.host.classList.add("drawing-terrain");
    this.bar.hidden = false;
    this.place();
    this.vp.host.scrollIntoView({ block: "nearest" });
    this.bar.scrollIntoView({ block: "nearest" });  // the bar above it in sight too (a phone's narrow page)
    this.draft();
    this.tell();
  }

  // The bar over the table's toolbar, just above the table: the whole table stays in sight to be drawn on.
  place() {
    if (!this.bar || this.bar.hidden) return;
    this.bar.style.top = `${Math.max(0, this.vp.host.offsetTop - this.bar.offsetHeight - 4)}px`;
  }

  stop(message) {
    if (!this.drawing) return;
    this.drawing = false;
    this.pointers.clear();
    this.hover = null;
    this.drawButton.textContent = "Draw on the table";
    this.vp.host.classList.remove("drawing-terrain");
    this.bar.hidden = true;
    if (message) { this.corners.value = ""; this.draft(); this.ctx.say(message); }
  }

  list_() { try { return parseCorners(this.corners.value); } catch (exc) { return []; } }

  tell() {
    const n = this.list_().length;
    const text = n === 0 ? "Click or tap the table at the first corner."
      : n < 3 ? `${n} corner${n === 1 ? "" : "s"}: the next one (3 at least).`
        : `${n} corners: the next, or the first corner again (Enter) to close it.`;
    this.drawWhat.textContent = text;
    this.closeButton.disabled = n < 3;
    this.backButton.disabled = n === 0;
    this.ctx.say(`Drawing terrain: ${text} Backspace takes back a corner, Escape gives up.`);
  }

  // A corner where the table was clicked (the first one again closes the polygon).
  corner(clientX, clientY, touch) {
    const f = tableFrame(this.vp.svg);
    if (!f) return;
    const corners = this.list_();
    if (corners.length >= 3) {
      const [fx, fy] = f.toPx(exactNumber(corners[0][0]), exactNumber(corners[0][1]));
      const [sx, sy] = this.vp.toScreen(fx, fy);
      if (Math.hypot(sx - clientX, sy - clientY) <= CLOSE_NEAR * (touch ? 1.6 : 1)) { this.close(); return; }
    }
    const [px, py] = this.vp.toDrawing(clientX, clientY);
    let [x, y] = f.toTable(px, py).map(snapped);
    const table = (this.ctx.state().battle || {}).table;
    if (table) {
      const [w, d] = [table.width, table.depth].map((v) => exactNumber(exactOf(v) || ratio(0n, 1n)));
      if (x < -2 || y < -2 || x > w + 2 || y > d + 2) {
        this.ctx.say(`That is off the table (0 to ${w} by 0 to ${d}): no corner there.`);
        return;
      }
      x = Math.min(Math.max(x, 0), w); y = Math.min(Math.max(y, 0), d);
    }
    const last = corners[corners.length - 1];
    if (last && exactNumber(last[0]) === x && exactNumber(last[1]) === y) return;  // the same corner twice
    corners.push([half(x), half(y)]);
    this.corners.value = cornersText(corners);
    this.draft();
    this.tell();
  }

  back() {
    const corners = this.list_();
    corners.pop();
    this.corners.value = cornersText(corners);
    this.draft();
    this.tell();
  }

  // Closed: checked here (a self-crossing shape is refused with its reason and the drawing goes on), then sent.
  close() {
    const corners = this.list_();
    const problem = polygonProblem(corners);
    if (problem) {
      this.refuse([{ reason: `corners: ${problem}` }]);
      this.drawWhat.textContent = `Not closed: ${problem}.`;
      this.ctx.say(`Not closed: ${problem}. Take back a corner (Backspace), or Escape to give up.`);
      this.draft(true);
      return;
    }
    this.send();
  }

  key(e) {
    if (!this.on || e.ctrlKey || e.metaKey || e.altKey) return;
    const tag = e.target && e.target.tagName;
    const typing = ["INPUT", "SELECT", "TEXTAREA"].includes(tag);
    let done = false;
    if (this.drawing) {
      // Enter closes it, unless it presses a button or picks from a list (Cancel, Take back a corner)
      if (e.key === "Enter" && !["BUTTON", "SELECT", "TEXTAREA", "A", "SUMMARY"].includes(tag)) {
        this.close();
        done = true;
      }
      else if (e.key === "Escape") { this.stop("Drawing given up: nothing was placed."); done = true; }
      else if (e.key === "Backspace" && !typing) { this.back(); done = true; }
    } else if (this.drag && e.key === "Escape") {
      this.undrag("The piece stays where it was."); done = true;
    } else if (this.picked && e.key === "Delete" && !typing) {
      this.remove("terrain", this.picked); done = true;
    }
    if (done) { e.preventDefault(); e.stopPropagation(); }
  }

  // -- the pointer, before the table's own handling -------------------------------------------------------------
  within(e) { return this.on && this.vp.host.contains(e.target); }

  take(e) {
    e.stopPropagation();
    e.preventDefault();
    this.vp.host.setPointerCapture?.(e.pointerId);
  }

  pieceAt(target) {
    if (!target || !target.closest || target.closest("g[data-unit]")) return null;
    const poly = target.closest("polygon.terrain[data-id]");
    const label = poly ? null : target.closest("g.terrain-name[data-for]");
    const id = poly ? poly.getAttribute("data-id") : label ? label.getAttribute("data-for") : null;
    return id && this.terrain().some((t) => t.id === id) ? id : null;
  }

  down(e) {
    if (!this.within(e) || (e.button !== undefined && e.button > 0)) return;
    if (this.drawing) {
      this.take(e);
      this.pointers.set(e.pointerId, { x: e.clientX, y: e.clientY, moved: 0, touch: e.pointerType === "touch" });
      if (this.pointers.size > 1) for (const p of this.pointers.values()) p.moved = SLOP + 1;  // a pinch, not a corner
      return;
    }
    const id = this.pieceAt(e.target);
    if (id && id === this.picked && e.isPrimary && !this.drag) {
      this.take(e);
      this.drag = { id, pointerId: e.pointerId, x: e.clientX, y: e.clientY, moved: 0, by: [0, 0] };
      return;
    }
    if (this.drag) { this.undrag(null); return; }  // a second finger: the table is pinched instead
    this.press = id && e.isPrimary ? { id, pointerId: e.pointerId, x: e.clientX, y: e.clientY } : null;
  }

  move(e) {
    if (!this.on) return;
    if (this.drawing) {
      const p = this.pointers.get(e.pointerId);
      if (!p) {
        if (this.within(e) && e.pointerType === "mouse") { this.hover = [e.clientX, e.clientY]; this.draft(); }
        return;
      }
      e.stopPropagation();
      const [, , s] = this.vp.toDrawing(e.clientX, e.clientY);
      if (this.pointers.size === 2) {
        const [a, b] = [...this.pointers.values()];
        const before = Math.hypot(a.x - b.x, a.y - b.y);
        p.x = e.clientX; p.y = e.clientY;
        const after = Math.hypot(a.x - b.x, a.y - b.y);
        if (before > 0 && after > 0) this.vp.zoom(after / before, (a.x + b.x) / 2, (a.y + b.y) / 2);
        return;
      }
      const dx = e.clientX - p.x, dy = e.clientY - p.y;
      p.moved += Math.abs(dx) + Math.abs(dy);
      p.x = e.clientX; p.y = e.clientY;
      if (p.moved > SLOP) this.vp.pan(-dx * s, -dy * s);  // a drag pans the table while drawing
      return;
    }
    if (this.drag && e.pointerId === this.drag.pointerId) {
      e.stopPropagation();
      const d = this.drag;
      d.moved = Math.max(d.moved, Math.hypot(e.clientX - d.x, e.clientY - d.y));
      if (d.moved <= SLOP) return;
      const f = tableFrame(this.vp.svg);
      const [ax, ay] = this.vp.toDrawing(d.x, d.y), [bx, by] = this.vp.toDrawing(e.clientX, e.clientY);
      d.by = [snapped((bx - ax) / f.s), snapped(-(by - ay) / f.s)];
      this.decorate();
      this.ctx.say(`${d.id}: by ${d.by[0]}, ${d.by[1]} ${f.unit}; let go to put it there, Escape to leave it.`);
    }
  }

  up(e) {
    if (!this.on) return;
    if (this.drawing) {
      const p = this.pointers.get(e.pointerId);
      if (!p) return;
      e.stopPropagation();
      this.pointers.delete(e.pointerId);
      if (p.moved <= SLOP && !this.pointers.size) this.corner(e.clientX, e.clientY, p.touch);
      return;
    }
    if (this.drag && e.pointerId === this.drag.pointerId) {
      e.stopPropagation();
      const d = this.drag;
      const r = this.vp.host.getBoundingClientRect();
      const inside = e.clientX >= r.left && e.clientX <= r.right && e.clientY >= r.top && e.clientY <= r.bottom;
      if (d.moved <= SLOP) { this.drag = null; return; }
      if (!inside) { this.undrag("Dropped off the table: the piece stays where it was, nothing was sent."); return; }
      if (!d.by[0] && !d.by[1]) { this.undrag(null); return; }
      const t = this.terrain().find((x) => x.id === d.id);
      const corners = shifted(t.polygon.map(([x, y]) => [exactOf(x), exactOf(y)]), half(d.by[0]), half(d.by[1]));
      this.edit({ op: "change", section: "terrain", id: d.id,
                  data: { polygon: corners.map(([x, y]) => [exactValue(x), exactValue(y)]) } },
      `${d.id} moved by ${d.by[0]}, ${d.by[1]}`, () => { this.drag = null; })
        .finally(() => { if (this.drag === d) this.undrag(null); });
      return;
    }
    const press = this.press;
    this.press = null;
    if (press && press.pointerId === e.pointerId && Math.hypot(e.clientX - press.x, e.clientY - press.y) <= SLOP
        && this.pieceAt(document.elementFromPoint(e.clientX, e.clientY)) === press.id) {
      this.pick(press.id === this.picked ? null : press.id);
    }
  }

  lost(e) {
    if (this.drawing) this.pointers.delete(e.pointerId);
    if (this.drag && e.pointerId === this.drag.pointerId) this.undrag(null);
    this.press = null;
  }

  undrag(message) {
    this.drag = null;
    this.decorate();
    if (message) this.ctx.say(message);
  }

  // -- what is drawn over the table -------------------------------------------------------------------------------
  draft(failed = false) {
    this.decorate(failed);
  }

  decorate(failed = false) {
    const svg = this.vp.svg;
    if (!svg) return;
    for (const n of svg.querySelectorAll(".terrain-draft")) n.remove();
    for (const n of svg.querySelectorAll("polygon.terrain[data-id], g.terrain-name[data-for]")) {
      const id = n.getAttribute("data-id") || n.getAttribute("data-for");
      n.classList.toggle("terrain-editable", this.on && !this.drawing);
      n.classList.toggle("terrain-picked", this.on && id === this.picked);
      const by = this.drag && this.drag.id === id ? this.drag.by : null;
      const f = by && tableFrame(svg);
      if (f) n.setAttribute("transform", `translate(${by[0] * f.s} ${-by[1] * f.s})`);
      else n.removeAttribute("transform");
    }
    const f = tableFrame(svg);
    if (!this.on || !f || !this.box) return;
    const corners = this.list_();
    if (!corners.length) return;
    const px = corners.map(([x, y]) => f.toPx(exactNumber(x), exactNumber(y)));
    const bad = failed || (!this.drawing && corners.length >= 3 && polygonProblem(corners) !== null);
    const g = svgEl("g", { class: `terrain-draft${bad ? " refused" : ""}${this.drawing ? " open" : ""}` });
    const pts = px.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(" ");
    g.append(svgEl(this.drawing ? "polyline" : "polygon", { points: pts, class: "draft-shape" }));
    if (this.drawing && this.hover) {
      const [hx, hy] = this.vp.toDrawing(...this.hover);
      const [tx, ty] = f.toTable(hx, hy).map(snapped);
      const [qx, qy] = f.toPx(tx, ty);
      const [lx, ly] = px[px.length - 1];
      g.append(svgEl("line", { x1: lx, y1: ly, x2: qx, y2: qy, class: "draft-next" }));
    }
    px.forEach(([x, y], i) => g.append(svgEl("circle", { cx: x, cy: y, r: i === 0 && this.drawing ? 7 : 4.5,
                                                         class: i === 0 ? "draft-corner first" : "draft-corner" })));
    svg.append(g);
  }
}
