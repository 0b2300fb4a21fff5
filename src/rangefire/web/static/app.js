// The table page: the page's state and its wiring. The drawing from the server (zoom, pan, click a unit), the
// units by side, picking an attacker and its target; the card game in its own view; one's own units moved by
// dragging them or by keys (moves.js), Bushido's states marked. The panels each have their module: the targets,
// line, check, choices and odds of the attack (attack.js), rolling or entering the dice (dice.js), the log, undo
// and end of turn (history.js), set-up (placing.js), the messages (messages.js); another browser's actions arrive
// as server-sent events and the page reloads what changed (live.js). The next thing to do is kept in view in the
// dock (dock.js); a question put to this side shows what each answer makes of the attack (pending.js).
import { Api, ApiError, battleIdFromPath, takeToken } from "./api.js";
import { attackPanel } from "./attack.js";
import { actionLabel, renderCards, renderCombat } from "./cards.js";
import { dicePanel } from "./dice.js";
import { renderDock } from "./dock.js";
import { $, clauseLine, h, show } from "./dom.js";
import { historyPanel } from "./history.js";
import { listen } from "./live.js";
import { clearError, fail, status } from "./messages.js";
import { distanceText, KEY_STEP, KEY_TURN, missionMoves, Mover } from "./moves.js";
import { renderWaiting } from "./pending.js";
import { setupPanel } from "./placing.js";
import { TerrainTool } from "./terrain.js";
import { parseDrawing, Viewport } from "./viewport.js";

const S = {
  api: null, state: null, ruleset: null, attacker: null, target: null, targets: [], check: null, odds: null,
  choices: {}, offered: {}, line: [], entered: [], question: null, asked: 0, seq: 0, busy: false,
  labels: {},      // swerve: each action the engine has labelled for people ("play Smoke Screen: +10 speed")
  preview: null,   // a question put to this side: the answer's target whose line the table shows
};
let viewport = null;
let mover = null;
let terrain = null;  // terrain.js: polygons drawn, pieces removed and dragged in set-up

// The panels of their own modules: each reads the state S and calls back the page's functions given it.
const { renderTargets, renderLine, renderCheck, renderOdds, renderChoices, mainOutcome } =
  attackPanel(S, { you, unitName, select, rerun, readable });
const { renderPlay, roll, enterDice, submitDice, cancelDice } =
  dicePanel(S, { you, attackBody, cannotFire, act, resolved });
const { renderLog, renderUndo, showResult, headOf, endTurn, undo } =
  historyPanel(S, { you, unitName, moveUnit, act, refresh });
const { inSetup, sendMove, renderSetup, placeUnit, placeTerrain, ready } =
  setupPanel(S, { you, battleUnit, act, refresh, terrain: () => terrain });

// -- who may act -----------------------------------------------------------------------------------------------
function you() { return (S.state && S.state.you) || { role: "spectator", side: null }; }
function sideOf(uid) { const u = S.state.units.find((x) => x.id === uid); return u ? u.side : null; }
function sideIndex(side) { return S.state.sides.indexOf(side); }
function unitName(uid) {
  const u = S.state.units.find((x) => x.id === uid);
  return u && u.name && u.name !== uid ? `${u.name} (${uid})` : uid;
}

// Why this page may not act now (null: it may).
function cannotAct() {
  const me = you();
  if (me.role !== "side") return "You watch this battle (a spectator's link): only the sides act.";
  if (S.state.pending) return "An attack waits for a choice: it is answered or withdrawn first.";
  const acting = S.state.side_to_act;
  if (acting && acting !== me.side) return `It is ${acting}'s turn; you play ${me.side}.`;
  return null;
}

function cannotFire() {
  const why = cannotAct();
  if (why) return why;
  if (S.attacker && sideOf(S.attacker) !== you().side) return `${unitName(S.attacker)} is ${sideOf(S.attacker)}'s, not yours.`;
  if (S.check && !S.check.legal) return "The rules refuse this attack (why: under Line and dice).";
  return null;
}

// -- loading ---------------------------------------------------------------------------------------------------
async function loadState() {
  S.state = await S.api.get("");
  S.ruleset = S.ruleset || (await S.api.get("/api/rulesets")).rulesets.find((r) => r.key === S.state.ruleset) || null;
}

