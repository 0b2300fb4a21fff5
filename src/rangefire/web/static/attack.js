// The attack panel: the targets of the unit picked (legal or refused, with the clauses), the line of fire the
// drawing shows, the check's range, modifiers and notes, the choices the rules offer (the values the check sends
// for a choice that depends on the battle), and the exact odds as charts, the game's main outcome open.
// `attackPanel(S, page)` reads the page's state S; `page` gives the names and the picking it calls back.
import { outcomeChart } from "./chart.js";
import { $, chance, clause, clauseLine, h, show } from "./dom.js";
import { fracText, parseFrac, percent, toNumber } from "./frac.js";

export function attackPanel(S, { you, unitName, select, rerun, readable }) {
  // "225340/531441" -> "225340/531441 (≈ 0.424)": the exact value first, a decimal to read it by.
  function approx(text) {
    try {
      const f = parseFrac(text);
      return f.den === 1n ? fracText(f) : `${fracText(f)} (≈ ${toNumber(f).toFixed(3)})`;
    } catch (exc) {
      return String(text);
    }
  }

  function renderTargets() {
    const host = $("target-list");
    if (!S.attacker) { host.replaceChildren(); return; }
    const items = S.targets.map((t) => {
      const cls = t.legal ? "legal" : "refused";
      const bits = [h("button", { type: "button", class: `target-button ${cls}`, "data-target": t.target,
                                 "aria-pressed": t.target === S.target ? "true" : "false",
                                 onclick: () => select(S.attacker, t.target) }, unitName(t.target))];
      if (t.legal) {
        bits.push(h("span", { class: "verdict" }, " legal"));
        if (t.chosen) bits.push(h("span", { class: "chosen" }, " — the rules' choice "), clause(t.chosen_by));
        if (t.dice) bits.push(h("div", { class: "dice" }, t.dice));
        if (t.mean) bits.push(h("div", { class: "mean" }, `mean ${String(t.outcome || "").replace(/_/g, " ")}: ${approx(t.mean)}`));
      } else {
        bits.push(h("span", { class: "verdict" }, " refused"));
        bits.push(h("ul", { class: "reasons" }, ...t.refusals.map((r) => clauseLine("li", r.reason, r.clause))));
      }
      return h("li", { class: `target ${cls}`, "data-target": t.target }, ...bits);
    });
    host.replaceChildren(items.length ? h("ul", { class: "targets" }, ...items)
      : h("p", {}, `${unitName(S.attacker)} has no enemy to fire at.`));
  }

  function renderLine(svg) {
    const host = $("line-state");
    const line = svg.querySelector(".line-of-fire[data-state]");
    if (!line || !S.target || S.state.ruleset === "swerve") { host.hidden = true; host.removeAttribute("data-state"); return; }
    const state = line.getAttribute("data-state");
    const ids = (cls) => [...svg.querySelectorAll(`.${cls}[data-id]`)].map((e) => e.getAttribute("data-id"));
    const parts = [h("strong", {}, `Line: ${state}`)];
    for (const [cls, words] of [["blocker", "blocked by"], ["hindrance", "hindered by"], ["touched", "touching"], ["cover", "cover from"]]) {
      const found = ids(cls);
      if (found.length) parts.push(` — ${words} `, h("span", { class: `ids ${cls}` }, found.join(", ")));
    }
    host.replaceChildren(...parts);
    host.setAttribute("data-state", state);
    host.className = `line-state state-${state}`;
    host.hidden = false;
  }

  function rangeText(plan) {
    const r = plan && plan.range;
    if (!r) return null;
    const unit = "inches" in r ? "in" : "steps" in r ? "steps" : "";
    const value = r.inches ?? r.steps;
    if (value === undefined) return null;
    return `Range ${Number(value).toFixed(2).replace(/\.?0+$/, "")} ${unit}${r.band ? ` (${r.band})` : ""}`;
  }

  function renderCheck() {
    const c = S.check;
    show($("check-section"), Boolean(S.target));
    $("modifiers").replaceChildren(); $("notes").replaceChildren(); $("refusals").replaceChildren();
    $("range").textContent = ""; $("dice-summary").textContent = "";
    if (!S.target) return;
    if (!c) { $("range").textContent = "checking…"; return; }
    if (!c.legal) {
      $("refusals").replaceChildren(...(c.refusals || []).map((r) => clauseLine("li", r.reason, r.clause)));
      return;
    }
    const plan = c.plan || {};
    $("range").textContent = rangeText(plan) || "";
    // the targets' summary is of the attack as the engine would choose it: with choices made, the modifiers and
    // notes below are the word on the dice
    const row = S.targets.find((t) => t.target === S.target);
    const chosen = S.line.length || Object.values(S.choices).some((v) => v !== "" && v !== null);
    if (row && row.dice && !chosen) $("dice-summary").textContent = `Dice: ${row.dice}`;
    const mods = plan.modifiers || [];
    $("modifiers").replaceChildren(...(mods.length ? mods.map((m) => h("li", { "data-clause": m.clause },
      h("span", { class: "delta" }, `${m.delta > 0 ? "+" : ""}${m.delta}`), " ", readable(m.reason), " ", clause(m.clause)))
      : [h("li", {}, "no modifier")]));
    $("notes").replaceChildren(...(plan.notes || []).map((n) => clauseLine("li", n.text, n.clause)));
  }

  function renderOdds() {
    const host = $("charts");
    show($("odds-section"), Boolean(S.target && S.check && S.check.legal));
    host.replaceChildren();
    $("events").replaceChildren();
    if (S.oddsError) { host.append(h("p", { class: "warning" }, S.oddsError.message)); return; }
    if (!S.odds) { if (S.target && S.check && S.check.legal) host.append(h("p", {}, "computing the exact odds…")); return; }
    const events = Object.entries(S.odds.events || {}).map(([k, p]) => {
      const f = parseFrac(p);
      return h("li", { "data-event": k }, `${k.replace(/_/g, " ")}: `, chance(percent(f), fracText(f)));
    });
    if (events.length) $("events").append(h("ul", { class: "events" }, ...events));
    // the game's main outcome drawn open, the others folded away (a narrow screen has little room)
    const row = S.targets.find((t) => t.target === S.target);
    const entries = Object.entries(S.odds.outcomes || {});
    const main = (row && row.outcome && entries.some(([n]) => n === row.outcome)) ? row.outcome : (entries[0] || [])[0];
    for (const [name, outcome] of entries) {
      const chart = outcomeChart(name, outcome.distribution, outcome.mean);
      if (name === main) host.prepend(chart);
      else host.append(h("details", { class: "more-odds", "data-outcome": name }, h("summary", {}, `${name.replace(/_/g, " ")} (mean ${outcome.mean})`), chart));
    }
    if (S.odds.exact === false) host.append(h("p", { class: "warning" }, "estimated, not exact"));
  }

  function renderChoices() {
    const host = $("choices");
    const declared = (S.ruleset && S.ruleset.choices) || [];
    const next = S.check && S.check.next_choice;
    // a choice the rules give another player (a nomination, BU-4.2) is theirs to make from their own page once
    // this side rolls; one whose values depend on the battle and that nobody is asked now has nothing to offer
    const theirs = (c) => next && next.name === c.name && next.side && next.side !== you().side;
    const shown = declared.filter((c) => c.kind !== "actions" && c.kind !== "list")
      .filter((c) => theirs(c) || (c.allowed && c.allowed.length) || c.kind !== "unit");
    show($("choices-section"), Boolean(S.target && shown.length));
    host.replaceChildren(...shown.map((c) => {
      if (theirs(c)) {
        return h("div", { class: "field", "data-choice": c.name },
          h("p", {}, h("strong", {}, c.name.replace(/_/g, " ")), `: chosen by ${next.who} from their own page when you roll `,
            `(${(next.labels || next.allowed).join(", ")}). `, c.help || "", " ", clause(next.clause || c.clause)));
      }
      const id = `choice-${c.name}`;
      // each option: [value sent, what it reads]
      let options = c.allowed && c.allowed.length ? c.allowed.map((a) => [a, a]) : null;
      // values that depend on the battle (Bushido's nominees) come with the check's next choice, each answer with
      // the choices to send for it; kept once answered, when the check no longer asks
      if (next && next.name === c.name && Array.isArray(next.allowed)) {
        S.offered[c.name] = next.allowed.map((answer, i) => {
          const sent = next.choices && next.choices[i] ? next.choices[i][c.name] : answer;
          return [sent === null || sent === undefined ? "" : String(sent), answer];
        });
      }
      if (!options && S.offered[c.name]) options = S.offered[c.name];
      if (!options && c.kind === "unit") options = S.state.units.map((u) => u.id).filter((u) => u !== S.attacker).map((u) => [u, u]);
      const value = S.choices[c.name] ?? "";
      let control;
      if (options) {
        const blank = options.some(([v]) => v === "") ? [] : [h("option", { value: "" },
          c.kind === "unit" ? "(none: keep the target)" : c.kind === "enum" ? "(the default)" : "(the engine's choice)")];
        control = h("select", { id, name: c.name }, ...blank,
          ...options.map(([v, label]) => h("option", { value: v, selected: v === value }, label)));
      } else {
        control = h("input", { id, name: c.name, value, autocomplete: "off" });
      }
      control.addEventListener("change", () => { S.choices[c.name] = control.value; rerun(); });
      if (next && next.name === c.name && next.who) S.offered[`${c.name}:who`] = next.who;
      const who = S.offered[`${c.name}:who`] ? `Chosen by ${S.offered[`${c.name}:who`]}: ` : "";
      return h("div", { class: "field" },
        h("label", { for: id }, c.name.replace(/_/g, " ")), control,
        h("p", { class: "help" }, who, c.help || "", " ", clause(c.clause)));
    }));
  }

  // The game's main outcome for this attack (the one its odds chart opens with).
  function mainOutcome() {
    const row = S.targets.find((t) => t.target === S.target);
    const names = Object.keys((S.odds && S.odds.outcomes) || {});
    return row && row.outcome && names.includes(row.outcome) ? row.outcome : names[0];
  }

  return { renderTargets, renderLine, renderCheck, renderOdds, renderChoices, mainOutcome };
}
