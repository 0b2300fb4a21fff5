// The log of the battle: each action in a sentence, a player's own in the second person on their own page ("You
// fired 20th-maine at 15th-alabama", "confederate declared the end of turn"), with its dice and whose they are
// (rolled by the server, or entered by a side), and the rules' own lines with their clauses.
import { clauseLine, h } from "./dom.js";

function words(text) { return String(text ?? "").replace(/_/g, " "); }

// What one action was, as a sentence. `me`: this page's side (null for a spectator); `unitName(id)`;
// `distance(value)`: a distance moved as the game measures it ("3.00 in").
export function actionHead(a, { me, unitName, distance }) {
  const mine = Boolean(me) && a.by === me;
  const who = mine ? "You" : a.by || "someone";
  switch (a.action) {
    case "attack": {
      // a nomination turned the attack to another model (BU-4.2): the model it struck is named first
      const at = a.choices && a.choices.redirect_to;
      const target = at ? ` at ${unitName(at)} (nominated in place of ${unitName(a.target)})`
        : a.target ? ` at ${unitName(a.target)}` : "";
      return `${who} fired ${unitName(a.attacker)}${target}`;
    }
    case "move": {
      const unit = a.move && a.move.unit;
      const far = a.distance === null || a.distance === undefined ? "" : ` ${distance(a.distance)}`;
      return `${who} moved ${unit ? unitName(unit) : "a unit"}${far}`;
    }
    case "mark":
      return `${who} ${a.on ? "set" : "cleared"} ${words(a.state)} on ${unitName(a.unit)}`;
    case "start":
      return `The battle starts${Array.isArray(a.order) ? `: ${a.order.join(", ")}` : ""}`;
    case "edit":
      return `${who} changed the set-up: ${words(a.op)} ${words(a.section)} ${a.id ?? ""}`.trim();
    case "undo":
      return `${who} took back action ${a.takes_back}${a.what ? ` (${a.what})` : ""}`;
    case "end-turn":
    default:
      return `${who} declared the end of ${a.activation ? "activation" : "turn"}`;
  }
}

// "dice rolled by the server", "dice entered by you", "dice entered by union": whose the dice of an action are.
export function diceWhose(a, me) {
  if (a.dice_source === "entered") return `dice entered by ${me && a.by === me ? "you" : a.by || "a side"}`;
  if (a.dice_source === "rolled") return "dice rolled by the server";
  return "dice";
}

export function logEntry(a, context) {
  const dice = a.dice && Object.keys(a.dice).length
    ? h("p", { class: "dice" }, `${diceWhose(a, context.me)}: `
      + Object.entries(a.dice).map(([k, v]) => `${words(k)} ${v.join(" ")}`).join("; "))
    : null;
  const mine = Boolean(context.me) && a.by === context.me;
  return h("li", { "data-action": a.number, value: a.number, class: mine ? "mine" : null },
    h("strong", {}, actionHead(a, context)), dice,
    h("ul", { class: "lines" }, ...(a.log || []).map((l) => clauseLine("li", l.text, l.clause))));
}