async function refresh(reason) {
  try {
    await loadState();
    renderHeader();
    if (S.attacker && !S.state.units.some((u) => u.id === S.attacker)) { S.attacker = null; S.target = null; }
    const seq = S.seq;
    await Promise.all([loadLog(), S.attacker ? loadTargets(seq) : null, S.target ? loadAttack(seq) : null]);
    await drawTable();
    renderUnits();
    renderPanels();
    renderLog();
    if (reason) status(reason);
  } catch (exc) {
    fail(exc);
  }
}

async function drawTable() {
  // The line is drawn to the model the attack is at: a nomination (BU-4.2) moves it off the declared target.
  // Otherwise it is the attack as chosen (an Arcane Legions side, an order); a swerve line of play moves
  // nothing on the table, so it is not sent.
  const plan = S.check && S.check.legal ? S.check.plan : null;
  const moved = Boolean(plan && plan.target && plan.target !== S.target);
  const { actions, ...chosen } = attackBody().choices;
  // an attack waiting for a choice is drawn at its target, or at the answer's this side is looking at
  const waiting = !S.attacker && S.state.pending && S.state.ruleset !== "swerve" ? S.state.pending : null;
  const text = waiting ? await S.api.drawing(waiting.attacker, S.preview || waiting.target)
    : await S.api.drawing(S.attacker, moved ? plan.target : S.target, moved || !S.target ? {} : chosen);
  const svg = parseDrawing(text);
  for (const g of svg.querySelectorAll("g[data-unit]")) {
    const uid = g.getAttribute("data-unit");
    g.classList.add("pickable");
    if (uid === S.attacker) g.classList.add("picked-attacker");
    if (uid === S.target) g.classList.add("picked-target");
    const row = S.targets.find((t) => t.target === uid);
    if (row) g.classList.add(row.legal ? "target-legal" : "target-refused");
  }
  viewport.show(svg);
  if (mover.pending() || mover.refusal) mover.draw(false);
  else mover.decorate();
  renderLine(svg);
  renderMove();
}

async function loadLog() {
  S.actions = (await S.api.get("/actions")).actions;
}

async function loadTargets(seq) {
  const data = await S.api.get(`/targets?attacker=${encodeURIComponent(S.attacker)}`);
  if (seq !== S.seq) return;
  S.targets = Array.isArray(data) ? data : data.targets || [];
}

function attackBody() {
  const choices = { ...S.choices };
  if (S.line.length) choices.actions = [...S.line];
  for (const [k, v] of Object.entries(choices)) if (v === "" || v === null) delete choices[k];
  return { attacker: S.attacker, target: S.target, choices };
}

async function loadAttack(seq) {
  const body = attackBody();
  S.check = null; S.odds = null; S.oddsError = null;
  try {
    const check = await S.api.post("/check", body);
    if (seq !== S.seq) return;
    S.check = check;
  } catch (exc) {
    if (seq !== S.seq) return;
    if (exc instanceof ApiError && exc.status === 409) {
      S.check = { legal: false, refusals: exc.error.refusals || [{ clause: exc.error.clause, reason: exc.message }] };
    } else throw exc;
  }
  if (!S.check.legal) return;
  try {
    const odds = await S.api.post("/odds", body);
    if (seq === S.seq) S.odds = odds;
  } catch (exc) {
    if (seq === S.seq) S.oddsError = exc;
  }
}

// -- picking ---------------------------------------------------------------------------------------------------
async function pick(uid) {
  if (!S.state || !S.state.units.some((u) => u.id === uid)) return;
  clearError();
  if (uid === S.attacker) return select(null, null);
  if (S.attacker && sideOf(uid) !== sideOf(S.attacker)) return select(S.attacker, uid);
  return select(uid, null);
}

