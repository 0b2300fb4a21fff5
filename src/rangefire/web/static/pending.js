// An attack that waits for a player's choice (a Bushido nomination, BU-4.2; swerve's actions in turn, SW-3.1):
// on the awaited side's page the question with the allowed answers as buttons, on the others whom it waits for;
// its own side may withdraw it until another side has answered. An answer names the step it was shown at, so it
// never lands on an attack made or changed since.
import { $, clause, h, show } from "./dom.js";

function described(pending, unitName) {
  const chosen = Object.entries(pending.choices || {})
    .map(([k, v]) => `${k.replace(/_/g, " ")}: ${Array.isArray(v) ? v.join(", ") : v}`);
  return `${pending.by}'s ${unitName(pending.attacker)}${pending.target ? ` fires at ${unitName(pending.target)}` : " fires"}`
    + (chosen.length ? ` (${chosen.join("; ")})` : "") + ".";
}

function named(choice) { return String(choice || "").replace(/_/g, " "); }

export function renderWaiting({ pending, me, enteredDice, busy, unitName, onAnswer, onRoll, onEnter }) {
  const section = $("pending-section");
  const appearing = section.hidden && Boolean(pending);
  show(section, Boolean(pending));
  if (!pending) return;
  const wait = pending.awaiting || {};
  const mine = me.role === "side" && wait.side === me.side;
  $("pending-what").textContent = described(pending, unitName);
  const answers = $("pending-answers");
  if (wait.kind === "dice") {
    $("pending-question").replaceChildren(mine ? "Every choice is made: roll the dice for it."
      : `Every choice is made: waiting for ${wait.who} to roll.`);
    const buttons = mine ? [h("button", { type: "button", class: "primary", id: "pending-roll", onclick: onRoll }, "Roll")] : [];
    if (mine && enteredDice) buttons.push(h("button", { type: "button", id: "pending-enter", onclick: onEnter }, "Enter dice"));
    answers.replaceChildren(...buttons);
  } else if (mine) {
    $("pending-question").replaceChildren(`Your choice as ${wait.who}: ${wait.question || named(wait.name)} `, clause(wait.clause));
    answers.replaceChildren(...(wait.allowed || []).map((a) =>
      h("button", { type: "button", "data-answer": a, onclick: () => onAnswer(a, pending.step) }, a)));
  } else {
    $("pending-question").replaceChildren(`Waiting for ${wait.who} to ${wait.question || `choose ${named(wait.name)}`} `, clause(wait.clause));
    answers.replaceChildren();
  }
  for (const b of answers.querySelectorAll("button")) b.disabled = busy;
  $("withdraw").hidden = !(me.role === "side" && me.side === pending.by && pending.withdrawable);
  $("withdraw").disabled = busy;
  // the attack's form above is gone once it waits, leaving the panel scrolled past this heading: brought back
  if (appearing) section.scrollIntoView({ block: "nearest" });
}
