"""Arcane Legions: ranged (and close) combat orders between units on rigid bases (AL-*).

>>> from rangefire.rulesets import find_ruleset
>>> find_ruleset("al").stages
('attack', 'defense', 'attack-reroll', 'defense-reroll')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any, NamedTuple

from rangefire.core import Attack, Choice, DiceSource, LogLine, Modifier, Odds, Refusal, Resolution, Ruleset
from rangefire.geometry import Point, Segment
from rangefire.rulesets.arcane_legions.orders import (
    RULES,
    ArcaneOutcome,
    OrderPlan,
    counted,
    figures,
    noted,
    odds_of,
    possessive,
    resolve_order,
    steps,
    take_damage,
    without_figures,
)
from rangefire.rulesets.arcane_legions.scenario import SIDE_NAMES, Battle, Options, Turn, Unit, cross_problems
from rangefire.rulesets.arcane_legions.table import (
    Reach,
    Sight,
    base_of,
    is_adjacent,
    nearby,
    sight,
    sight_pieces,
    touching_sides,
)

__all__ = ["ArcaneLegions", "ArcaneOutcome", "Battle", "OrderPlan", "Unit"]

ORDERS = ("ranged", "close")
#: The rulings' options, written in every battle (the game's numbers only where a house rule sets them).
RULINGS = ("corner_contact_is_adjacent", "touching_hinders", "refuse_zero_dice", "crit_per_three_sixes")


class Sides(NamedTuple):
    """The sides, notches and dice an order will use [AL-3.4], the other side pairs that tied with it
    [AL-3.5]; no line of sight for close combat."""

    attack_dice: int
    defense_dice: int
    modifiers: list[Modifier]
    from_side: str
    to_side: str
    from_notch: Point
    to_notch: Point
    distance2: Fraction
    sight: Sight | None
    tied: tuple[tuple[str, str], ...] = ()


class ArcaneLegions(Ruleset[Battle, OrderPlan, ArcaneOutcome]):
    """Ranged combat orders: sides, notches, line of sight, and the lineup of sorted dice."""

    key = "arcane-legions"
    title = "Arcane Legions"
    aliases = ("al", "arcane")
    clause_prefix = "AL"
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
        side, number, following, passing = self.passed_turn(battle, "AL-9.1")
        log = passing[:-1]
        units = []
        for unit in battle.units:
            if unit.side == side and (unit.ranged_orders_this_turn or unit.pushed):
                log.append(LogLine("AL-9.2", f"{unit.id}: {counted(unit.ranged_orders_this_turn, 'ranged order')} "
                                             "this turn cleared" + ("; no longer pushed" if unit.pushed else "")))
                unit = unit.model_copy(update={"ranged_orders_this_turn": 0, "pushed": False})
            units.append(unit)
        if len(log) == len(passing) - 1:
            log.append(LogLine("AL-9.2", f"no unit of {side} had a ranged order or a push this turn to clear"))
        players = dict(battle.players)
        player = players.get(side)
        if player is not None and player.order_points_per_turn is not None:
            log.append(LogLine("AL-9.2", f"{side}'s order points: {player.order_points} become "
                                         f"{player.order_points_per_turn} (order_points_per_turn)"))
            players[side] = player.model_copy(update={"order_points": player.order_points_per_turn})
        elif player is not None:
            log.append(LogLine("AL-9.2", f"{side}'s order points stay {player.order_points} (no "
                                         "order_points_per_turn given)"))
        log.append(passing[-1])
        after = battle.model_copy(update={"units": tuple(units), "players": players,
                                          "turn": Turn(number=number, side=following)})
        return after, log

    # -- duels: played by rangefire.rulesets.arcane_legions.duel --------------------
    duel_module = "rangefire.rulesets.arcane_legions.duel"
    # -- check and plan --------------------------------------------------------------------------
    def _check(self, battle: Battle, attack: Attack) -> OrderPlan | Sequence[Refusal]:
        firer = battle.unit(attack.attacker)
        if battle.turn is not None and firer.side != battle.turn.side:
            return [Refusal("AL-9.1", f"it is {battle.turn.side}'s turn ({battle.turn.number}); only its units take "
                                      f"orders, and {firer.id} is on {firer.side}'s side")]
        order = attack.choice("order") or "ranged"  # each value checked against the declaration [AL-8.1]
        wanted = {role: attack.choice(role) for role in ("from_side", "to_side")}  # [AL-1.1]
        if attack.target is None:
            return [Refusal("AL-2.3", "name the target unit with --target")]
        target = battle.unit(attack.target)
        if target.side == firer.side:
            return [Refusal("AL-2.3", f"{target.id} is on {firer.side}'s side, not an enemy")]
        options = battle.options
        refusals: list[Refusal] = []
        base_cost = getattr(options.cost, firer.base)  # [AL-5.1]
        cost = max(0, base_cost + firer.abilities.order_cost)
        points = battle.players[firer.side].order_points if firer.side in battle.players else 0
        if points < cost:
            refusals.append(Refusal("AL-5.1", f"{firer.side} has {counted(points, 'order point')}; the order "
                                              f"costs {cost}"))
        push = False
        shooter = firer
        pushed: list[int] = []
        push_figures = options.push_figures  # [AL-5.2]
        if order == "ranged":
            near = [u.id for u in nearby(battle.units, firer)
                    if u.side != firer.side and is_adjacent(firer, u, options.corner_contact_is_adjacent)]
            if near:
                refusals.append(Refusal("AL-2.1", f"{firer.id} is adjacent to the enemy ({', '.join(near)}): no ranged "
                                                  "combat order"))
            if firer.ranged_orders_this_turn >= 1:
                if firer.pushed:
                    refusals.append(Refusal("AL-5.2", f"{firer.id} has had a ranged order and been pushed this "
                                                      "turn: it cannot be pushed again"))
                elif firer.figures <= push_figures:
                    refusals.append(Refusal("AL-5.2", f"a push would remove {possessive(firer.id)} last figure"
                                            + (f" (a push removes {push_figures}"
                                               f"{noted(push_figures, RULES.push_figures)})"
                                               if push_figures != RULES.push_figures else "")))
                else:
                    push = True
                    shooter, pushed = without_figures(firer, push_figures)
            if shooter.ready("blue") == 0:
                refusals.append(Refusal("AL-2.2", f"{firer.id} has no ready blue icon"
                                                  + (" after the push" if push else "")))
        if refusals:
            return refusals
        found = self._choose(battle, shooter, target, order, wanted)
        if isinstance(found, list):
            return found
        attack_dice, defense_dice, modifiers, sa, st, na, nt, d2, seen, tied = found
        if options.refuse_zero_dice and attack_dice == 0:
            return [Refusal("AL-5.5", f"{firer.id} would roll no attack dice (option refuse_zero_dice)")]
        ab, db = shooter.abilities, target.abilities
        by_engine = wanted["from_side"] is None or wanted["to_side"] is None
        if order == "close":
            notes = [LogLine("AL-8.1", f"from {possessive(firer.id)} {sa} side to {possessive(target.id)} {st} "
                                       "side, the touching sides"
                                       + (" (the engine's choice: most dice net of the defender's)"
                                          if by_engine else ""))]
        else:
            notes = [LogLine("AL-3.4" if by_engine else "AL-3.1",
                             f"from {possessive(firer.id)} {sa} side to {possessive(target.id)} {st} side, "
                             f"{float(d2) ** 0.5:.2f} steps"
                             + (f", within the range of {steps(options.range_steps)}"
                                f"{noted(options.range_steps, RULES.range_steps, steps)}"
                                if options.range_steps != RULES.range_steps else "")
                             + (" (the engine's choice: most dice net of the defender's, then the shortest)"
                                if by_engine else ""))]
        if tied:
            notes.append(LogLine("AL-3.5", "tied on net dice and distance with "
                                 + ", ".join(f"{possessive(firer.id)} {a} side to {possessive(target.id)} {t} side"
                                             for a, t in tied)
                                 + ": the engine takes the most attack dice, then the sides in the order "
                                   f"{', '.join(SIDE_NAMES)}"))
        if seen is not None:
            notes.append(LogLine("AL-4.3" if seen.hindered_by else "AL-4.4" if seen.touching else "AL-4.1",
                                 f"line of sight {seen.verdict}"
                                 + (f" by {', '.join(seen.hindered_by)}" if seen.hindered_by else "")
                                 + (f"; touching {', '.join(seen.touching)}" if seen.touching else "")))
        rules_cost = getattr(RULES.cost, firer.base)
        notes.append(LogLine("AL-5.1", f"the order costs {counted(cost, 'order point')}"
                                       + (f" (a {firer.base}'s order {base_cost}{noted(base_cost, rules_cost)})"
                                          if base_cost != rules_cost else "")
                                       + f": {firer.side} has {points}"))
        if push:
            removed = (f"its figure in slot {pushed[0]}" if len(pushed) == 1 else
                       f"its figures in slots {', '.join(map(str, pushed))}")
            notes.append(LogLine("AL-5.2", f"a second ranged order this turn: {firer.id} is pushed ({removed} "
                                           "removed" + noted(push_figures, RULES.push_figures) + ")"))
        for who, at_most, dice in ((shooter.id, ab.reroll_attack_at_most, attack_dice),
                                   (target.id, db.reroll_defense_at_most, defense_dice)):
            if at_most and dice:
                notes.append(LogLine("AL-6.3", f"{who} rerolls once each die showing {at_most} or less"))
        for who, bonus, dice, kind in ((shooter.id, ab.attack_die_bonus, attack_dice, "attack"),
                                       (target.id, db.defense_die_bonus, defense_dice, "defense")):
            if bonus and dice:
                modifiers.append(Modifier("AL-6.3", bonus, f"to each of {possessive(who)} {kind} dice after "
                                                           f"rerolls ({kind}_die_bonus)"))
        notes.extend(_lineup_house_rules(options))
        return OrderPlan(
            ruleset=self.key, attacker=firer.id, target=target.id, modifiers=tuple(modifiers), notes=tuple(notes),
            order=order, from_side=sa, to_side=st, from_notch=(na.x, na.y), to_notch=(nt.x, nt.y), distance2=d2,
            sight=seen.verdict if seen else "adjacent", hindered_by=seen.hindered_by if seen else (),
            touching=seen.touching if seen else (), attack_dice=attack_dice, defense_dice=defense_dice,
            attack_die_bonus=ab.attack_die_bonus, defense_die_bonus=db.defense_die_bonus,
            reroll_attack_at_most=ab.reroll_attack_at_most, reroll_defense_at_most=db.reroll_defense_at_most,
            crit_per_three=options.crit_per_three_sixes, crit_sixes=options.critical.sixes,
            crit_hits=options.critical.hits, phantom=options.phantom, push_figures=push_figures,
            defender_scores=order == "close" or db.defender_scores_in_ranged, cost=cost, push=push,
            chosen_by_engine=by_engine, tied_sides=tied,
            attack_icons=shooter.ready("blue" if order == "ranged" else "red"), defense_icons=target.ready("white"),
            attacker_figures=figures(shooter), target_figures=figures(target),
            attacker_figure_count=shooter.figures, target_figure_count=target.figures)

    @staticmethod
    def _melee_friends(battle: Battle, shooter: Unit, target: Unit) -> list[str]:
        """Units friendly to the attacker that the target is adjacent to (firing into melee) [AL-5.3]."""
        return [u.id for u in nearby(battle.units, target) if u.side == shooter.side and u.id != shooter.id
                and is_adjacent(u, target, battle.options.corner_contact_is_adjacent)]

    def _dice(self, shooter: Unit, target: Unit, order: str, sa: str, st: str, hindrances: int,
              options: Options, friends: Sequence[str] = ()) -> tuple[int, int, list[Modifier]]:
        """Attack and defense dice for a choice of sides [AL-5.3, AL-5.4, AL-8.1], never below 0 [AL-5.5]; the
        penalties are the battle's options. A penalty a house rule sets is named beside the rules' value, even
        where it takes nothing away."""
        colour_a, colour_t = getattr(shooter.sides, sa), getattr(target.sides, st)
        mods: list[Modifier] = []
        extra = shooter.abilities.attack_dice
        if order == "ranged":
            base = shooter.ready("blue")
            if extra:
                mods.append(Modifier("AL-5.3", extra, f"{possessive(shooter.id)} attack_dice ability"))
            side = getattr(options.side_penalty.ranged, colour_a)
            rules_side = getattr(RULES.side_penalty.ranged, colour_a)
            if side or side != rules_side:
                mods.append(Modifier("AL-5.3", -side, f"attacking from the {sa} side, which is {colour_a}"
                                                      + noted(-side, -rules_side, "{:+d}")))
            melee = options.melee_penalty
            if friends and (melee or melee != RULES.melee_penalty):
                mods.append(Modifier("AL-5.3", -melee, f"firing into melee ({target.id} is adjacent to "
                                                       f"{', '.join(friends)})"
                                                       + noted(-melee, -RULES.melee_penalty, "{:+d}")))
            each = options.hindrance_penalty
            if hindrances and (each or each != RULES.hindrance_penalty):
                mods.append(Modifier("AL-5.3", -hindrances * each,
                                     f"{hindrances} hindrance{'s' if hindrances != 1 else ''} on the line of sight"
                                     + (f", {-each:+d} each{noted(-each, -RULES.hindrance_penalty, '{:+d}')}"
                                        if each != RULES.hindrance_penalty else "") + " [AL-4.3]"))
        else:
            base = shooter.ready("red")
            if extra:
                mods.append(Modifier("AL-8.1", extra, f"{possessive(shooter.id)} attack_dice ability"))
            side = getattr(options.side_penalty.close, colour_a)
            rules_side = getattr(RULES.side_penalty.close, colour_a)
            if side or side != rules_side:
                mods.append(Modifier("AL-8.1", -side, f"attacking from the {sa} side, which is {colour_a}"
                                                      + noted(-side, -rules_side, "{:+d}")))
        attack = max(0, base + sum(m.delta for m in mods))
        defense = target.ready("white")
        if target.abilities.defense_dice:
            mods.append(Modifier("AL-5.4", target.abilities.defense_dice,
                                 f"{possessive(target.id)} defense_dice ability (defense dice)"))
            defense += target.abilities.defense_dice
        side = getattr(options.side_penalty.defense, colour_t)
        rules_side = getattr(RULES.side_penalty.defense, colour_t)
        if side or side != rules_side:
            mods.append(Modifier("AL-5.4", -side, f"the attacked {st} side is {colour_t} (defense dice)"
                                                  + noted(-side, -rules_side, "{:+d}")))
            defense -= side
        return attack, max(0, defense), mods

    def _choose(self, battle: Battle, shooter: Unit, target: Unit, order: str,
                wanted: Mapping[str, str | None]) -> Sides | list[Refusal]:
        """The sides and notches to use [AL-3.4]: the legal choice with the most attack dice net of the
        defender's, then the shortest distance; on a tie the most attack dice, then the attacker's sides in
        the order front, right, back, left, then the target's, and the other side pairs that tied [AL-3.5].
        Line of sight is looked at only where it could still win or tie."""
        bs, bt = base_of(shooter), base_of(target)
        sides_a = [wanted["from_side"]] if wanted["from_side"] else list(SIDE_NAMES)
        sides_t = [wanted["to_side"]] if wanted["to_side"] else list(SIDE_NAMES)
        if order == "close":
            touching = touching_sides(shooter, target)
            if not touching:
                return [Refusal("AL-8.1", f"{target.id} is not adjacent to {shooter.id}: close combat needs contact")]
            pairs = [p for p in touching if p[0] in sides_a and p[1] in sides_t]
            if not pairs:
                return [Refusal("AL-8.1", "those sides do not touch: close combat uses the touching sides")]
            touching_ranked: list[tuple[Any, Sides]] = []
            for sa, st in pairs:
                a, d, mods = self._dice(shooter, target, order, sa, st, 0, battle.options)
                mid_a = bs.sides[sa].notches[len(bs.sides[sa].notches) // 2]
                mid_t = bt.sides[st].notches[len(bt.sides[st].notches) // 2]
                touching_rank = (-(a - d), Fraction(0), -a, SIDE_NAMES.index(sa), SIDE_NAMES.index(st))
                touching_ranked.append((touching_rank, Sides(a, d, mods, sa, st, mid_a, mid_t, Fraction(0), None)))
            return _with_ties(touching_ranked)
        reach_steps = battle.options.range_steps  # [AL-3.1]
        said = steps(reach_steps) + noted(reach_steps, RULES.range_steps, steps)
        if (bs.polygon.is_clearly_apart(bt.polygon, float(reach_steps))
                or bs.polygon.box.gap2(bt.polygon.box) > reach_steps * reach_steps):
            return [Refusal("AL-3.1", f"{target.id} is out of range: the bases are already more than {said} steps "
                                      "apart")]
        friends = self._melee_friends(battle, shooter, target)
        in_range = facing = False
        nearest = None
        candidates = []
        reach = Reach(bs, bt, reach_steps)  # squared distances in integers, ``reach.scale`` times the true ones
        for sa in sides_a:
            side_a = bs.sides[sa]
            for st in sides_t:
                side_t = bt.sides[st]
                # a hindrance only takes dice away (its penalty is at least 0): no hindrance is the upper bound
                a_ub, d, _ = self._dice(shooter, target, order, sa, st, 0, battle.options, friends)
                for ka, kt, d2 in reach.pairs(sa, st):
                    nearest = d2 if nearest is None or d2 < nearest else nearest
                    if d2 > reach.limit:
                        continue
                    in_range = True
                    if not reach.facing(sa, st, ka, kt):
                        continue
                    facing = True
                    # the rank with a clear line: no choice through these notches can rank better
                    bound = (-(a_ub - d), d2, -a_ub, SIDE_NAMES.index(sa), SIDE_NAMES.index(st), ka, kt)
                    candidates.append((bound, sa, st, side_a.notches[ka], side_t.notches[kt], d2))
        if not in_range:
            return [Refusal("AL-3.1", f"{target.id} is out of range: its nearest notch is "
                                      f"{float(Fraction(nearest or 0, reach.scale)) ** 0.5:.2f} steps away "
                                      f"({said} steps at most)")]
        if not facing:
            return [Refusal("AL-3.3", "no side in range faces the other unit: a side can only be used toward "
                                      "what lies in front of it")]
        candidates.sort(key=lambda c: c[0])
        others = [u for u in battle.units if u.id not in (shooter.id, target.id)]
        pieces = sight_pieces(others, battle.terrain, (bs, bt))
        best: Any = None
        ranked: dict[tuple[str, str], tuple[Any, Sides]] = {}  # the best rank of each side pair
        blockers: set[str] = set()
        for bound, sa, st, na, nt, d2 in candidates:
            if best is not None and bound[:2] > best[:2]:
                break  # no remaining choice can win or tie on net dice and distance, even with a clear line
            known = ranked.get((sa, st))
            if known is not None and known[0][:3] <= bound[:3]:
                continue  # the same sides through other notches cannot do better
            seen = sight(Segment(na, nt), others, battle.terrain, battle.options.touching_hinders, pieces)
            if seen.blocked_by:
                blockers.update(seen.blocked_by)
                continue
            a, d, mods = self._dice(shooter, target, order, sa, st, len(seen.hindered_by), battle.options, friends)
            rank = (-(a - d), *bound[1:2], -a, *bound[3:])
            if known is None or rank < known[0]:
                ranked[(sa, st)] = (rank, Sides(a, d, mods, sa, st, na, nt, Fraction(d2, reach.scale), seen))
            if best is None or rank < best:
                best = rank
        if not ranked:
            return [Refusal("AL-4.2", f"every line of sight to {target.id} in range is blocked "
                                      f"({', '.join(sorted(blockers))})")]
        return _with_ties(list(ranked.values()))

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


def _lineup_house_rules(options: Options) -> list[LogLine]:
    """Where a house rule changes the lineup, a note naming it beside the rules' value: the critical hit
    [AL-6.2] and the phantom die [AL-6.4]. None under the rules as written."""
    notes = []
    crit, rules = options.critical, RULES.critical
    if crit != rules:
        when = "for each full set of" if options.crit_per_three_sixes else "on"
        more = "" if options.crit_per_three_sixes else " or more"
        notes.append(LogLine("AL-6.2", f"a critical hit {when} {crit.sixes}{noted(crit.sixes, rules.sixes)}{more} "
                                       f"6s on the first roll, scoring {counted(crit.hits, 'extra hit')}"
                                       + noted(crit.hits, rules.hits)))
    if options.phantom != RULES.phantom:
        notes.append(LogLine("AL-6.4", f"a side that has run out of dice compares phantom dice of {options.phantom}"
                                       + noted(options.phantom, RULES.phantom)))
    return notes


def _with_ties(ranked: Sequence[tuple[Any, Sides]]) -> Sides:
    """The best-ranked choice, carrying the other side pairs that tie with it on net dice and distance, in
    the side order [AL-3.5]."""
    best_rank, best = min(ranked, key=lambda r: r[0])
    tied = sorted((r for r in ranked if r[0][:2] == best_rank[:2] and r[1] is not best), key=lambda r: r[0][3:5])
    return best._replace(tied=tuple((c.from_side, c.to_side) for _, c in tied))