async function select(attacker, target) {
  const seq = ++S.seq;
  if (attacker !== S.attacker) { S.choices = {}; S.line = []; S.targets = []; }
  if (target !== S.target) { S.line = []; S.offered = {}; S.choices = {}; }
  S.attacker = attacker; S.target = target; S.check = null; S.odds = null; S.question = null;
  renderUnits();
  renderPanels();
  try {
    const jobs = [];
    if (attacker) jobs.push(loadTargets(seq));
    if (target) jobs.push(loadAttack(seq));
    await Promise.all(jobs);
    if (seq !== S.seq) return;
    await drawTable();
    renderPanels();
    if (target) {
      status(`${unitName(attacker)} at ${unitName(target)}`);
      reveal(S.state.ruleset === "swerve" ? "combat" : "check-section");
    }
    else if (attacker) status(`${unitName(attacker)}: pick a target`);
    else status("Pick a unit to fire.");
  } catch (exc) {
    fail(exc);
  }
}

async function rerun() {
  const seq = ++S.seq;
  try {
    await loadAttack(seq);
    if (seq === S.seq) { await drawTable(); renderPanels(); }
  } catch (exc) {
    fail(exc);
  }
}

// On a wide screen the panel scrolls beside the table: bring what a choice changed into it (on a narrow one
// the page is left where the player put it).
function reveal(id) {
  const panel = $("panel"), node = $(id);
  if (!node || node.hidden || !window.matchMedia("(min-width: 821px)").matches) return;
  panel.scrollTo({ top: node.offsetTop - panel.offsetTop - 8, behavior: "smooth" });
}

// -- rendering -------------------------------------------------------------------------------------------------
function renderHeader() {
  const st = S.state;
  const name = (st.battle && st.battle.name) || st.id;
  $("title").textContent = name;
  document.title = `${name} — rangefire`;
  const me = you();
  const bits = [S.ruleset ? S.ruleset.name : st.ruleset];
  bits.push(me.role === "side" ? `you play ${me.side}` : "you watch");
  if (inSetup()) bits.push(`set-up (ready: ${st.ready.length ? st.ready.join(", ") : "nobody yet"})`);
  else {
    if (st.turn) bits.push(`turn ${st.turn.number ?? ""}`.trim());
    bits.push(st.side_to_act ? `${st.side_to_act} to act` : "either side may act");
  }
  $("who").replaceChildren(...bits.flatMap((b, i) => (i ? [" · ", b] : [b])));
  if (me.role === "side") $("who").prepend(h("span", { class: `swatch side-${sideIndex(me.side)}`, "aria-hidden": "true" }));
  const why = cannotAct() || (inSetup() ? "The battle is in set-up: it starts once every side says it is ready." : null);
  for (const id of ["end-turn", "end-activation"]) {
    $(id).disabled = Boolean(why);
    $(id).title = why || "";
  }
  renderUndo();
}

function statusText(status) {
  if (!status) return "";
  return Object.entries(status).filter(([k, v]) => !["id", "side", "owner"].includes(k) && v !== "" && v !== false && v !== "-")
    .map(([k, v]) => (v === true ? k : `${k} ${v}`)).join(", ");
}

function renderUnits() {
  const host = $("units");
  const bySide = new Map(S.state.sides.map((s) => [s, []]));
  for (const u of S.state.units) {
    if (!bySide.has(u.side)) bySide.set(u.side, []);
    bySide.get(u.side).push(u);
  }
  const groups = [];
  for (const [side, units] of bySide) {
    const i = sideIndex(side);
    groups.push(h("div", { class: `side-group side-${i}` },
      h("h3", {}, h("span", { class: `swatch side-${i}`, "aria-hidden": "true" }), side,
        you().side === side ? " (you)" : ""),
      h("ul", { class: "unit-list" }, ...units.map((u) => {
        const row = S.targets.find((t) => t.target === u.id);
        const mark = u.id === S.attacker ? "attacker" : u.id === S.target ? "target" : row ? (row.legal ? "legal" : "refused") : null;
        return h("li", {},
          h("button", { type: "button", class: `unit-button side-${i}${mark ? ` is-${mark}` : ""}`, "data-unit": u.id,
                        "aria-pressed": u.id === S.attacker || u.id === S.target ? "true" : "false",
                        onclick: () => pick(u.id) },
            h("span", { class: "name" }, unitName(u.id)),
            mark ? h("span", { class: "mark" }, ` — ${mark}`) : null),
          h("span", { class: "status" }, statusText(u.status)));
      }))));
  }
  host.replaceChildren(...groups);
}

