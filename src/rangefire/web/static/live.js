// Live: another browser's actions arrive as server-sent events (GET .../events), and the page fetches again what
// changed, saying who did what; its own actions, already shown, are passed over, and a stream that reopened with
// nothing missed is fetched again quietly. The header's mark says whether the stream is open. `listen(S, refresh)`
// reads the page's state S and calls back its refresh.
import { $ } from "./dom.js";

export function listen(S, refresh) {
  if (!window.EventSource) return;
  const source = new EventSource(S.api.eventsUrl());
  let timer = null;
  source.addEventListener("action", (e) => {
    let data = {};
    try { data = JSON.parse(e.data); } catch (exc) { data = {}; }
    // our own attack or end of turn, already shown (an attack waiting changes no count: always fetched)
    if (S.state && data.actions === S.state.actions && ["attack", "end-turn", "move", "mark", "edit"].includes(data.kind)) return;
    // the stream reopened and nothing was missed: the state fetched again, quietly (an attack withdrawn meanwhile
    // changes no count)
    if (data.kind === "resumed") { refresh(); return; }
    clearTimeout(timer);
    const what = data.kind === "undo" ? "undid the last action" : data.kind === "end-turn" ? "ended the turn"
      : data.kind === "pending" ? `acted; the attack waits for ${data.awaiting}'s choice`
      : data.kind === "withdrawn" ? "withdrew the attack" : data.kind === "move" ? "moved a unit"
      : data.kind === "mark" ? "marked a unit" : data.kind === "edit" ? "changed the set-up"
      : data.kind === "ready" ? "is ready" : data.kind === "start" ? "started the battle" : "played an attack";
    timer = setTimeout(() => refresh(`${data.by || "someone"} ${what}; ${data.actions} action${data.actions === 1 ? "" : "s"} in the log.`), 150);
  });
  source.addEventListener("open", () => $("live").textContent = "live");
  source.addEventListener("error", () => $("live").textContent = "reconnecting…");
}
