// Moving a unit on the table: drag a piece of your own side (mouse, pen or a finger) and its outline follows
// where it would go, with the distance it would move; drop it on the table and the move is sent (dropped off
// the table, nothing is sent). A picked unit turns by its handle or by [ and ] (15 degrees), steps by the arrow
// keys (half an inch, or half a step), and is sent with Enter; Escape puts it back. What the rules refuse is
// written next to the unit with its clause.
//
// Positions are the table's (y up the table): a Dress on the Colors unit stands by the midpoint of its front
// edge, the others by their base centre; a facing is in degrees, 0 up the table, 90 towards +x. The drawing
// says where the table's origin is in pixels and how many pixels a unit of the table is.
//
// swerve has no table: a card of yours goes to another mission by a list and a button beside it (missionMoves).
import { clauseLine, h } from "./dom.js";

export const KEY_STEP = 0.5;  // table units an arrow key moves
export const KEY_TURN = 15;   // degrees [ and ] turn
const HANDLE_R = 11;          // the turning handle's radius, in the drawing's pixels
const HANDLE_SNAP = 5;        // degrees the handle turns by

// A number of the battle as the server writes it: a number, or exact "n/d" text.
export function tableNumber(value) {
  if (typeof value === "number") return value;
  if (typeof value === "string") {
    const m = value.trim().match(/^(-?[\d.]+)(?:\/([\d.]+))?$/);
    if (m) return m[2] ? Number(m[1]) / Number(m[2]) : Number(m[1]);
  }
  return NaN;
}

// "3.25 in", "1.50 steps": to two decimals, in the game's own unit.
export function distanceText(value, unit) {
  const n = tableNumber(value);
  if (!Number.isFinite(n)) return "";
  return `${n.toFixed(2)}${unit ? ` ${unit}` : ""}`;
}

function round2(v) { return Math.round(v * 100) / 100; }
function turnText(t) { return `${t > 0 ? "+" : ""}${t}°`; }
function normalTurn(t) { let a = ((t % 360) + 360) % 360; if (a > 180) a -= 360; return Math.round(a * 100) / 100; }

