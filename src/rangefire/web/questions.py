"""The engine's questions on a battle, as the API answers them: who can shoot whom, advice, a drawing, an attack's
check and its odds. Each reads the loaded battle as the asking token sees it and nothing else (never the store):
the server asks them in its engine's worker processes (:mod:`rangefire.web.engine`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rangefire.core import FORMAT, Attack, RangefireError, Ruleset
from rangefire.core.options import house_rules
from rangefire.web.errors import refused as refusal
from rangefire.web.loaded import AttackAsk, Loaded, hidden
from rangefire.web.pending import plain
from rangefire.web.store import Role


def house(battle: Any) -> list[dict[str, Any]]:
    """The options a battle sets away from the rules' values, as every check, odds and resolve answer names them."""
    return [rule.to_dict() for rule in house_rules(battle.options)]


def attack_asked(ruleset: Ruleset[Any, Any], ask: AttackAsk) -> Attack:
    """The attack asked for, its choices read by the game's own declaration (``Ruleset.attack``: an unknown
    name or a value not allowed is a :class:`ChoiceError` naming the choice)."""
    return ruleset.attack(ask.attacker, ask.target, dict(ask.choices or {}))


def targets(loaded: Loaded, side: str | None, attacker: str | None) -> dict[str, Any]:
    from rangefire.analysis.targets import targets as found

    rows = found(loaded.ruleset, loaded.visible, side=side, attacker=attacker)
    return {"format": FORMAT, "targets": [row.to_dict() for row in rows]}


def advice(loaded: Loaded, role: Role, side: str | None, outcome: str | None, refused: bool) -> dict[str, Any]:
    """Every legal attack of a side ranked, as ``rangefire advise --json``: the side named, else the
    asking side's own (a spectator names one)."""
    from rangefire.analysis.advise import advise

    side = side if side is not None else role.side
    if side is None:
        raise RangefireError("name the side to advise (?side=): a spectator's token has no side of its own")
    advised = advise(loaded.ruleset, loaded.visible, side, outcome)
    return {"format": FORMAT, **advised.to_dict(refused=refused), "house_rules": house(loaded.state),
            **hidden(loaded)}


def drawing(loaded: Loaded, attacker: str | None, target: str | None,
            choices: Mapping[str, Any] | None = None) -> str:
    from rangefire.draw import draw_battle

    return draw_battle(loaded.ruleset, loaded.visible, attacker, target, choices)


def check(loaded: Loaded, ask: AttackAsk) -> dict[str, Any]:
    ruleset, battle = loaded.ruleset, loaded.visible
    attack = attack_asked(ruleset, ask)
    checked = ruleset.check(battle, attack)
    result: dict[str, Any] = {"format": FORMAT, **checked.to_dict(ruleset.key), "house_rules": house(battle)}
    if ask.target is None and ruleset.chooses_target is None:  # as `check` without --target: every candidate
        from rangefire.analysis.targets import targets as found

        result["candidates"] = [row.to_dict() for row in found(ruleset, battle, attacker=ask.attacker)]
    result["next_choice"] = next_choice(ruleset, battle, attack) if checked.is_legal else None
    return {**result, **hidden(loaded)}


def next_choice(ruleset: Ruleset[Any, Any], battle: Any, attack: Attack) -> dict[str, Any] | None:
    """The next choice a player makes in this attack (a swerve action, a Bushido nomination): the side whose
    player makes it (``side``), who in words, the answers, the clause, and for each answer the ``choices``
    the attack holds once it is chosen."""
    question = ruleset.next_choice(battle, attack)
    if question is None:
        return None
    after = [plain(dict(ruleset.with_choice(attack, answer).choices)) for answer in question.allowed]
    return {**question.to_dict(), "choices": after}


def odds(loaded: Loaded, ask: AttackAsk) -> dict[str, Any]:
    ruleset = loaded.ruleset
    checked = ruleset.check(loaded.visible, attack_asked(ruleset, ask))
    if checked.plan is None:
        raise refusal(checked.refusals)
    return {"format": FORMAT, **ruleset.odds(checked.plan).to_dict(), "house_rules": house(loaded.state),
            **hidden(loaded)}


__all__ = ["advice", "attack_asked", "check", "drawing", "house", "next_choice", "odds", "targets"]