// swerve's actions as a player reads them (the engine writes "defender:play:smoke-screen"; the page says
// "play Smoke Screen: +10 speed"): every action named in a text of the engine's, labelled.
function said(action, target = S.target) {
  return actionLabel(action, { battle: (S.state && S.state.battle) || {}, target, known: S.labels });
}

// An action of a waiting attack's line, with who took it: "you: pass", "tyler: play Smoke Screen: +10 speed".
function saidOf(pending) {
  return (action) => {
    const role = String(action).split(":")[0];
    const player = role === "attacker" ? pending.by : role === "defender" ? sideOf(pending.target) : role;
    return `${player && player === you().side ? "you" : player}: ${said(action, pending.target)}`;
  };
}

function readable(text) {
  if (!S.state || S.state.ruleset !== "swerve") return text;
  return String(text).replace(/\b(attacker|defender):(pass|swerve-target|play:[\w-]+|use:[\w-]+|swerve:[\w-]+)/g,
    (action) => said(action));
}

// The labels the engine gives the answers of a question, kept for every later mention of those actions.
function learnLabels(question) {
  if (!question || !Array.isArray(question.allowed) || !Array.isArray(question.labels)) return;
  question.allowed.forEach((a, i) => { if (question.labels[i]) S.labels[a] = question.labels[i]; });
}

function renderSwerve() {
  const swerve = S.state && S.state.ruleset === "swerve";
  show($("cards-section"), swerve);
  if (!swerve) return;
  const picked = {};
  if (S.attacker) picked[S.attacker] = "attacker";
  if (S.target) picked[S.target] = "target";
  renderCards($("cards"), S.state.battle, you(), S.state.sides, pick, picked);
  missionMoves($("cards"), { battle: S.state.battle, side: cannotAct() ? null : you().side, busy: S.busy,
    send: (card, mission) => act("move", async () => moved(card, await S.api.post("/move", { unit: card, mission }))) });
  show($("combat"), Boolean(S.target));
  if (S.target) {
    renderCombat($("combat"), {
      check: S.check, odds: S.odds, line: S.line, me: you().side,
      names: { battle: S.state.battle || {}, target: S.target, known: S.labels },
      onAdd: (a) => { S.line = [...S.line, a]; rerun(); },
      onUndo: () => { S.line = S.line.slice(0, -1); rerun(); },
      onClear: () => { S.line = []; rerun(); },
      onLine: (rest) => { S.line = [...S.line, ...rest]; rerun(); },
    });
  }
}

function renderPanels() {
  learnLabels(S.check && S.check.next_choice);
  learnLabels(S.state && S.state.pending && S.state.pending.awaiting);
  renderPending();
  renderSetup();
  const swerve = S.state && S.state.ruleset === "swerve";
  show($("units-section"), !swerve);  // the card game shows its cards in their own view (hands stay hidden)
  show($("attack-section"), Boolean(S.attacker));
  $("attack-summary").textContent = S.attacker ? `${unitName(S.attacker)} (${sideOf(S.attacker)}) fires: its targets` : "";
  renderTargets();
  renderCheck();
  renderChoices();
  renderOdds();
  renderPlay();
  renderSwerve();
  renderNext();
}

// The dock: the next thing this side does, in view at the foot of the window.
function renderNext() {
  if (!S.state) return;
  renderDock({
    me: you(), setup: inSetup(), pending: S.state.pending, question: S.question, attacker: S.attacker,
    target: S.target, targets: S.targets, check: S.check, odds: S.odds, cannotAct: cannotAct(), unitName,
    main: mainOutcome(), hasActivations: Boolean(S.ruleset && S.ruleset.has_activations),
    swerve: S.state.ruleset === "swerve", onTarget: (uid) => select(S.attacker, uid),
  });
}

