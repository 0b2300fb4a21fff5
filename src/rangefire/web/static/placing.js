// Set-up on the table page (DC-10.4, AL-10.3, BU-9.3): the form for a new unit of this side (its fields built by
// setup.js from the game's schema), the form for a rectangle of terrain, a unit dragged placed again where it is
// put (an edit, not a move in play), and Ready. `setupPanel(S, page)` reads the page's state S; `page` gives the
// units on the table, the terrain tool (terrain.js's, once made) and the acting it calls back.
import { ApiError } from "./api.js";
import { $, clauseLine, h, show } from "./dom.js";
import { fail } from "./messages.js";
import { buildFields, readFields, terrainKinds, terrainRect } from "./setup.js";

export function setupPanel(S, { you, battleUnit, act, refresh, terrain }) {
  function inSetup() { return Boolean(S.state && Array.isArray(S.state.ready) && !S.state.side_to_act); }

  // In set-up a unit dragged is placed again where it is put (an edit, DC-10.4): it has not moved in play.
  function sendMove(uid, body) {
    if (!inSetup()) return S.api.post("/move", body);
    const u = battleUnit(uid) || {};
    const [x, y] = (u.position || [0, 0]).map(Number);
    const data = { position: [round2(x + ((body.by || [0, 0])[0])), round2(y + ((body.by || [0, 0])[1]))] };
    if (body.turn) data.facing = (((Number(u.facing || 0) + body.turn) % 360) + 360) % 360;
    return S.api.post("/edit", { op: "change", section: "units", id: uid, data });
  }

  function round2(v) { return Math.round(v * 100) / 100; }

  let setupFields = null;

  async function renderSetup() {
    const on = inSetup() && you().role === "side" && S.ruleset && S.state.ruleset !== "swerve";
    show($("setup-section"), Boolean(on));
    terrain().render(Boolean(on));
    if (!on) return;
    const ready = S.state.ready || [];
    const mine = ready.includes(you().side);
    $("setup-what").textContent = `The battle is in set-up: place ${you().side}'s units, drag them where they stand, then `
      + `say you are ready. Ready: ${ready.length ? ready.join(", ") : "nobody yet"}.`;
    $("ready").disabled = mine || S.busy;
    $("ready").textContent = mine ? "Ready: waiting for the other sides" : "Ready: start when every side is";
    if (setupFields) return;
    setupFields = [];
    try {
      const schema = await S.api.get(`/api/rulesets/${encodeURIComponent(S.state.ruleset)}/schema`);
      const table = (S.state.battle && S.state.battle.table) || {};
      const centre = [Number(table.width) / 2 || 0, Number(table.depth) / 2 || 0];
      $("setup-fields").replaceChildren();
      setupFields = buildFields($("setup-fields"), schema, centre);
      const kinds = terrainKinds(schema);
      $("terrain-kind").replaceChildren(...kinds.map((k) => h("option", { value: k }, k)));
      show($("terrain-form"), kinds.length > 0);
      terrain().setKinds(kinds);
    } catch (exc) {
      setupFields = null;
      fail(exc);
    }
  }

  function placeUnit(e) {
    e.preventDefault();
    let data;
    try {
      data = readFields(setupFields || [], you().side);
    } catch (exc) {
      $("setup-refusals").replaceChildren(h("li", {}, exc.message));
      return;
    }
    const { id, ...rest } = data;
    act("place", async () => {
      try {
        const result = await S.api.post("/edit", { op: "place", section: "units", id, data: { id, ...rest } });
        $("setup-refusals").replaceChildren();
        await refresh(`${id} placed (action ${result.action}): drag it where it should stand.`);
        $("setup-id").value = "";
      } catch (exc) {
        refused("setup-refusals", exc);
        throw exc;
      }
    });
  }

  // Why the server refused a placing, each reason with its clause, in the form's list of refusals.
  function refused(list, exc) {
    const err = exc instanceof ApiError ? exc.error : {};
    const items = Array.isArray(err.refusals) && err.refusals.length ? err.refusals : [{ clause: err.clause, reason: exc.message }];
    $(list).replaceChildren(...items.map((r) => clauseLine("li", r.reason, r.clause)));
  }

  // A rectangle of terrain, placed by either side (DC-10.4, AL-10.3, BU-9.3: terrain is not a side's own).
  function placeTerrain(e) {
    e.preventDefault();
    let data;
    try {
      const v = (name) => $(`terrain-${name}`).value;
      data = terrainRect(v("id").trim(), v("kind"), { x: v("x"), y: v("y"), width: v("width"), depth: v("depth") });
    } catch (exc) {
      $("terrain-refusals").replaceChildren(h("li", {}, exc.message));
      return;
    }
    act("terrain", async () => {
      try {
        const result = await S.api.post("/edit", { op: "place", section: "terrain", id: data.id, data });
        $("terrain-refusals").replaceChildren();
        await refresh(`${data.id} placed (action ${result.action}).`);
        $("terrain-id").value = "";
      } catch (exc) {
        refused("terrain-refusals", exc);
        throw exc;
      }
    });
  }

  function ready() {
    return act("ready", async () => {
      await S.api.post("/ready", {});
      await refresh("Ready: the battle starts once every side is.");
    });
  }

  return { inSetup, sendMove, renderSetup, placeUnit, placeTerrain, ready };
}
