"""The bounds each game gives of a duel's work before any of it is done (``bounds`` in each duel module, read by
``rangefire.analysis.duel_work.estimate_duel``), for Bushido, Arcane Legions and swerve.

- A bound is a bound: over many small duels of each game, drawn at random with what the rules let change (wound
  boxes and Ammo [BU-4.1, BU-7.3], the turn's marks and states [BU-8.1, BU-8.2], figures of several hit points in
  casualty order [AL-7.2], order points with or without a refill [AL-5.1, AL-9.2], a push [AL-5.2], damage
  counters [SW-5.3], swerved cards [SW-8.1], tactics in hand [SW-1.5], decks of unknown order [SW-4.2, SW-6.1]),
  the states the chain really reaches are never more than the estimate, in each order of fire, and no attack in
  any of those states leaves more battles than the game's second number. The chain is built with the estimate
  as its limit, so a bound too small fails as the chain passes it.
- Nothing answered is refused: every duel of the examples answers as it did.
- A duel beyond the bound is refused before any attack is checked, naming the Monte Carlo; the command says
  ``--samples N`` and exits 2 (too large), as for Dress on the Colors.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rangefire.analysis.duel import check_duel, duel, model_of, setting
from rangefire.analysis.duel_chain import PATTERNS, build
from rangefire.analysis.duel_work import MAX_NODES, DuelTooLarge, estimate_duel
from rangefire.core import Attack
from rangefire.rulesets import battle_from_mapping, load_battle
from tests.commands import run

ROOT = Path(__file__).resolve().parent.parent
FIRSTS = tuple(PATTERNS)
SMALL = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def bounded(ruleset: Any, battle: Any, a: str, b: str) -> None:
    """In each order of fire: the chain, built with the estimate as its limit, reaches no more states; and every
    attack, in every state reached, leaves no more battles than the game's second number."""
    check_duel(ruleset, battle, a, b, None)
    played = setting(ruleset, battle, a, b, None)
    for first in FIRSTS:
        start = ruleset.duel_begin(played, a if PATTERNS[first][0] == "a" else b)  # where the chain begins
        most = {(x, y): ruleset.duel_bounds(start, Attack(x, y))[1] for x, y in ((a, b), (b, a))}
        work = estimate_duel(ruleset, played, a, b, first, max_nodes=10**9)
        assert work is not None
        model = model_of(ruleset, played)
        graph = build(model, a, b, first, max_nodes=work.nodes)  # WorkLimit past the bound
        assert graph.size <= work.nodes
        for state in model.battles.values():
            if not (ruleset.duel_left(state, a) and ruleset.duel_left(state, b)):
                continue  # an end: no attack is made from it
            for (x, y), results in most.items():
                assert len(ruleset.exchanges(state, Attack(x, y))) <= results, (first, x, y)


# -- Bushido --------------------------------------------------------------------------------------------------
def bu_model(uid: str, side: str, at: tuple[int, int], draw: Any) -> dict[str, Any]:
    boxes = draw(st.integers(1, 4))
    weapon = draw(st.sampled_from([None, {"name": "bow", "short": 4, "medium": 8, "long": 12}]))
    if weapon is not None:
        ammo = draw(st.sampled_from([None, 0, 1, 2, 3]))
        weapon = {**weapon, **({} if ammo is None else {"ammo": ammo}),
                  "wound_modifier": draw(st.integers(-1, 3))}
    out: dict[str, Any] = {"id": uid, "side": side, "position": list(at), "base": draw(st.sampled_from([30, 40, 50])),
                           "wounds": {"boxes": boxes, "marked": draw(st.integers(0, boxes - 1))},
                           "states": draw(st.lists(st.sampled_from(["aimed", "ran", "moved", "prone", "surprised"]),
                                                   unique=True, max_size=2)),
                           "attacked": draw(st.booleans())}
    if weapon is not None:
        out["weapon"] = weapon
    rcp = draw(st.sampled_from([None, 1, 2]))
    if rcp is not None:
        out["rcp"] = rcp
    return out


