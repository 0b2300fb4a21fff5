// The card game (swerve) in its own view: the cards at each mission, the hand of the player you are, the totals of
// the combat being built, the legal actions of the player to act (from the check's next choice), the line of play
// so far, and the odds of every line of play from there (from the odds). Every action reads as a player says it
// ("play Smoke Screen: +10 speed"), never as the engine writes it ("defender:play:smoke-screen").
import { chance, clause, h } from "./dom.js";
import { fracText, parseFrac, percent } from "./frac.js";

// An action of a line of play as a player reads it. The engine labels each answer it asks for (a question's
// `labels`, kept by the page in `known`); an action not asked for yet (in a line of play the odds list) is
// labelled here from the cards as the engine labels it (rangefire.rulesets.swerve.combat.Combat.label): the
// card's name and what it adds on the acting role's side.
export function actionLabel(text, { battle = {}, target = null, known = {} } = {}) {
  if (Object.prototype.hasOwnProperty.call(known, text)) return known[text];
  const [role, kind, id] = String(text).split(":");
  if (kind === "pass") return "pass";
  const cards = Array.isArray(battle.cards) ? battle.cards : [];
  const name = (c) => c.name || c.id;
  if (kind === "swerve-target" || (kind === "swerve" && id === target)) {
    const card = cards.find((c) => c.id === target);
    if (!card) return "swerve the target";
    const times = Number((battle.options || {}).target_swerve_speed ?? 1);
    return `swerve ${name(card)}: +${(Number(card.speed) || 0) * times} speed`;
  }
  const card = cards.find((c) => c.id === id);
  if (!card) return [kind, id].filter(Boolean).join(" ") || String(text);
  if (kind === "swerve" || !card.effect) return `${kind} ${name(card)}`;
  const counted = role === "attacker" ? [["accuracy", card.effect.accuracy], ["damage", card.effect.damage]]
    : [["speed", card.effect.speed]];
  const changes = counted.filter(([, v]) => Number(v)).map(([k, v]) => `${v > 0 ? "+" : ""}${v} ${k}`).join(", ");
  let out = `${kind} ${name(card)}: ${changes || `nothing on the ${role} side`}`;
  if (kind === "use" && (card.cost || "swerve-self") === "swerve-self") out += ", swerving it";
  return out;
}

// Who takes an action of the line: "you", or the player by name (the plan names the attacker's and the
// defender's players).
function actor(text, players, me) {
  const role = String(text).split(":")[0];
  const player = (players || {})[role];
  return player && player === me ? "you" : player || role;
}

function cardText(card) {
  const bits = [card.type];
  if (card.speed !== null && card.speed !== undefined) bits.push(`speed ${card.speed}`);
  if (card.ranged) bits.push(`accuracy ${card.ranged.accuracy}, damage ${card.ranged.damage}`);
  if (card.effect) {
    const e = Object.entries(card.effect).filter(([, v]) => v).map(([k, v]) => `${k} ${v > 0 ? "+" : ""}${v}`);
    if (e.length) bits.push(e.join(", "));
  }
  if (card.toughness) bits.push(`damage ${card.counters || 0}/${card.toughness}`);
  if (card.swerved) bits.push("swerved");
  return bits.join(" · ");
}

function cardItem(card, sides, pick, picked) {
  const side = sides.indexOf(card.owner);
  const label = card.name ? `${card.name} (${card.id})` : card.id;
  const role = picked[card.id];
  return h("li", { class: `card side-${side}${card.swerved ? " swerved" : ""}` },
    h("button", { type: "button", class: "unit-button", "data-unit": card.id, onclick: () => pick(card.id),
                  "aria-pressed": role ? "true" : "false" },
      h("span", { class: "name" }, label), h("span", { class: "owner" }, ` — ${card.owner}${role ? `, ${role}` : ""}`)),
    h("div", { class: "card-text" }, cardText(card)));
}

// The table of the card game: missions with their cards, then the hands.
export function renderCards(host, battle, you, sides, pick, picked = {}) {
  const cards = battle.cards || [];
  const hands = battle.hands || {};
  const held = new Set(Object.values(hands).flat());
  const missions = new Map();
  for (const card of cards) {
    if (held.has(card.id) || !card.mission) continue;
    if (!missions.has(card.mission)) missions.set(card.mission, []);
    missions.get(card.mission).push(card);
  }
  const out = [];
  for (const [mission, list] of missions) {
    out.push(h("section", { class: "mission", "data-mission": mission }, h("h3", {}, `Mission: ${mission}`),
      h("ul", { class: "cards" }, ...list.map((c) => cardItem(c, sides, pick, picked)))));
  }
  for (const [player, ids] of Object.entries(hands)) {
    const mine = you.side === player;
    const deck = (battle.players || {})[player] || {};
    const title = mine ? `Your hand (${player})` : `${player}'s hand`;
    const body = mine
      ? h("ul", { class: "cards in-hand" }, ...ids.map((id) => cards.find((c) => c.id === id))
        .filter(Boolean).map((c) => cardItem(c, sides, pick, picked)))
      : h("p", {}, `${ids.length} card${ids.length === 1 ? "" : "s"} held`);
    out.push(h("section", { class: "hand", "data-player": player }, h("h3", {}, title), body,
      h("p", { class: "deck" }, `deck: ${(deck.deck || []).length} cards, order ${deck.deck_order || "known"}`)));
  }
  host.replaceChildren(...out);
}