// -- acting ----------------------------------------------------------------------------------------------------
async function act(label, run) {
  if (S.busy) return;
  S.busy = true;
  renderPlay();
  clearError();
  try {
    await run();
  } catch (exc) {
    fail(exc);
    // the battle changed since this page read it (an action it has not heard of: 409 stale, or one landing
    // meanwhile: conflict): read it again, so that the table shown and the next request are of the battle now
    if (exc instanceof ApiError && exc.status === 409 && ["stale", "conflict"].includes(String(exc.error.kind))) {
      await refresh("The battle changed meanwhile: read again, the table shows it as it is now; decide afresh.");
    }
  } finally {
    S.busy = false;
    renderPlay();
    renderPending();
    renderNext();
  }
}

// An attack played (or, waiting for a choice, kept): `by` the side whose attack it is (an answer to another
// side's question plays that side's attack).
async function resolved(result, by = you().side) {
  if (result && result.pending) return waiting(result.pending);
  S.question = null; S.entered = [];
  const title = `Action ${result.action}: ${headOf({ action: "attack", by, attacker: result.attacker, target: result.target })}`;
  showResult(title, result);
  S.attacker = null; S.target = null; S.check = null; S.odds = null; S.targets = []; S.line = []; S.choices = {};
  await refresh(`${title}: done`);
}

// -- an attack waiting for a player's choice ------------------------------------------------------------------
async function waiting(pending) {
  S.question = null; S.entered = [];
  S.attacker = null; S.target = null; S.check = null; S.odds = null; S.targets = []; S.line = []; S.choices = {};
  $("result-section").hidden = true;
  const wait = pending.awaiting || {};
  await refresh(wait.side === you().side ? "Your choice: answer it at the foot of the page." : `The attack waits for ${wait.who}.`);
}

function renderPending() {
  const pending = S.state && S.state.pending;
  if (!pending) S.preview = null;
  renderWaiting({
    pending, me: you(), enteredDice: Boolean(S.state && S.state.entered_dice),
    busy: S.busy, unitName, said: pending ? saidOf(pending) : said, onAnswer: answer, onRoll: rollPending,
    onEnter: enterPending,
    onPreview: preview,
  });
}

// The table shows the line of the attack were it made as this answer makes it (a nominee's, BU-4.2).
async function preview(uid) {
  S.preview = uid;
  try {
    await drawTable();
    status(`The table shows the line to ${unitName(uid)}.`);
    $("viewport").scrollIntoView({ block: "nearest" });
  } catch (exc) {
    fail(exc);
  }
}

function answer(text, step) {
  const by = S.state.pending ? S.state.pending.by : you().side;
  return act("answer", async () => resolved(await S.api.post("/answer", { answer: text, step }), by));
}

function rollPending() {
  const p = S.state.pending;
  return act("roll", async () => resolved(await S.api.post("/resolve", { attacker: p.attacker, target: p.target })));
}

function enterPending() {
  const p = S.state.pending;
  S.attacker = p.attacker; S.target = p.target; S.choices = {}; S.line = []; S.check = null;
  return enterDice();
}

function withdraw() {
  return act("withdraw", async () => {
    await S.api.post("/withdraw", {});
    await refresh("The attack was withdrawn; nothing was played.");
  });
}

// -- moving ----------------------------------------------------------------------------------------------------
function battleUnit(uid) {
  const battle = S.state && S.state.battle;
  const units = battle && Array.isArray(battle.units) ? battle.units : [];
  return units.find((u) => u.id === uid) || null;
}

// The game's unit of distance, as the drawing is measured: inches, or steps (Arcane Legions).
function moveUnit() {
  const svg = viewport && viewport.svg;
  const unit = svg ? svg.getAttribute("data-unit") : "";
  return unit === "steps" ? "steps" : unit ? "in" : "";
}

// Why this page may not move that unit now (null: it may).
function cannotMove(uid) {
  const why = cannotAct();
  if (why) return why;
  if (!uid) return "Pick a unit first.";
  if (sideOf(uid) !== you().side) return `${unitName(uid)} is ${sideOf(uid)}'s, not yours.`;
  if (S.busy) return "Wait for the last action to land.";
  if (!battleUnit(uid)) return `${unitName(uid)} has no place on the table to move from.`;
  return null;
}