@st.composite
def bushido_duels(draw: Any) -> Any:
    gap = draw(st.sampled_from([4, 7, 11, 16]))  # short, medium, long, beyond long [BU-5.1, BU-3.4]
    units = [bu_model("A", "east", (0, 0), draw), bu_model("B", "west", (0, gap), draw)]
    third = draw(st.sampled_from([None, "east", "north"]))
    if third is not None:  # a third model, far off, whose states the turn's end clears [BU-8.2]; where it is
        # named first, its side comes first in the order of the sides [BU-8.4]
        units.insert(draw(st.integers(0, 2)), bu_model("C", third, (40, 0), draw))
    data: dict[str, Any] = {"ruleset": "bushido", "units": units,
                            "options": {"one_attack_per_turn": draw(st.booleans())}}
    active = draw(st.sampled_from([None, "east", "west"]))
    if active is not None:
        data["active_side"] = active
    if draw(st.booleans()):
        data["turn"] = {"number": 3}
    return battle_from_mapping(data)


@SMALL
@given(bushido_duels())
def test_bushido_bounds_hold_what_the_chain_reaches_bu_4_1_bu_7_3_bu_8_2(drawn):
    ruleset, battle = drawn
    bounded(ruleset, battle, "A", "B")


# -- Arcane Legions -------------------------------------------------------------------------------------------
def al_unit(uid: str, side: str, y: float, facing: int, draw: Any) -> dict[str, Any]:
    count = draw(st.integers(1, 3))
    slots = [{"icons": draw(st.lists(st.sampled_from(["blue", "white", "red"]), min_size=1, max_size=2)),
              "hp": draw(st.integers(1, 2))} for _ in range(count)]
    out: dict[str, Any] = {"id": uid, "side": side, "base": draw(st.sampled_from(["sortie", "formation"])),
                           "position": [0, y], "facing": facing,
                           "sides": {"front": "blue", "right": "grey", "back": "grey", "left": "red"},
                           "slots": slots, "ranged_orders_this_turn": draw(st.integers(0, 1)),
                           "pushed": draw(st.booleans()),
                           "abilities": {"attack_dice": draw(st.integers(-1, 1)),
                                         "order_cost": draw(st.integers(-1, 1))}}
    if draw(st.booleans()):  # a casualty order of its own, perhaps naming only some slots [AL-7.2]
        out["casualty_order"] = draw(st.lists(st.integers(0, count - 1), min_size=1, max_size=count, unique=True))
    return out


def al_player(draw: Any) -> dict[str, Any]:
    out = {"order_points": draw(st.integers(0, 5))}
    if draw(st.booleans()):
        out["order_points_per_turn"] = draw(st.integers(0, 2))
    return out


@st.composite
def arcane_duels(draw: Any) -> Any:
    gap = draw(st.sampled_from([3, 5, 9]))  # in range notch to notch, or not [AL-3.1]
    units = [al_unit("A", "legion", 0, 0, draw), al_unit("B", "horde", gap, 180, draw)]
    players = {"legion": al_player(draw), "horde": al_player(draw)}
    if draw(st.booleans()):  # a third side far off, whose points the passing turn refills [AL-9.2], perhaps
        # first in the order of the sides [AL-9.3]
        units.insert(draw(st.integers(0, 2)), al_unit("C", "elves", 40, 0, draw))
        players["elves"] = al_player(draw)
    data: dict[str, Any] = {"ruleset": "arcane-legions", "players": players, "units": units,
                            "options": {"crit_per_three_sixes": draw(st.booleans()),
                                        "critical": {"sixes": draw(st.integers(1, 3)), "hits": 1}}}
    side = draw(st.sampled_from([None, "legion", "horde"]))
    if side is not None:
        data["turn"] = {"number": 1, "side": side}
    return battle_from_mapping(data)


@SMALL
@given(arcane_duels())
def test_arcane_legions_bounds_hold_what_the_chain_reaches_al_5_1_al_7_2_al_9_2(drawn):
    ruleset, battle = drawn
    bounded(ruleset, battle, "A", "B")


# -- swerve ---------------------------------------------------------------------------------------------------
def sw_card(cid: str, owner: str, draw: Any) -> dict[str, Any]:
    toughness = draw(st.integers(1, 3))
    out: dict[str, Any] = {"id": cid, "owner": owner, "type": draw(st.sampled_from(["unit", "vehicle", "weapon"])),
                           "speed": draw(st.sampled_from([10, 20])), "toughness": toughness,
                           "counters": draw(st.integers(0, toughness - 1)), "swerved": draw(st.booleans()),
                           "mission": "canyon"}
    if draw(st.integers(0, 3)):
        out["ranged"] = {"accuracy": draw(st.sampled_from([20, 30])), "damage": draw(st.integers(1, 2)),
                         "cost": draw(st.sampled_from(["swerve-self", "none"])),
                         "targets": draw(st.sampled_from([["unit", "vehicle"], ["unit"]]))}
    return out


