// The dice of an attack: Roll (the server rolls) or Enter (the player's own dice, stage by stage as the server
// asks for them, each stage's values checked against the faces before they are sent, a stage that did not fit
// entered again); the attack is sent with this side's own choices only. `dicePanel(S, page)` reads the page's
// state S; `page` gives the attack as chosen and the acting it calls back.
import { $, show } from "./dom.js";
import { status } from "./messages.js";

export function dicePanel(S, { you, attackBody, cannotFire, act, resolved }) {
  function renderPlay() {
    const why = cannotFire();
    $("roll").disabled = Boolean(why) || !S.check || S.busy;
    $("enter").disabled = Boolean(why) || !S.check || S.busy;
    $("enter").hidden = !(S.state && S.state.entered_dice);
    $("play-why").textContent = why || "";
    const q = S.question;
    show($("dice-form"), Boolean(q));
    if (q) {
      const faces = q.sides ? `d${q.sides}: 1 to ${q.sides}` : `one of ${q.faces.join(", ")}`;
      $("dice-prompt").textContent = q.prompt;
      $("dice-hint").textContent = `${q.count} value${q.count === 1 ? "" : "s"} (${faces}), separated by spaces`;
      $("dice-problem").textContent = q.problem || "";
    }
  }

  // The attack is sent with this side's own choices only: in a line of play, the actions before the other
  // player's first turn (SW-3.1); the rest each player chooses in turn once it waits.
  function ownBody() {
    const body = attackBody();
    const next = S.check && S.check.next_choice;
    if (body.choices.actions && S.state.ruleset === "swerve") {
      const first = body.choices.actions.findIndex((a) => !a.startsWith("attacker:") && !a.startsWith(`${you().side}:`));
      if (first >= 0) body.choices.actions = body.choices.actions.slice(0, first);
      if (!body.choices.actions.length) delete body.choices.actions;
    }
    // a choice of another player's (a nomination) is theirs to send; a line of play is cut above instead
    if (next && next.side && next.side !== you().side && next.name !== "actions") delete body.choices[next.name];
    return body;
  }

  function roll() {
    return act("roll", async () => resolved(await S.api.post("/resolve", ownBody())));
  }

  function enteredDice() {
    const dice = {};
    for (const [stage, values] of S.entered) dice[stage] = [...(dice[stage] || []), ...values];
    return dice;
  }

  // The attack sent with the dice entered so far, asking for the rest: the server answers the next stage to enter
  // (``next``, nothing recorded) until every stage is given, then plays the attack.
  async function askOn() {
    const result = await S.api.post("/resolve", { ...ownBody(), dice: enteredDice(), ask: true });
    if (result && "next" in result && result.next) {
      S.question = result.next;
      S.asked += 1;
      $("dice-form").dataset.question = String(S.asked);  // each question told apart, for tests and assistive tools
      renderPlay();
      $("dice-input").value = "";
      $("dice-input").focus();
      status(`Enter the dice: ${S.question.prompt}`);
      return;
    }
    await resolved(result);
  }

  function enterDice() {
    S.entered = [];
    return act("enter", askOn);
  }

  function submitDice(e) {
    e.preventDefault();
    const q = S.question;
    if (!q) return;
    const parts = $("dice-input").value.trim().split(/[\s,]+/).filter(Boolean);
    const values = parts.map(Number);
    let problem = null;
    if (values.some((v) => !Number.isInteger(v))) problem = "whole numbers only";
    else if (values.length !== q.count) problem = `${values.length} value${values.length === 1 ? "" : "s"} given, ${q.count} needed`;
    else if (values.some((v) => !q.faces.includes(v))) problem = `${values.find((v) => !q.faces.includes(v))} cannot come up`;
    if (problem) { $("dice-problem").textContent = problem; $("dice-input").focus(); return; }
    if (q.problem) {  // the stage entered before did not fit: those values are replaced, not added to
      for (let i = S.entered.length - 1; i >= 0; i--) if (S.entered[i][0] === q.stage) { S.entered.splice(i, 1); break; }
    }
    S.entered.push([q.stage, values]);
    act("enter", askOn);
  }

  function cancelDice() {
    S.question = null; S.entered = [];
    renderPlay();
    status("Dice entry cancelled; nothing was played.");
  }

  return { renderPlay, roll, enterDice, submitDice, cancelDice };
}