function renderMove() {
  const bar = $("move-bar");
  const uid = mover && (mover.uid || S.attacker);
  const piece = uid && mover.piece(uid);
  const why = uid ? cannotMove(uid) : "Pick one of your units first.";
  // shown whenever this side may move (the table's size then stays put while a piece is dragged)
  const table = Boolean(moveUnit() && S.state && S.state.battle && Array.isArray(S.state.battle.units));
  show(bar, table && !cannotAct());
  if (bar.hidden) return;
  const unit = moveUnit();
  const turns = Boolean(piece && piece.facing !== null);
  for (const id of ["move-left", "move-right", "move-up", "move-down", "turn-left", "turn-right"]) {
    $(id).disabled = Boolean(why) || mover.busy || (id.startsWith("turn") && !turns);
  }
  $("move-send").disabled = Boolean(why) || mover.busy || !mover.pending();
  $("move-cancel").disabled = mover.busy || !(mover.pending() || mover.refusal);
  for (const id of ["move-left", "move-right", "move-up", "move-down"]) {
    $(id).setAttribute("aria-label", `Move ${id.slice(5)} ${KEY_STEP} ${unit}`);
  }
  const what = $("move-what");
  if (!uid || !piece) {
    what.textContent = `Drag one of your units on the table to move it, or pick one to move it by the arrows (${KEY_STEP} ${unit} a press) and turn it by [ and ] (${KEY_TURN}°).`;
  } else if (why) what.textContent = `${unitName(uid)}: ${why}`;
  else if (mover.busy) what.textContent = `Moving ${unitName(uid)}…`;
  else if (mover.refusal) {
    what.textContent = `${unitName(uid)} was not moved: drag it again, or Escape or Cancel to put it back.`;
  } else if (mover.pending()) {
    what.replaceChildren(h("strong", { id: "move-distance" }, mover.text(piece)),
      " — Enter or Send to move it, Escape or Cancel to put it back.");
  } else {
    what.textContent = `Move ${unitName(uid)}: drag it on the table, or the arrows (${KEY_STEP} ${unit} a press)`
      + (turns ? `, [ and ] or its handle to turn (${KEY_TURN}°)` : "") + "; Enter sends, Escape puts it back.";
  }
  renderMarks(piece && !why ? uid : null);
  const refusals = mover.refusal && mover.refusal.uid === uid ? mover.refusal.items : [];
  $("move-refusals").replaceChildren(...refusals.map((r) => clauseLine("li", r.reason, r.clause)));
}

// The states a player sets on a model of theirs in its activation (Bushido's will move, aimed, prone: BU-9.1),
// each a button pressed while the model has it.
const MARKS = { bushido: ["will_move", "aimed", "prone"] };

function renderMarks(uid) {
  const host = $("marks");
  const states = (S.state && MARKS[S.state.ruleset]) || [];
  show(host, Boolean(uid && states.length));
  if (host.hidden) { host.replaceChildren(); return; }
  const has = new Set((battleUnit(uid) || {}).states || []);
  host.replaceChildren(h("span", { class: "marks-label" }, `${uid}:`), ...states.map((state) => {
    const on = has.has(state);
    return h("button", { type: "button", "data-mark": state, "aria-pressed": on ? "true" : "false",
                         disabled: S.busy || mover.busy, onclick: () => mark(uid, state, !on) },
      state.replace(/_/g, " "));
  }));
}

function mark(uid, state, on) {
  return act("mark", async () => {
    try {
      const result = await S.api.post("/mark", { unit: uid, state, on });
      $("move-refusals").replaceChildren();
      $("result").replaceChildren(h("h3", {}, `Action ${result.action}: ${headOf({ action: "mark", by: you().side, unit: uid, state, on })}`),
        ...(result.log || []).map((l) => clauseLine("p", l.text, l.clause)));
      $("result-section").hidden = false;
      await refresh(`${unitName(uid)}: ${state.replace(/_/g, " ")} ${on ? "set" : "cleared"}.`);
    } catch (exc) {
      const e = exc instanceof ApiError ? exc.error : {};
      const items = Array.isArray(e.refusals) && e.refusals.length ? e.refusals : [{ clause: e.clause, reason: exc.message }];
      $("move-refusals").replaceChildren(...items.map((r) => clauseLine("li", r.reason, r.clause)));
      throw exc;
    }
  });
}