def sw_extras(owner: str, draw: Any) -> tuple[list[dict[str, Any]], list[str]]:
    """Perhaps an ability in play and tactics in hand, of timings usable in ranged combat or not [SW-3.5]."""
    cards, hand = [], []
    if draw(st.booleans()):
        cards.append({"id": f"{owner}-spotter", "owner": owner, "type": "unit", "speed": 5, "mission": "canyon",
                      "swerved": draw(st.booleans()), "timing": draw(st.sampled_from(["ranged-combat", "main"])),
                      "cost": draw(st.sampled_from(["swerve-self", "none"])),
                      "effect": {"accuracy": 10, "speed": 5}})
    for i in range(draw(st.integers(0, 2))):
        cards.append({"id": f"{owner}-tactic-{i}", "owner": owner, "type": "tactic",
                      "timing": draw(st.sampled_from(["combat", "close-combat"])),
                      "effect": {"accuracy": 5, "speed": 5, "damage": draw(st.integers(0, 1))}})
        hand.append(cards[-1]["id"])
    return cards, hand


def sw_player(draw: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"deck": draw(st.lists(st.sampled_from([0, 5, 10, 20]), max_size=4)),
                           "deck_order": draw(st.sampled_from(["known", "unknown"]))}
    if out["deck_order"] == "unknown" and out["deck"] and draw(st.booleans()):
        out["top_revealed"] = out["deck"][0]
    return out


@st.composite
def swerve_duels(draw: Any) -> Any:
    cards = [sw_card("a", "jason", draw), sw_card("b", "tyler", draw)]
    hands = {}
    for owner in ("jason", "tyler"):
        extra, hand = sw_extras(owner, draw)
        cards += extra
        hands[owner] = hand
    players = {"jason": sw_player(draw), "tyler": sw_player(draw)}
    if draw(st.booleans()):  # a third player, perhaps first, whose swerved card its turn unswerves [SW-8.1]
        order = draw(st.permutations(["jason", "tyler", "zoe"]))
        players = {name: players.get(name) or sw_player(draw) for name in order}
        cards.append({**sw_card("z", "zoe", draw), "swerved": True})
    data: dict[str, Any] = {"ruleset": "swerve", "players": players, "cards": cards, "hands": hands}
    side = draw(st.sampled_from([None, *sorted(players)]))
    if side is not None:
        data["turn"] = {"number": 1, "side": side}
    return battle_from_mapping(data)


@SMALL
@given(swerve_duels())
def test_swerve_bounds_hold_what_the_chain_reaches_sw_4_2_sw_5_3_sw_8_1(drawn):
    ruleset, battle = drawn
    bounded(ruleset, battle, "a", "b")


# -- a grid of duels that reach much of their bound --------------------------------------------------------------
BOW = {"name": "bow", "short": 6, "medium": 12, "long": 18}


def _bu(ammo: int | None, boxes: int) -> dict[str, Any]:
    weapon = BOW if ammo is None else {**BOW, "ammo": ammo}
    return {"ruleset": "bushido", "units": [
        {"id": "A", "side": "east", "position": [0, 0], "base": 40, "wounds": {"boxes": boxes}, "rcp": 3,
         "weapon": weapon},
        {"id": "B", "side": "west", "position": [0, 3], "base": 40, "wounds": {"boxes": boxes}, "rcp": 3,
         "weapon": weapon}]}


def _al(points: int, figures: int, hp: int, order: list[int] | None) -> dict[str, Any]:
    def unit(uid: str, side: str, y: int) -> dict[str, Any]:
        out: dict[str, Any] = {"id": uid, "side": side, "base": "sortie", "position": [0, y], "facing": 180 * (y > 0),
                               "sides": {"front": "blue", "right": "grey", "back": "grey", "left": "red"},
                               "slots": [{"icons": ["blue"], "hp": hp}] * figures}
        return out if order is None else {**out, "casualty_order": order}

    return {"ruleset": "arcane-legions", "players": {"l": {"order_points": points}, "h": {"order_points": points}},
            "units": [unit("A", "l", 0), unit("B", "h", 3)]}


