// The dock: the next thing this player does, kept in view at the foot of the window whatever is scrolled (on a
// phone, the panel with Roll is far below the table). One part shows at a time: the answers of a question put
// to this side (filled by pending.js), the dice asked for, Roll once a target is picked, the targets of the unit
// picked; and End turn while it is this side's turn and nothing waits. A spectator's page has none.
import { $, h, show } from "./dom.js";
import { parseFrac, percent, rows } from "./frac.js";

// The targets offered as buttons in the dock (the rest are in the panel's list).
const DOCK_TARGETS = 4;

function named(text) { return String(text || "").replace(/_/g, " "); }

// "hit 57.5% · at least 1 wounds: 45.0%": the attack's chances in short.
export function oddsInShort(odds, main) {
  if (!odds) return "";
  const bits = [];
  const events = Object.entries(odds.events || {});
  if (events.length === 1) {
    const [k, p] = events[0];
    try { bits.push(`${named(k)} ${percent(parseFrac(p))}`); } catch (exc) { /* left out */ }
  }
  const outcome = (odds.outcomes || {})[main];
  if (outcome && outcome.distribution) {
    try {
      const { items, numeric } = rows(outcome.distribution);
      const one = numeric ? items.find((i) => i.value >= 1) : null;
      bits.push(`at least 1 ${named(main)}: ${one ? percent(one.atLeast) : "0%"}`);
    } catch (exc) { /* left out */ }
  }
  return bits.join(" · ");
}

export function renderDock(c) {
  const dock = $("dock");
  show(dock, c.me.role === "side" && !c.setup);
  if (dock.hidden) return;
  const pending = Boolean(c.pending);
  const entering = Boolean(c.question);
  const firing = !pending && !entering && Boolean(c.target);
  const picking = !pending && !entering && Boolean(c.attacker) && !c.target;
  // the pending part is pending.js's; shown by it

  show($("play-section"), firing || entering);
  show($("roll").parentElement, firing);
  if (entering) {
    $("play-what").textContent = `Enter the dice: ${c.unitName(c.attacker)} at ${c.target ? c.unitName(c.target) : "the rules' target"}.`;
  } else if (firing) {
    const short = c.check && c.check.legal ? oddsInShort(c.odds, c.main) : "";
    $("play-what").replaceChildren(h("strong", {}, `${c.unitName(c.attacker)} at ${c.unitName(c.target)}`),
      short ? ` — ${short}` : c.check && !c.check.legal ? " — refused by the rules" : "");
  }

  show($("pick-dock"), picking);
  if (picking) {
    const legal = (c.targets || []).filter((t) => t.legal);
    $("pick-what").textContent = legal.length
      ? `${c.unitName(c.attacker)} fires: pick a target (here or on the table).`
      : `${c.unitName(c.attacker)} has no target the rules allow: pick another unit.`;
    $("dock-targets").replaceChildren(...legal.slice(0, DOCK_TARGETS).map((t) =>
      h("button", { type: "button", "data-target": t.target, onclick: () => c.onTarget(t.target) }, c.unitName(t.target))));
  } else {
    $("dock-targets").replaceChildren();
  }

  const mine = !c.cannotAct;
  const turn = !pending && !entering;
  show($("turn-dock"), turn);
  if (turn) {
    show($("end-turn"), mine);
    show($("end-activation"), mine && c.hasActivations);
    const what = $("turn-what");
    what.textContent = !mine ? c.cannotAct
      : c.attacker ? ""
        : c.swerve ? "Your turn: pick a card to fire, or end the turn."
          : "Your turn: pick a unit to fire, drag one of yours to move it, or end the turn.";
    show(what, Boolean(what.textContent));
  }
}
