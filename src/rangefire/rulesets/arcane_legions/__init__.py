"""Arcane Legions: ranged (and close) combat orders between units on rigid bases (AL-*).

>>> from rangefire.rulesets import find_ruleset
>>> find_ruleset("al").stages
('attack', 'defense', 'attack-reroll', 'defense-reroll')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rangefire.core import Attack, Choice, DiceSource, LogLine, Move, MoveCheck, Odds, Refusal, Resolution, Ruleset
from rangefire.rulesets.arcane_legions.moves import check_move, starts_cleared
from rangefire.rulesets.arcane_legions.orders import (
    ArcaneOutcome,
    OrderPlan,
    counted,
    odds_of,
    resolve_order,
    take_damage,
    without_figures,
)
from rangefire.rulesets.arcane_legions.planning import OrderPlanner
from rangefire.rulesets.arcane_legions.scenario import SIDE_NAMES, Battle, Options, Turn, Unit, cross_problems

__all__ = ["ArcaneLegions", "ArcaneOutcome", "Battle", "OrderPlan", "Unit"]

ORDERS = ("ranged", "close")
#: The rulings' options, written in every battle (the game's numbers only where a house rule sets them).
RULINGS = ("corner_contact_is_adjacent", "touching_hinders", "refuse_zero_dice", "crit_per_three_sixes")


class ArcaneLegions(Ruleset[Battle, OrderPlan, ArcaneOutcome]):
    """Ranged combat orders: sides, notches, line of sight, and the lineup of sorted dice."""

    key = "arcane-legions"
    title = "Arcane Legions"
    aliases = ("al", "arcane")
    clause_prefix = "AL"
    setup_clause = "AL-10.3"  # set-up edits before the first turn
    stages = ("attack", "defense", "attack-reroll", "defense-reroll")
    outcome_names = ("hits",)
    event_names = ("critical",)
    main_outcome = "hits"
    choices = (
        Choice("order", "enum", ORDERS, "the order given: ranged (the default) or close combat", "AL-8.1"),
        Choice("from_side", "side", SIDE_NAMES, "the attacker's side to use (the engine chooses where none is "
                                                "given)", "AL-3.1"),
        Choice("to_side", "side", SIDE_NAMES, "the target's side to attack (the engine chooses where none is "
                                              "given)", "AL-3.1"),
    )
    battle_model = Battle
    options_model = Options
    written_rulings = RULINGS
    duel_left_name = "figures"

    def raw_problems(self, data: Mapping[str, Any]) -> list[str]:
        return cross_problems(data)

    def status(self, battle: Battle) -> list[dict[str, Any]]:
        return [{"id": u.id, "side": u.side, "figures": u.figures, "blue": u.ready("blue"), "red": u.ready("red"),
                 "white": u.ready("white"), "order points": battle.players[u.side].order_points
                 if u.side in battle.players else "-"} for u in battle.units]

    # -- the turn [AL-9] --------------------------------------------------------------------------
    def _side_to_act(self, battle: Battle) -> str | None:
        return battle.turn.side if battle.turn is not None else None

    def _end_turn(self, battle: Battle) -> tuple[Battle, list[LogLine]]:
        side, number, following, log, closing = self.passed_turn(battle, "AL-9.1", "AL-9.3")
        cleared = len(log)
        units = []
        for unit in battle.units:
            if unit.side == side and (unit.ranged_orders_this_turn or unit.pushed):
                log.append(LogLine("AL-9.2", f"{unit.id}: {counted(unit.ranged_orders_this_turn, 'ranged order')} "
                                             "this turn cleared" + ("; no longer pushed" if unit.pushed else "")))
                unit = unit.model_copy(update={"ranged_orders_this_turn": 0, "pushed": False})
            units.append(unit)
        if len(log) == cleared:
            log.append(LogLine("AL-9.2", f"no unit of {side} had a ranged order or a push this turn to clear"))
        units, over = starts_cleared(units, side)  # its moves this turn are over [AL-9.1, AL-10.1]
        log += over
        players = dict(battle.players)
        player = players.get(side)
        if player is not None and player.order_points_per_turn is not None:
            log.append(LogLine("AL-9.2", f"{side}'s order points: {player.order_points} become "
                                         f"{player.order_points_per_turn} (order_points_per_turn)"))
            players[side] = player.model_copy(update={"order_points": player.order_points_per_turn})
        elif player is not None:
            log.append(LogLine("AL-9.2", f"{side}'s order points stay {player.order_points} (no "
                                         "order_points_per_turn given)"))
        log += closing
        turn = Turn(number=number, side=following, order=tuple(self.sides(battle)))  # the order stays [AL-9.3]
        after = battle.model_copy(update={"units": tuple(units), "players": players, "turn": turn})
        return after, log

    # -- moves [AL-10]: checked and logged by rangefire.rulesets.arcane_legions.moves ------------------
    move_unit = "steps"

    def _move(self, battle: Battle, move: Move) -> MoveCheck:
        return check_move(battle, move)

    # -- duels: played by rangefire.rulesets.arcane_legions.duel --------------------
    duel_module = "rangefire.rulesets.arcane_legions.duel"
    # -- check and plan --------------------------------------------------------------------------
    def _check(self, battle: Battle, attack: Attack) -> OrderPlan | Sequence[Refusal]:
        return OrderPlanner(self.key, battle, attack).plan()

    # -- odds, resolution, application -----------------------------------------------------------
    def _odds(self, plan: OrderPlan) -> Odds:
        return odds_of(plan)  # exact, or beyond the exact lineup's limit a labelled estimate

    def _resolve(self, plan: OrderPlan, source: DiceSource) -> tuple[list[LogLine], ArcaneOutcome]:
        return resolve_order(plan, source)

    def _apply(self, battle: Battle, resolution: Resolution[ArcaneOutcome]) -> Battle:
        plan = resolution.plan
        assert isinstance(plan, OrderPlan)
        out = resolution.outcome
        units = []
        for unit in battle.units:
            if unit.id == plan.attacker:
                if plan.push:
                    unit = without_figures(unit, plan.push_figures)[0].model_copy(update={"pushed": True})  # [AL-5.2]
                if plan.order == "ranged":
                    unit = unit.model_copy(update={"ranged_orders_this_turn": unit.ranged_orders_this_turn + 1})
                if out.defender_hits:
                    unit = unit.model_copy(update={"slots": take_damage(unit, out.defender_hits)[0]})  # [AL-8.2]
            elif unit.id == plan.target and out.hits:
                unit = unit.model_copy(update={"slots": take_damage(unit, out.hits)[0]})  # [AL-7.2]
            if unit.figures == 0:
                continue  # a unit with no figures is destroyed [AL-7.2]
            units.append(unit)
        players = dict(battle.players)
        side = battle.unit(plan.attacker).side
        players[side] = players[side].model_copy(update={"order_points": players[side].order_points - plan.cost})
        return battle.model_copy(update={"units": tuple(units), "players": players})