def _sw(toughness: int, deck: list[int], tactics: int, ability: bool) -> dict[str, Any]:
    cards: list[dict[str, Any]] = [
        {"id": cid, "owner": owner, "type": "vehicle", "speed": 20, "toughness": toughness, "mission": "m",
         "ranged": {"accuracy": 25, "damage": 1}} for cid, owner in (("A", "p"), ("B", "q"))]
    hands: dict[str, list[str]] = {"p": [], "q": []}
    for owner in ("p", "q"):
        for i in range(tactics):
            cards.append({"id": f"{owner}{i}", "owner": owner, "type": "tactic", "timing": "combat",
                          "effect": {"accuracy": 5 + i, "speed": 5}})
            hands[owner].append(f"{owner}{i}")
        if ability:
            cards.append({"id": f"{owner}-spotter", "owner": owner, "type": "unit", "speed": 5, "mission": "m",
                          "timing": "ranged-combat", "effect": {"accuracy": 10, "speed": 10}})
    return {"ruleset": "swerve", "players": {p: {"deck": deck, "deck_order": "unknown"} for p in ("p", "q")},
            "cards": cards, "hands": hands}


GRID = [*(_bu(ammo, boxes) for ammo in (None, 1, 3) for boxes in (2, 5)),
        *(_al(points, figures, hp, order) for points in (2, 4) for figures, hp in ((2, 1), (3, 2))
          for order in (None, [0])),
        *(_sw(toughness, deck, tactics, ability) for toughness in (2, 3) for deck in ([0, 10], [0, 5, 10, 20])
          for tactics, ability in ((0, False), (1, True)))]


@pytest.mark.parametrize("data", GRID, ids=lambda d: d["ruleset"])
def test_duels_that_reach_much_of_their_bound_are_bounded(data):
    """Two units that can hurt each other at once, with Ammo [BU-4.1], order points and hit points [AL-5.1,
    AL-7.2], decks of unknown order, tactics and abilities [SW-1.5, SW-6.1]: the chain comes nearest its bound."""
    ruleset, battle = battle_from_mapping(data)
    bounded(ruleset, battle, "A", "B")


# -- nothing answered is refused ------------------------------------------------------------------------------
EXAMPLES = ("temple.yaml", "mist-bridge.yaml", "ford.yaml", "sawblade.yaml", "ambush.yaml")


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_duel_of_the_examples_is_bounded_and_answered(name):
    """Every pair of enemies of each example (Bushido, Arcane Legions, swerve): the bound holds what the chain
    reaches and is within the limit, so that nothing answered before is refused now."""
    ruleset, battle = load_battle(ROOT / "examples" / name)
    ids = list(ruleset.unit_ids(battle))
    for a, b in itertools.combinations(ids, 2):
        if ruleset.side_of(battle, a) == ruleset.side_of(battle, b):
            continue
        bounded(ruleset, battle, a, b)
        for first in FIRSTS:
            work = estimate_duel(ruleset, battle, a, b, first)
            assert work is not None and work.fits, (name, a, b, first, work)


# -- beyond the bound, refused before the work -----------------------------------------------------------------
BIG = {
    # two models of 60 wound boxes, one with a bow of 60 Ammo markers: 60 x 61 states of one, 60 of the other
    "bushido": ({"ruleset": "bushido", "units": [
        {"id": "A", "side": "east", "position": [0, 0], "base": 40, "wounds": {"boxes": 60}, "rcp": 3,
         "weapon": {"name": "bow", "short": 6, "medium": 12, "long": 18, "ammo": 60}},
        {"id": "B", "side": "west", "position": [0, 8], "base": 40, "wounds": {"boxes": 60}, "rcp": 3,
         "weapon": {"name": "bow", "short": 6, "medium": 12, "long": 18}}]}, "A", "B"),
    # two formations of 12 figures of 3 hit points, 40 order points a side at 2 an order
    "arcane-legions": ({"ruleset": "arcane-legions",
                        "players": {"legion": {"order_points": 40}, "horde": {"order_points": 40}}, "units": [
                            {"id": "A", "side": "legion", "base": "formation", "position": [0, 0], "facing": 0,
                             "sides": {"front": "blue", "right": "grey", "back": "grey", "left": "red"},
                             "slots": [{"icons": ["blue"], "hp": 3}] * 12},
                            {"id": "B", "side": "horde", "base": "formation", "position": [0, 4], "facing": 180,
                             "sides": {"front": "blue", "right": "grey", "back": "grey", "left": "red"},
                             "slots": [{"icons": ["blue"], "hp": 3}] * 12}]}, "A", "B"),
    # two vehicles of toughness 40, each with a deck of 10 bonuses in unknown order
    "swerve": ({"ruleset": "swerve", "players": {
        "jason": {"deck": list(range(0, 50, 5)), "deck_order": "unknown"},
        "tyler": {"deck": list(range(0, 50, 5)), "deck_order": "unknown"}}, "cards": [
        {"id": "A", "owner": "jason", "type": "vehicle", "speed": 20, "toughness": 40, "mission": "canyon",
         "ranged": {"accuracy": 30, "damage": 1}},
        {"id": "B", "owner": "tyler", "type": "vehicle", "speed": 20, "toughness": 40, "mission": "canyon",
         "ranged": {"accuracy": 30, "damage": 1}}]}, "A", "B"),
}


