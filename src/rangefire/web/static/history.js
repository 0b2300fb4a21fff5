// What has been played, on the table page: the log (newest first, drawn after the table so that an entry's
// casualties are already shown), the result of this page's last action, Undo of the last action still standing
// (and why it is off, in words), and the end of a turn or of an activation. `historyPanel(S, page)` reads the
// page's state S; `page` gives the names, the game's unit of distance and the acting it calls back.
import { $, clause, clauseLine, h, show } from "./dom.js";
import { actionHead, logEntry } from "./log.js";
import { distanceText } from "./moves.js";

export function historyPanel(S, { you, unitName, moveUnit, act, refresh }) {
  // The log is drawn last of all, so that whoever reads a new entry finds the table and the units already
  // showing its casualties.
  function renderLog() {
    const actions = S.actions || [];
    const list = $("log");
    const context = { me: you().side, unitName, distance: (d) => distanceText(d, moveUnit()) };
    list.replaceChildren(...[...actions].reverse().map((a) => logEntry(a, context)));
    $("log-empty").hidden = actions.length > 0;
    S.lastBy = actions.length ? actions[actions.length - 1].by : null;
    if (S.state) renderUndo();
  }

  // Undo takes back the last action still standing, and only the side that made it may. Why it may not is said
  // beside it in words (a touch screen shows no tooltip), and in its tooltip.
  function renderUndo() {
    const me = you(), st = S.state;
    const last = st.last_standing;  // the last action not taken back, where the server says which
    const by = last ? last.by : last === null ? null : S.lastBy;
    const none = last === null || !st.actions;
    let why = null, code = null;
    if (me.role !== "side") why = "A spectator never acts.";
    else if (none) why = "Nothing to undo yet.";
    else if (by && by !== me.side) why = `The last action is ${by}'s; only ${by} may undo it.`;
    else if (st.pending) why = "An attack waits for a choice: it is answered or withdrawn first.";
    else if (st.last_action_stands) {
      why = `${st.last_action_stands.message.replace(/\.$/, "")}.`;
      code = st.last_action_stands.clause;
    }
    $("undo").disabled = Boolean(why);
    $("undo").title = why || "Take back the last action";
    const what = last && last.what ? `Undo takes back your last action: ${last.what}.` : "Undo takes back your last action.";
    $("undo-why").replaceChildren(...(why ? [clause(code), code ? " " : null, `Undo is off: ${why}`] : [what]).filter(Boolean));
    show($("undo-why"), me.role === "side");
  }

  function showResult(title, result) {
    const host = $("result");
    const outcome = result.outcome ? Object.entries(result.outcome)
      .filter(([, v]) => v !== null && typeof v !== "object")
      .map(([k, v]) => `${k.replace(/_/g, " ")} ${v === true ? "yes" : v === false ? "no" : v}`).join(", ") : "";
    const dice = result.dice ? Object.entries(result.dice).map(([k, v]) => `${k}: ${v.join(" ")}`).join("; ") : "";
    // the outcome in short; every line with its clause is in the log below
    const last = (result.log || []).slice(-1).map((l) => clauseLine("p", l.text, l.clause));
    host.replaceChildren(...[h("h3", {}, title), dice ? h("p", { class: "dice" }, `Dice — ${dice}`) : null,
      outcome ? h("p", { class: "outcome" }, outcome) : null, ...(outcome ? [] : last),
      h("p", { class: "hint" }, "Every step, with its clause, is in the log.")].filter(Boolean));  // no "null" shown
    $("result-section").hidden = false;
  }

  // What an action of this page was, as the log says it ("You fired 20th-maine at 15th-alabama").
  function headOf(record) {
    return actionHead(record, { me: you().side, unitName, distance: (d) => distanceText(d, moveUnit()) });
  }

  function endTurn(activation) {
    return act("end-turn", async () => {
      const result = await S.api.post("/end-turn", { activation });
      showResult(`Action ${result.action}: ${headOf({ action: "end-turn", by: you().side, activation })}`, result);
      await refresh(`${activation ? "Activation" : "Turn"} ended; ${result.side_to_act ? `${result.side_to_act} to act` : "next"}.`);
    });
  }

  function undo() {
    return act("undo", async () => {
      await S.api.post("/undo", {});
      $("result-section").hidden = true;
      await refresh("The last action was undone.");
    });
  }

  return { renderLog, renderUndo, showResult, headOf, endTurn, undo };
}
