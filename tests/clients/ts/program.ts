// A developer's program on rangefire's HTTP API, written against the types openapi-typescript generates from the
// served /openapi.json (./openapi.d.ts, made by the test) and called through openapi-fetch: it creates a Bushido
// battle from a built-in example, fires an attack whose target's player nominates another model (the answer is a
// 202: the attack waits for that side [BU-4.2]), answers it with that side's token, and ends the turn.
// Run: node program.js BASE_URL; prints what it saw as one JSON line.

import createClient from "openapi-fetch";
import type { paths } from "./openapi.js";

// Node's own process, as much of it as this program reads (no @types/node needed).
declare const process: { argv: string[]; exitCode?: number };


const EXAMPLE = "temple";  // the temple yard: prefecture's yoichi fires at ito's takeda [BU-4.2]
const ATTACKER = "yoichi";
const TARGET = "takeda";
const NOMINATED = "yojimbo";

function fail(what: string, status: number, error: unknown): never {
  throw new Error(`${what}: the server answered ${status}: ${JSON.stringify(error)}`);
}

async function main(base: string): Promise<void> {
  const api = createClient<paths>({ baseUrl: base });
  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

  const listed = await api.GET("/api/examples");
  if (!listed.data) fail("the examples", listed.response.status, listed.error);
  const example = listed.data.examples.find((e) => e.name === EXAMPLE);
  if (!example || example.ruleset !== "bushido") throw new Error(`no Bushido example named ${EXAMPLE}`);

  const created = await api.POST("/api/battles", { body: { example: example.name } });
  if (!created.data) fail("creating a battle", created.response.status, created.error);
  const battle = created.data;
  const path = { battle_id: battle.id };

  const state = await api.GET("/api/battles/{battle_id}", { params: { path }, headers: bearer(battle.tokens.spectator) });
  if (!state.data) fail("the battle's state", state.response.status, state.error);
  const attacking = state.data.side_to_act;
  if (!attacking) throw new Error("no side is to act");
  const token = (side: string): string => {
    const found = battle.tokens.sides[side];
    if (found === undefined) throw new Error(`no token for ${side}`);
    return found;
  };

  const fired = await api.POST("/api/battles/{battle_id}/resolve", {
    params: { path }, headers: bearer(token(attacking)), body: { attacker: ATTACKER, target: TARGET },
  });
  if (!fired.data) fail("the attack", fired.response.status, fired.error);
  if (fired.response.status !== 202 || !("pending" in fired.data)) {
    throw new Error(`the attack was to wait for the target's player, not be played: ${fired.response.status}`);
  }
  const pending = fired.data.pending;
  const awaiting = pending.awaiting;
  if (awaiting.kind !== "choice") throw new Error(`the attack waits for ${awaiting.side}'s dice, not a choice`);
  const choice = (awaiting.options ?? []).find((o) => o.answer === `nominate ${NOMINATED}`);
  if (!choice) throw new Error(`no option to nominate ${NOMINATED}: ${(awaiting.allowed ?? []).join(", ")}`);

  const answered = await api.POST("/api/battles/{battle_id}/answer", {
    params: { path }, headers: bearer(token(awaiting.side)), body: { answer: choice.answer, step: pending.step },
  });
  if (!answered.data) fail("the answer", answered.response.status, answered.error);
  if ("pending" in answered.data) throw new Error("the attack still waits after its one choice");
  const played = answered.data;
  if (played.ruleset !== "bushido") throw new Error(`a ${played.ruleset} attack played in a Bushido battle`);
  const outcome = played.outcome;  // Bushido's own: hit, success level, wounds [BU-6.3, BU-7.2]

  const ended = await api.POST("/api/battles/{battle_id}/end-turn", {
    params: { path }, headers: bearer(token(attacking)), body: {},
  });
  if (!ended.data) fail("the end of the turn", ended.response.status, ended.error);
  if (!ended.data.turn) throw new Error("the end of the turn names no turn");
  const turn: number = ended.data.turn.number;

  console.log(JSON.stringify({
    battle: battle.id,
    spectator: battle.tokens.spectator,
    ruleset: battle.ruleset,
    attacker_side: attacking,
    waiting: { status: fired.response.status, side: awaiting.side, clause: awaiting.clause, step: pending.step },
    answer: choice.answer,
    played: { action: played.action, attacker: played.attacker, target: played.target },
    outcome: { hit: outcome.hit, success_level: outcome.success_level, wounds: outcome.wounds },
    ended: { action: ended.data.action, turn, side_to_act: ended.data.side_to_act },
  }));
}

const base = process.argv[2];
if (!base) {
  console.error("usage: node program.js BASE_URL");
  process.exitCode = 2;
} else {
  main(base).catch((exc: unknown) => {
    console.error(exc instanceof Error ? exc.message : exc);
    process.exitCode = 1;
  });
}
