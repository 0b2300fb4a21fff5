// @ts-check
// An attack that waits for a player's choice (a Bushido nomination, BU-4.2; swerve's actions in turn, SW-3.1):
// on the awaited side's page the question with the allowed answers as buttons (in the dock, always in view), each
// saying what it makes of the attack (its target, range, line of fire and odds, worked out by the server: the
// pending attack's `awaiting.options`), and in the panel the same in full with the clauses; on the other pages
// whom it waits for. Its own side may withdraw it until another side has answered. An answer names the step it
// was shown at, so it never lands on an attack made or changed since.
import { $, chance, clause, h, show } from "./dom.js";
import { fracText, parseFrac, percent, toNumber } from "./frac.js";

// What it reads is typed by the served OpenAPI document (through api.js): the battle state's pending attack.
/** @typedef {NonNullable<import("./api.js").Answer<"", "get">["pending"]>} Pending */
/** @typedef {Pending["awaiting"]} Awaiting */
/** @typedef {Extract<Awaiting, { kind: "choice" }>} AwaitingChoice */
/** @typedef {NonNullable<AwaitingChoice["options"]>[number]} Option */
/** @typedef {(uid: string) => string} UnitName */

/**
 * @param {Pending} pending
 * @param {UnitName} unitName
 * @param {(text: string) => string} said
 */
function described(pending, unitName, said) {
  const chosen = Object.entries(pending.choices || {})
    .map(([k, v]) => `${k.replace(/_/g, " ")}: ${Array.isArray(v) ? v.map(said).join("; ") : v}`);
  return `${pending.by}'s ${unitName(pending.attacker)}${pending.target ? ` fires at ${unitName(pending.target)}` : " fires"}`
    + (chosen.length ? ` (${chosen.join("; ")})` : "") + ".";
}

/** @param {string | null | undefined} choice */
function named(choice) { return String(choice || "").replace(/_/g, " "); }

/** @param {string} text */
function pct(text) {
  try { return percent(parseFrac(text)); } catch (exc) { return String(text); }
}

// "6.64 in, medium"
/** @param {{ inches?: number | string | null, steps?: number | string | null, band?: string | null } | null | undefined} range */
export function rangeWords(range) {
  if (!range) return null;
  const unit = "inches" in range ? "in" : "steps" in range ? "steps" : "";
  const value = range.inches ?? range.steps;
  if (value === undefined || value === null) return null;
  return `${Number(value).toFixed(2).replace(/\.?0+$/, "")} ${unit}${range.band ? `, ${range.band}` : ""}`;
}

/** @param {{ outcome: string, mean?: string | null }} odds */
function meanWords(odds) {
  try {
    const f = parseFrac(odds.mean);
    return `mean ${named(odds.outcome)} ${f.den === 1n ? fracText(f) : `≈ ${toNumber(f).toFixed(2)}`}`;
  } catch (exc) {
    return null;
  }
}

// One answer in short, for its button: "6.64 in, medium · line clear · hit 92.4% · at least 1 wounds: 86.4%".
/** @param {Option | undefined} option */
function summary(option) {
  if (!option) return null;
  if (!option.legal) return "refused by the rules";
  const bits = [];  // its label names the target
  const far = rangeWords(option.range);
  if (far) bits.push(far);
  if (option.line) bits.push(`line ${option.line.state}`);
  const o = option.odds;
  if (o) {
    for (const [k, p] of Object.entries(o.events || {})) bits.push(`${named(k)} ${pct(p)}`);
    bits.push(`at least 1 ${named(o.outcome)}: ${pct(o.at_least_one)}`);
  } else if (option.odds_refused) bits.push("odds too large to work out");
  if (option.then) bits.push("then best play");
  return bits.join(" · ");
}

// The answers in full: what each makes of the attack, with the clauses and the exact fractions a tap away.
/**
 * @param {AwaitingChoice} wait
 * @param {UnitName} unitName
 * @param {(uid: string) => void} onPreview
 */