async function moved(uid, result) {
  const far = distanceText(result.distance, result.unit_of_distance || moveUnit());
  $("move-refusals").replaceChildren();
  const text = `${unitName(uid)} moved${far ? ` ${far}` : ""}`;
  $("result").replaceChildren(h("h3", {}, `Action ${result.action}: ${headOf({ action: "move", by: you().side, move: { unit: uid }, distance: result.distance })}`),
    ...(result.log || []).map((l) => clauseLine("p", l.text, l.clause)));
  $("result-section").hidden = false;
  await refresh(`${text} (as the rules measure it).`);
}

function moveRefused(uid, exc, items) {
  if (exc instanceof ApiError && (exc.status === 401 || exc.status === 0 || exc.status >= 500)) fail(exc);
  status(`${unitName(uid)} was not moved: ${items.map((r) => (r.clause ? `[${r.clause}] ` : "") + r.reason).join("; ")}`);
  renderMove();
}

// -- start -----------------------------------------------------------------------------------------------------
async function main() {
  viewport = new Viewport($("viewport"), pick);
  mover = new Mover(viewport, $("viewport").parentElement, {
    unit: battleUnit, why: cannotMove, picked: () => S.attacker, say: status, changed: renderMove,
    send: sendMove, done: moved, refused: moveRefused,
  });
  terrain = new TerrainTool(viewport, { state: () => S.state, api: () => S.api, act, refresh, say: status, busy: () => S.busy });
  // the move's keys wherever the focus is but a form's field (the table's own keys are taken by the viewport)
  document.addEventListener("keydown", (e) => {
    if (e.defaultPrevented || $("viewport").contains(e.target)) return;
    if (mover.key(e)) e.preventDefault();
  });
  const nudge = (dx, dy, turn) => () => mover.nudge(dx, dy, turn);
  $("move-left").addEventListener("click", nudge(-KEY_STEP, 0, 0));
  $("move-right").addEventListener("click", nudge(KEY_STEP, 0, 0));
  $("move-up").addEventListener("click", nudge(0, KEY_STEP, 0));
  $("move-down").addEventListener("click", nudge(0, -KEY_STEP, 0));
  $("turn-left").addEventListener("click", nudge(0, 0, -KEY_TURN));
  $("turn-right").addEventListener("click", nudge(0, 0, KEY_TURN));
  $("move-send").addEventListener("click", () => mover.send());
  $("setup-form").addEventListener("submit", placeUnit);
  $("terrain-form").addEventListener("submit", placeTerrain);
  $("ready").addEventListener("click", ready);
  $("move-cancel").addEventListener("click", () => mover.cancel("Move cancelled: the unit stays where it stood."));
  $("zoom-in").addEventListener("click", () => viewport.zoom(1.25));
  $("zoom-out").addEventListener("click", () => viewport.zoom(0.8));
  $("zoom-fit").addEventListener("click", () => viewport.fit());
  $("zoom-whole").addEventListener("click", () => viewport.whole());
  $("roll").addEventListener("click", roll);
  $("enter").addEventListener("click", enterDice);
  $("dice-form").addEventListener("submit", submitDice);
  $("dice-cancel").addEventListener("click", cancelDice);
  $("end-turn").addEventListener("click", () => endTurn(false));
  $("end-activation").addEventListener("click", () => endTurn(true));
  $("undo").addEventListener("click", undo);
  $("withdraw").addEventListener("click", withdraw);
  $("clear-pick").addEventListener("click", () => select(null, null));
  $("choices").addEventListener("submit", (e) => e.preventDefault());
  const id = battleIdFromPath();
  const token = id ? takeToken(id) : null;
  if (!id || !token) {
    fail(new Error("This page needs the link given when the battle was made (it ends in #token=…). "
      + "Start a battle from the home page."));
    return;
  }
  S.api = new Api(id, token);
  // the panel beside the table ends above the dock (style.css reads its height)
  const dock = $("dock");
  const measure = () => document.documentElement.style.setProperty("--dock-h", `${dock.hidden ? 0 : dock.offsetHeight}px`);
  if (window.ResizeObserver) new ResizeObserver(measure).observe(dock);
  await refresh("Pick a unit to fire.");
  if (S.state) listen(S, refresh);
}

main();
