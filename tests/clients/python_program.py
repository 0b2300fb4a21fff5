"""A developer's program on rangefire's HTTP API, written against the client openapi-python-client generates from
the served ``/openapi.json`` (the package ``rangefire_client``, made by tests/clients/test_python_client.py): it
creates a Bushido battle from a built-in example, fires an attack whose target's player nominates another model
(the answer is a 202, parsed into its type: the attack waits for that side [BU-4.2]), answers it with that side's
token, and ends the turn [BU-8.2].

Run: ``python python_program.py BASE_URL`` with ``rangefire_client`` importable; prints what it saw as one JSON
line. It type-checks with ``mypy --strict`` together with the generated package."""

from __future__ import annotations

import json
import sys
from typing import Any, TypeVar

from rangefire_client import AuthenticatedClient, Client
from rangefire_client.api.default import (
    answer_api_battles_battle_id_answer_post as answer_route,
)
from rangefire_client.api.default import (
    create_api_battles_post as create_route,
)
from rangefire_client.api.default import (
    end_turn_api_battles_battle_id_end_turn_post as end_turn_route,
)
from rangefire_client.api.default import (
    example_list_api_examples_get as examples_route,
)
from rangefire_client.api.default import (
    resolve_api_battles_battle_id_resolve_post as resolve_route,
)
from rangefire_client.models import (
    AnswerBody,
    AwaitingChoice,
    BushidoResolveAnswer,
    CreateBody,
    CreatedAnswer,
    EndTurnAnswer,
    EndTurnBody,
    ExamplesAnswer,
    PendingAnswer,
    ResolveBody,
)
from rangefire_client.types import Response

EXAMPLE = "temple"  # the temple yard: prefecture's yoichi fires at ito's takeda [BU-4.2]
ATTACKER, TARGET, NOMINATED = "yoichi", "takeda", "yojimbo"
T = TypeVar("T")


def expected(response: Response[Any], kind: type[T], what: str) -> T:
    """The parsed answer, which must be of ``kind`` (else the program stops, saying what the server answered)."""
    if not isinstance(response.parsed, kind):
        raise SystemExit(f"{what}: the server answered {int(response.status_code)}, parsed as "
                         f"{type(response.parsed).__name__}, not {kind.__name__}: {response.content[:300]!r}")
    return response.parsed


def main(base_url: str) -> dict[str, Any]:
    anyone = Client(base_url=base_url)
    listed = expected(examples_route.sync_detailed(client=anyone), ExamplesAnswer, "the examples")
    example = next(e for e in listed.examples if e.name == EXAMPLE)
    if example.ruleset != "bushido":
        raise SystemExit(f"{EXAMPLE} is not a Bushido example")

    created = expected(create_route.sync_detailed(client=anyone, body=CreateBody(example=example.name)),
                       CreatedAnswer, "creating a battle")
    tokens = created.tokens.sides.additional_properties

    def side(name: str) -> AuthenticatedClient:
        return AuthenticatedClient(base_url=base_url, token=tokens[name])

    attacking = next(iter(tokens))  # the sides in the order their turns pass: the first acts first
    fired = resolve_route.sync_detailed(created.id, client=side(attacking),
                                        body=ResolveBody(attacker=ATTACKER, target=TARGET))
    waiting = expected(fired, PendingAnswer, "the attack")
    awaiting = waiting.pending.awaiting
    if not isinstance(awaiting, AwaitingChoice) or not isinstance(awaiting.options, list):
        raise SystemExit(f"the attack waits for something other than a choice: {awaiting!r}")
    choice = next(o for o in awaiting.options if o.answer == f"nominate {NOMINATED}")

    answered = answer_route.sync_detailed(created.id, client=side(awaiting.side),
                                          body=AnswerBody(answer=choice.answer, step=waiting.pending.step))
    played = expected(answered, BushidoResolveAnswer, "the answer")

    ended = expected(end_turn_route.sync_detailed(created.id, client=side(attacking), body=EndTurnBody()),
                     EndTurnAnswer, "the end of the turn")
    if ended.turn is None:
        raise SystemExit("the end of the turn names no turn")
    return {
        "battle": created.id,
        "spectator": created.tokens.spectator,
        "ruleset": str(created.ruleset),
        "attacker_side": attacking,
        "waiting": {"status": int(fired.status_code), "side": awaiting.side, "clause": awaiting.clause,
                    "step": waiting.pending.step},
        "answer": choice.answer,
        "played": {"action": played.action, "attacker": played.attacker, "target": played.target},
        "outcome": {"hit": played.outcome.hit, "success_level": played.outcome.success_level,
                    "wounds": played.outcome.wounds},  # Bushido's own [BU-6.3, BU-7.2]
        "ended": {"action": ended.action, "turn": ended.turn.number, "side_to_act": ended.side_to_act},
    }


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python python_program.py BASE_URL")
    print(json.dumps(main(sys.argv[1])))