function totals(plan) {
  const start = plan.start || {};
  const now = plan.totals_before_reveal || start;
  return ["accuracy", "speed", "damage"].filter((k) => k in now).map((k) =>
    h("li", { "data-total": k }, `${k}: ${now[k]}`, now[k] !== start[k] ? ` (began at ${start[k]})` : ""));
}

// The combat being built: totals, the line of play so far, the legal next actions, the lines from here. `names`
// labels an action ({battle, target, known} for actionLabel); `me` is the player this page is.
export function renderCombat(host, { check, odds, line, names, me, onAdd, onUndo, onClear, onLine }) {
  const out = [];
  const plan = check && check.plan;
  const players = plan && plan.players;
  const said = (a) => actionLabel(a, names);
  const step = (a) => `${actor(a, players, me)}: ${said(a)}`;
  if (plan) {
    out.push(h("h3", {}, "Totals"), h("ul", { class: "totals" }, ...totals(plan)));
  }
  out.push(h("h3", {}, "Line of play"));
  out.push(line.length
    ? h("ol", { class: "line-of-play" }, ...line.map((a) => h("li", { "data-action": a }, step(a))))
    : h("p", {}, "No action yet: each player acts in turn, or passes."));
  const next = check && check.next_choice;
  if (next && next.allowed && next.allowed.length) {
    const labels = next.labels || next.allowed;
    const mine = next.side === me;
    out.push(h("p", { class: "who" }, `Next in this line: ${mine ? "you" : next.who}. Pick actions to weigh their odds; `
      + "when you roll, your own first action goes with the attack and each player then chooses their own, in turn "
      + "(SW-3.1)."));
    out.push(h("div", { class: "buttons legal-actions" },
      ...next.allowed.map((a, i) => h("button", { type: "button", "data-action": a, onclick: () => onAdd(a) },
        labels[i] || said(a)))));
  } else if (plan) {
    out.push(h("p", {}, plan.line_complete ? "Both players have passed: the line is complete."
      : "The odds weigh the rest of the line as both players' best (SW-6.2); in play each player chooses their own."));
  }
  if (line.length) {
    out.push(h("div", { class: "buttons" },
      h("button", { type: "button", onclick: onUndo }, "Take back the last action"),
      h("button", { type: "button", onclick: onClear }, "Clear the line")));
  }
  if (odds && Array.isArray(odds.lines) && odds.lines.length) {
    const best = JSON.stringify(odds.best_line || []);
    const table = h("table", { class: "lines" },
      h("tr", {}, h("th", { scope: "col" }, "then"), h("th", { scope: "col" }, "attacker wins"),
        h("th", { scope: "col" }, "mean damage"), h("th", { scope: "col" }, "")));
    const SHOWN = 200;  // a long game lists thousands of lines; the best is named above, the first few listed
    for (const l of odds.lines.slice(0, SHOWN)) {
      const wins = parseFrac(l.attacker_wins);
      const isBest = JSON.stringify(l.actions) === best;
      table.append(h("tr", { class: isBest ? "best" : null },
        h("td", {}, l.actions.map(step).join("; "), isBest ? h("strong", {}, " (best play)") : null),
        h("td", {}, chance(percent(wins), fracText(wins))),
        h("td", {}, l.damage ? String(l.damage.mean) : "—"),
        h("td", {}, h("button", { type: "button", onclick: () => onLine(l.actions) }, "Use"))));
    }
    const value = odds.value_before_actions ? parseFrac(odds.value_before_actions) : null;
    out.push(h("h3", {}, "Best play from here"),
      h("p", { class: "best-line" }, clause("SW-6.2"), " ", (odds.best_line || []).map(step).join("; ") || "pass",
        ...(value ? [" — the attacker wins ", chance(percent(value), fracText(value))] : [])),
      h("details", { class: "all-lines" },
        h("summary", {}, `Every line of play from here (${odds.lines.length}${odds.lines_cut ? " and more" : ""})`),
        table, odds.lines.length > SHOWN || odds.lines_cut
          ? h("p", { class: "hint" }, `The first ${Math.min(SHOWN, odds.lines.length)} shown.`) : null));
  }
  host.replaceChildren(...out);
}