function optionDetails(wait, unitName, onPreview) {
  const options = Array.isArray(wait.options) ? wait.options : [];
  if (!options.length) return [];
  const items = options.map((o) => {
    const parts = [h("strong", {}, o.label || o.answer)];
    if (!o.legal) {
      parts.push(h("ul", { class: "reasons" }, ...(o.refusals || []).map((r) => h("li", {}, clause(r.clause), " ", r.reason))));
      return h("li", { "data-option": o.answer }, ...parts);
    }
    const facts = [];
    if (o.target) facts.push(h("li", {}, `target: ${unitName(o.target)}`));
    const far = rangeWords(o.range);
    if (far) facts.push(h("li", { class: "option-range" }, `range ${far}`));
    if (o.line) facts.push(h("li", { class: `option-line state-${o.line.state}`, "data-state": o.line.state },
      `line of fire: ${o.line.state}`, o.line.text ? h("span", { class: "hint" }, ` — ${o.line.text}`) : null));
    if (o.odds) {
      for (const [k, p] of Object.entries(o.odds.events || {})) {
        const f = parseFrac(p);
        facts.push(h("li", { "data-event": k }, `${named(k)}: `, chance(percent(f), fracText(f))));
      }
      const least = parseFrac(o.odds.at_least_one);
      facts.push(h("li", { "data-outcome": o.odds.outcome }, `at least 1 ${named(o.odds.outcome)}: `,
        chance(percent(least), fracText(least)), meanWords(o.odds) ? ` (${meanWords(o.odds)})` : ""));
      if (o.then) facts.push(h("li", { class: "hint" }, "then both players play their best (SW-6.2)"));
    } else if (o.odds_refused) facts.push(h("li", { class: "warning" }, o.odds_refused));
    parts.push(h("ul", { class: "option-facts" }, ...facts));
    const target = o.target;
    if (o.line && target) {
      parts.push(h("button", { type: "button", class: "preview", "data-preview": target,
                              onclick: () => onPreview(target) }, `Show this line on the table`));
    }
    return h("li", { "data-option": o.answer }, ...parts);
  });
  const left = wait.options_left ? h("p", { class: "hint" }, `${wait.options_left} more answer${wait.options_left === 1 ? "" : "s"} not worked out here.`) : null;
  return [h("h3", {}, "What each answer makes of the attack"), h("ul", { class: "options" }, ...items), left];
}

/**
 * @param {{ pending: Pending | null | undefined, me: import("./api.js").Answer<"", "get">["you"], enteredDice: boolean,
 *   busy: boolean, unitName: UnitName, said: (text: string) => string,
 *   onAnswer: (answer: string, step: number) => unknown, onRoll: () => unknown, onEnter: () => unknown,
 *   onPreview: (uid: string) => void }} view
 */
export function renderWaiting({ pending, me, enteredDice, busy, unitName, said, onAnswer, onRoll, onEnter, onPreview }) {
  const section = $("pending-section");
  const appearing = section.hidden && Boolean(pending);
  show(section, Boolean(pending));
  show($("pending-dock"), Boolean(pending));
  if (!pending) { $("pending-options").replaceChildren(); return; }
  const wait = pending.awaiting || {};
  const mine = me.role === "side" && wait.side === me.side;
  $("pending-what").textContent = described(pending, unitName, said);
  const answers = $("pending-answers");
  let ask;
  if (wait.kind === "dice") {
    ask = mine ? "Every choice is made: roll the dice for it." : `Every choice is made: waiting for ${wait.who} to roll.`;
    $("pending-question").replaceChildren(ask);
    const buttons = mine ? [h("button", { type: "button", class: "primary", id: "pending-roll", onclick: onRoll }, "Roll")] : [];
    if (mine && enteredDice) buttons.push(h("button", { type: "button", id: "pending-enter", onclick: onEnter }, "Enter dice"));
    answers.replaceChildren(...buttons);
    $("pending-options").replaceChildren();
  } else if (mine) {
    ask = `Your choice as ${wait.who}: ${wait.question || named(wait.name)}`;
    $("pending-question").replaceChildren(`${ask} `, clause(wait.clause));
    const labels = wait.labels || wait.allowed || [];
    const options = Array.isArray(wait.options) ? wait.options : [];
    answers.replaceChildren(...(wait.allowed || []).map((a, i) => {
      const option = options.find((o) => o.answer === a);
      const sum = summary(option);
      return h("button", { type: "button", class: "answer", "data-answer": a, onclick: () => onAnswer(a, pending.step) },
        h("span", { class: "answer-label" }, labels[i] || a), sum ? h("span", { class: "answer-sum" }, sum) : null);
    }));
    $("pending-options").replaceChildren(...optionDetails(wait, unitName, onPreview));
  } else {
    ask = `Waiting for ${wait.who} to ${wait.question || `choose ${named(wait.name)}`}`;
    $("pending-question").replaceChildren(`${ask} `, clause(wait.clause));
    answers.replaceChildren();
    $("pending-options").replaceChildren();
  }
  $("pending-ask").replaceChildren(`${ask} `, clause(wait.clause));
  for (const b of answers.querySelectorAll("button")) b.disabled = busy;
  $("withdraw").hidden = !(me.role === "side" && me.side === pending.by && pending.withdrawable);
  /** @type {HTMLButtonElement} */ ($("withdraw")).disabled = busy;
  // the attack's form above is gone once it waits, leaving the panel scrolled past this heading: brought back
  if (appearing) section.scrollIntoView({ block: "nearest" });
}