const SVGNS = "http://www.w3.org/2000/svg";
function svgEl(name, attrs = {}) {
  const node = document.createElementNS(SVGNS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

function points(node) {
  if (node.tagName === "polygon") {
    return (node.getAttribute("points") || "").trim().split(/\s+/).map((p) => p.split(",").map(Number))
      .filter((p) => p.length === 2 && p.every(Number.isFinite));
  }
  if (node.tagName === "circle") {
    const cx = Number(node.getAttribute("cx")), cy = Number(node.getAttribute("cy")), r = Number(node.getAttribute("r"));
    return [[cx - r, cy], [cx + r, cy], [cx, cy - r], [cx, cy + r]];
  }
  return [];
}

// Where the drawing puts the table: its origin in pixels, the pixels a table unit is, the game's unit of distance
// ("in", "steps"), and a point of the table in the drawing's pixels and back; null for a drawing without them.
export function tableFrame(svg) {
  if (!svg) return null;
  const s = Number(svg.getAttribute("data-scale")), ox = Number(svg.getAttribute("data-origin-x"));
  const oy = Number(svg.getAttribute("data-origin-y"));
  if (![s, ox, oy].every(Number.isFinite) || s <= 0) return null;
  const unit = svg.getAttribute("data-unit") || "";
  return { s, ox, oy, unit, toPx: (x, y) => [ox + x * s, oy - y * s],
           toTable: (px, py) => [(px - ox) / s, (oy - py) / s] };
}

// swerve: a card of yours in play moved to another mission [SW-9.1], from the cards' view (cards.js draws each
// card as a list item with its button[data-unit]): beside each of your cards at a mission, the battle's other
// missions as a list and a Move button. Nothing is offered when this side may not act now (side is null) or the
// battle has one mission. send(card, mission) makes the move.
export function missionMoves(host, { battle, side, busy, send }) {
  const chosen = new Map([...host.querySelectorAll(".card-move select")]
    .map((s) => [s.getAttribute("data-card"), s.value]));  // kept when the cards are drawn again
  for (const n of host.querySelectorAll(".card-move")) n.remove();
  if (!side || !battle) return;
  const held = new Set(Object.values(battle.hands || {}).flat());
  const inPlay = (battle.cards || []).filter((c) => c.mission && !held.has(c.id));
  const missions = [...new Set(inPlay.map((c) => c.mission))];
  if (missions.length < 2) return;
  for (const card of inPlay.filter((c) => c.owner === side)) {
    const button = [...host.querySelectorAll(".mission button[data-unit]")]
      .find((b) => b.getAttribute("data-unit") === card.id);
    const item = button && button.closest("li");
    if (!item) continue;
    const id = `to-mission-${card.id}`;
    const select = h("select", { id, "data-card": card.id },
      ...missions.filter((m) => m !== card.mission)
        .map((m) => h("option", { value: m, selected: chosen.get(card.id) === m }, m)));
    const label = card.name ? `${card.name} (${card.id})` : card.id;
    item.append(h("div", { class: "card-move" },
      h("label", { for: id }, "Move to mission"), select,
      h("button", { type: "button", "data-move-card": card.id, disabled: busy,
                    "aria-label": `Move ${label} to the mission chosen`,
                    onclick: () => send(card.id, select.value) },
        "Move")));
  }
}

export class Mover {
  // ctx: unit(uid) -> the battle's unit ({position, facing}) or null; why(uid) -> why it may not move now (null:
  // it may); picked() -> the unit picked on the page; send(uid, body) -> the server's answer (throws ApiError);
  // done(uid, result) and refused(uid, exc) after it; say(text) for the status line.
  constructor(viewport, pane, ctx) {
    this.vp = viewport;
    this.ctx = ctx;
    this.uid = null;        // the unit being moved
    this.dx = 0; this.dy = 0; this.turn = 0;  // the move so far, in table units and degrees
    this.grabbed = null;    // "unit" or "handle" while a pointer holds it
    this.start = null;      // [x, y] in the drawing where the pointer took hold
    this.busy = false;
    this.refusal = null;    // {uid, items: [{clause, reason}]} shown by the unit until the next move
    this.readout = h("div", { class: "move-readout", id: "move-readout", hidden: true, "aria-hidden": "true" });
    this.note = h("div", { class: "move-note", id: "move-note", role: "alert", hidden: true });
    pane.append(this.readout, this.note);
    viewport.mover = this;
    viewport.onView = () => this.place();
  }

  // -- the drawing's frame ------------------------------------------------------------------------------------
  frame() { return tableFrame(this.vp.svg); }

  // The piece of a unit on the drawing, its pivot in pixels and its facing, when it may be moved by this page.
  piece(uid) {
    const f = this.frame();
    const u = this.ctx.unit(uid);
    if (!f || !f.unit || !u || !Array.isArray(u.position)) return null;
    const g = [...this.vp.svg.querySelectorAll("g[data-unit]")].find((n) => n.getAttribute("data-unit") === uid);
    if (!g) return null;
    const [x, y] = u.position.map(tableNumber);
    if (![x, y].every(Number.isFinite)) return null;
    const facing = u.facing === undefined || u.facing === null ? null : tableNumber(u.facing);
    return { g, f, pivot: f.toPx(x, y), facing: Number.isFinite(facing) ? facing : null };
  }

  movable(uid) { return Boolean(uid && !this.ctx.why(uid) && this.piece(uid)); }
  pending() { return Boolean(this.uid && (this.dx || this.dy || this.turn)); }

  // -- the pointer (called by the viewport) ----------------------------------------------------------------
  // A press on a piece of one's own side, or on the turning handle: taken here (true), not a pan.
  grab(target, at) {
    if (this.busy || !target || !target.closest) return false;
    const handle = target.closest(".move-handle");
    if (handle) {
      const owner = handle.getAttribute("data-for");
      if (!this.movable(owner)) return false;
      if (owner !== this.uid) this.reset(owner);
      this.grabbed = "handle";
      this.start = at;
      return true;
    }
    const g = target.closest("g[data-unit]");
    const uid = g ? g.getAttribute("data-unit") : null;
    if (!this.movable(uid)) return false;
    if (uid !== this.uid) this.reset(uid);
    this.grabbed = "unit";
    this.start = at;
    this.base = [this.dx, this.dy];
    return true;
  }

  drag(at) {
    const p = this.uid && this.piece(this.uid);
    if (!p || !this.grabbed) return;
    if (this.grabbed === "unit") {
      this.dx = this.base[0] + (at[0] - this.start[0]) / p.f.s;
      this.dy = this.base[1] - (at[1] - this.start[1]) / p.f.s;
    } else {
      const cx = p.pivot[0] + this.dx * p.f.s, cy = p.pivot[1] - this.dy * p.f.s;
      const bearing = (Math.atan2(at[0] - cx, -(at[1] - cy)) * 180) / Math.PI;
      this.turn = normalTurn(Math.round((bearing - (p.facing || 0)) / HANDLE_SNAP) * HANDLE_SNAP);
    }
    this.clearRefusal();
    this.draw(true);
  }

  // The pointer let go after a drag: sent, unless it was let go off the table (then put back, nothing sent).
  drop(at, inside) {
    const was = this.grabbed;
    this.grabbed = null;
    if (!was || !this.uid) return;
    if (!inside || (was === "unit" && !this.onTable(at))) {
      this.cancel("Dropped off the table: the move is cancelled, nothing was sent.");
      return;
    }
    this.send();
  }

  // A drag given up (a second finger came down to pinch): the unit goes back.
  abandon() { if (this.grabbed) { this.grabbed = null; this.cancel(null); } }

  onTable(at) {
    const area = this.vp.svg && this.vp.svg.querySelector("rect.table-area");
    if (!area) return true;
    const x = Number(area.getAttribute("x")), y = Number(area.getAttribute("y"));
    const w = Number(area.getAttribute("width")), hh = Number(area.getAttribute("height"));
    return at[0] >= x && at[0] <= x + w && at[1] >= y && at[1] <= y + hh;
  }

  // -- keys ---------------------------------------------------------------------------------------------------
  // Arrows step the picked unit, [ and ] turn it, Enter sends, Escape puts it back; true when the key was used.
  key(e) {
    if (e.ctrlKey || e.metaKey || e.altKey || this.busy) return false;
    const tag = e.target && e.target.tagName;
    if (["INPUT", "SELECT", "TEXTAREA"].includes(tag)) return false;
    if (e.key === "Escape" && (this.pending() || this.refusal)) {
      this.cancel("Move cancelled: the unit stays where it stood.");
      return true;
    }
    if (e.key === "Enter" && this.pending()) { this.send(); return true; }
    const uid = this.ctx.picked();
    const steps = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] }[e.key];
    const turn = { "[": -KEY_TURN, "]": KEY_TURN }[e.key];
    if (!steps && !turn) return false;
    if (!this.movable(uid)) return false;
    if (uid !== this.uid) this.reset(uid);
    this.nudge(steps ? steps[0] * KEY_STEP : 0, steps ? steps[1] * KEY_STEP : 0, turn || 0);
    return true;
  }

  nudge(dx, dy, turn) {
    const uid = this.ctx.picked();
    if (!this.movable(uid)) return;
    if (uid !== this.uid) this.reset(uid);
    if (turn && this.piece(uid).facing === null) {
      this.ctx.say(`${uid} has no facing to turn: it moves only.`);
      return;
    }
    this.dx = round2(this.dx + dx); this.dy = round2(this.dy + dy); this.turn = normalTurn(this.turn + turn);
    this.clearRefusal();
    this.draw(false);
  }

  // -- sending ------------------------------------------------------------------------------------------------
  body() {
    const body = { unit: this.uid };
    const by = [round2(this.dx), round2(this.dy)];
    if (by[0] || by[1]) body.by = by;
    if (this.turn) body.turn = this.turn;
    return body;
  }

  async send() {
    const uid = this.uid;
    const body = this.body();
    if (!uid || (!body.by && !body.turn)) { this.cancel(null); return; }
    this.busy = true;
    this.draw(false);
    try {
      const result = await this.ctx.send(uid, body);
      this.busy = false;
      this.uid = null; this.dx = 0; this.dy = 0; this.turn = 0;
      this.erase();
      await this.ctx.done(uid, result);
    } catch (exc) {
      this.busy = false;
      const e = exc.error || {};
      const items = Array.isArray(e.refusals) && e.refusals.length ? e.refusals
        : [{ clause: e.clause || null, reason: e.message || exc.message || "the move was refused" }];
      this.refusal = { uid, items };
      this.draw(false);
      this.ctx.refused(uid, exc, items);
    }
  }

  // -- what is shown ------------------------------------------------------------------------------------------
  reset(uid) {
    this.uid = uid; this.dx = 0; this.dy = 0; this.turn = 0; this.refusal = null;
    this.erase();
  }

  cancel(message) {
    this.uid = null; this.dx = 0; this.dy = 0; this.turn = 0; this.grabbed = null; this.refusal = null;
    this.erase();
    this.decorate();
    if (message) this.ctx.say(message);
    this.ctx.changed?.();
  }

  clearRefusal() { if (this.refusal) { this.refusal = null; this.note.hidden = true; } }

  erase() {
    for (const n of this.vp.svg ? this.vp.svg.querySelectorAll(".move-ghost, .move-path") : []) n.remove();
    this.readout.hidden = true;
    this.note.hidden = true;
    this.vp.svg?.querySelector(`g.moving`)?.classList.remove("moving");
  }

  // The distance the move would be, as the rules measure it: for a unit placed by its front edge (stands), the
  // farthest any corner of its stands travels [DC-10.3]; otherwise base centre to base centre.
  distance(p) {
    const stands = [...p.g.querySelectorAll(".stand")];
    if (!stands.length || !this.turn) return Math.hypot(this.dx, this.dy);
    const a = (this.turn * Math.PI) / 180, c = Math.cos(a), s = Math.sin(a);
    const [px, py] = p.pivot, tx = this.dx * p.f.s, ty = -this.dy * p.f.s;
    let best = 0;
    for (const stand of stands) {
      for (const [x, y] of points(stand)) {
        const rx = px + (x - px) * c - (y - py) * s + tx, ry = py + (x - px) * s + (y - py) * c + ty;
        best = Math.max(best, Math.hypot(rx - x, ry - y));
      }
    }
    return best / p.f.s;
  }

  text(p) {
    const bits = [`${this.uid}: ${distanceText(this.distance(p), p.f.unit)}`];
    if (this.turn) bits.push(`turn ${turnText(this.turn)}`);
    return bits.join(", ");
  }

  // The outline where the unit would go, the path to it, the distance by it and any refusal beside it.
  draw(live) {
    const svg = this.vp.svg;
    for (const n of svg ? svg.querySelectorAll(".move-ghost, .move-path") : []) n.remove();
    const p = this.uid && this.piece(this.uid);
    if (!p) { this.erase(); this.decorate(); return; }
    const tx = this.dx * p.f.s, ty = -this.dy * p.f.s;
    const ghost = p.g.cloneNode(true);
    for (const n of [ghost, ...ghost.querySelectorAll("*")]) {
      for (const name of ["data-unit", "data-id", "data-side", "id"]) n.removeAttribute(name);
    }
    for (const n of ghost.querySelectorAll("title, .zone-of-control")) n.remove();
    ghost.setAttribute("class", `move-ghost${this.refusal ? " refused" : ""}${this.busy ? " sending" : ""}`);
    ghost.setAttribute("transform", `translate(${tx.toFixed(2)} ${ty.toFixed(2)}) rotate(${this.turn} ${p.pivot[0]} ${p.pivot[1]})`);
    const path = svgEl("line", { class: "move-path", x1: p.pivot[0], y1: p.pivot[1], x2: p.pivot[0] + tx, y2: p.pivot[1] + ty });
    svg.append(path, ghost);
    p.g.classList.add("moving");
    this.readout.textContent = this.text(p);
    this.readout.hidden = false;
    this.readout.classList.toggle("live", live);
    this.ctx.changed?.();
    this.decorate();
    this.place();
  }

  // The turning handle of the picked unit, ahead of its front (where its game gives it a facing).
  decorate() {
    const svg = this.vp.svg;
    if (!svg) return;
    for (const n of svg.querySelectorAll(".move-handle")) n.remove();
    const uid = this.uid || this.ctx.picked();
    if (!this.movable(uid)) return;
    const p = this.piece(uid);
    if (p.facing === null) return;
    const facing = p.facing + (uid === this.uid ? this.turn : 0);
    const a = (facing * Math.PI) / 180, fx = Math.sin(a), fy = -Math.cos(a);
    let ahead = 0;
    for (const shape of p.g.querySelectorAll("polygon, circle")) {
      for (const [x, y] of points(shape)) ahead = Math.max(ahead, (x - p.pivot[0]) * fx + (y - p.pivot[1]) * fy);
    }
    const moved = uid === this.uid ? [this.dx * p.f.s, -this.dy * p.f.s] : [0, 0];
    const cx = p.pivot[0] + moved[0], cy = p.pivot[1] + moved[1];
    const r = ahead + 26;
    const hx = cx + fx * r, hy = cy + fy * r;
    const handle = svgEl("g", { class: "move-handle", "data-for": uid });
    handle.append(svgEl("line", { x1: cx + fx * ahead, y1: cy + fy * ahead, x2: hx, y2: hy, class: "move-handle-stem" }),
      svgEl("circle", { cx: hx, cy: hy, r: HANDLE_R, class: "move-handle-knob" }));
    const title = svgEl("title");
    title.textContent = `Turn ${uid}: drag this handle, or press [ and ] (${KEY_TURN}°); it turns by ${HANDLE_SNAP}°`;
    handle.prepend(title);
    svg.append(handle);
  }

  // The distance and a refusal are written over the table in the page's own type (readable at any zoom), by
  // where the unit would go.
  place() {
    const p = this.uid && this.piece(this.uid);
    if (!p) { this.readout.hidden = true; this.note.hidden = true; return; }
    const host = this.vp.host.getBoundingClientRect();
    const pane = this.readout.offsetParent ? this.readout.offsetParent.getBoundingClientRect() : host;
    const [sx, sy] = this.vp.toScreen(p.pivot[0] + this.dx * p.f.s, p.pivot[1] - this.dy * p.f.s);
    const clampX = (x, w) => Math.min(Math.max(x, host.left + 4), host.right - w - 4);
    const clampY = (y, hh) => Math.min(Math.max(y, host.top + 4), host.bottom - hh - 4);
    const refused = Boolean(this.refusal && this.refusal.uid === this.uid);
    if (refused) this.readout.hidden = true;  // the refusal says it all, and the table stays in sight around it
    if (!this.readout.hidden) {
      const w = this.readout.offsetWidth, hh = this.readout.offsetHeight;
      this.readout.style.left = `${clampX(sx - w / 2, w) - pane.left}px`;
      this.readout.style.top = `${clampY(sy - hh - 34, hh) - pane.top}px`;
    }
    if (refused) {
      this.note.replaceChildren(h("strong", {}, `${this.uid} cannot move there`),
        h("ul", {}, ...this.refusal.items.map((r) => clauseLine("li", r.reason, r.clause))));
      this.note.hidden = false;
      const w = this.note.offsetWidth, hh = this.note.offsetHeight;
      // below where the unit would go, or above it where there is more room there
      const below = host.bottom - sy, above = sy - host.top;
      this.note.style.left = `${clampX(sx - w / 2, w) - pane.left}px`;
      this.note.style.top = `${clampY(below >= hh + 24 || below >= above ? sy + 22 : sy - hh - 22, hh) - pane.top}px`;
    } else {
      this.note.hidden = true;
    }
  }
}