@pytest.fixture
def no_attack(monkeypatch):
    """Every exchange the duel asks of a game, recorded (none may be asked before a refusal)."""
    from rangefire.core.ruleset import Ruleset

    asked: list[Attack] = []
    exchanges = Ruleset.exchanges
    monkeypatch.setattr(Ruleset, "exchanges", lambda self, battle, attack: asked.append(attack)
                        or exchanges(self, battle, attack))
    return asked


@pytest.mark.parametrize("game", BIG)
def test_a_duel_beyond_the_bound_is_refused_before_any_attack(game, no_attack):
    data, a, b = BIG[game]
    ruleset, battle = battle_from_mapping(data)
    work = estimate_duel(ruleset, battle, a, b)
    assert work is not None and work.nodes > MAX_NODES
    with pytest.raises(DuelTooLarge, match=rf"could reach some {work.nodes:,} distinct states of the two units, "
                                           r"more than the 30,000 worked out exactly: too large to answer exactly"):
        duel(ruleset, battle, a, b)
    assert no_attack == []


def test_the_sixty_box_models_are_bounded_as_their_boxes_and_ammo_say_bu_4_1_bu_7_3():
    """Independently of the code: A's 60 boxes and one state more for the first turn, times its 61 Ammo counts
    (60 down to 0: B spends none, so every one of them); B's 60 boxes and one more; two half-turns."""
    data, a, b = BIG["bushido"]
    ruleset, battle = battle_from_mapping(data)
    work = estimate_duel(ruleset, battle, a, b)
    assert work is not None and work.nodes == (60 + 1) * 61 * (60 + 1) * 2


@pytest.mark.parametrize("game", BIG)
def test_the_command_names_the_monte_carlo_and_exits_2_as_too_large(game, tmp_path):
    """As Dress on the Colors' duel beyond the bound: ``too_large``, exit 2 (docs/cli.md), nothing on stdout."""
    import json

    data, a, b = BIG[game]
    path = tmp_path / "big.json"
    path.write_text(json.dumps(data))
    out = run("duel", str(path), a, b, ok=2, columns=400)
    assert "distinct states of the two units" in out.stderr and "--samples N for a Monte Carlo alone" in out.stderr
    assert out.stdout == ""


def _trading_tactic(data: dict[str, Any]) -> dict[str, Any]:
    """A tactic of p's trading damage for accuracy, below 0 in all: a combat won with it deals none [SW-5.1]."""
    data["cards"].append({"id": "p-trade", "owner": "p", "type": "tactic", "timing": "combat",
                          "effect": {"accuracy": 10, "speed": 0, "damage": -2}})
    data["hands"]["p"].append("p-trade")
    return data


ANSWERED = [_bu(40, 6), _al(30, 3, 2, None), _trading_tactic(_sw(2, [0, 10], 0, False))]


@pytest.mark.parametrize("data", ANSWERED, ids=["bu-ammo-40", "al-points-30", "sw-minus"])
def test_a_duel_whose_units_spend_together_is_answered_not_refused_bu_4_1_al_5_1_sw_5_1(data):
    """Two models with plenty of Ammo (two units with plenty of order points) spend it together, an attack each a
    turn [BU-4.1, AL-5.1]: the duel's count takes the pairs that can be, not every pair, and a duel the chain
    answers within its states is answered; a tactic whose damage is below 0 deals none [SW-5.1], so that counters
    are bounded as ever. Each estimate still holds what the chain reaches."""
    ruleset, battle = battle_from_mapping(data)
    a, b = ("A", "B") if data["ruleset"] != "arcane-legions" else (data["units"][0]["id"], data["units"][1]["id"])
    work = estimate_duel(ruleset, setting(ruleset, battle, a, b, None), a, b)
    assert work is not None and work.fits
    bounded(ruleset, battle, a, b)
    ended = duel(ruleset, battle, a, b)
    assert ended.states <= work.nodes and sum(ended.winner.values()) == 1
