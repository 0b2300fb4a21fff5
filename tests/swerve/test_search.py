"""The best-line search (SW-6.2) against exhaustive enumeration, and sampled reveals against exact odds
(SW-6.1, SW-4.1)."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

from rangefire.core import Attack, SeededSource
from rangefire.rulesets import battle_from_mapping, find_ruleset

SW = find_ruleset("swerve")


# -- an oracle written from the rules alone (../shared/rules/swerve.md), sharing nothing with the engine -----------
USABLE = ("combat", "ranged-combat")  # SW-3.5


def rules_lines(data: dict[str, Any], attacker: str, target: str) -> dict[tuple[str, ...], tuple[int, int, int]]:
    """Every line of play of stage 1, enumerated from the rules on the raw scenario, each with its final totals
    (accuracy, speed, damage)."""
    cards = {c["id"]: c for c in data["cards"]}
    hands: dict[str, list[str]] = data.get("hands", {})
    held = {cid for hand in hands.values() for cid in hand}
    launcher, tgt = cards[attacker], cards[target]
    owners = {"attacker": launcher["owner"], "defender": tgt["owner"]}
    # SW-2.5: a launcher paying "swerve this" is swerved from the start; SW-1.1: cards swerved already
    swerved0 = frozenset(c["id"] for c in data["cards"] if c.get("swerved"))
    if launcher["ranged"].get("cost", "swerve-self") == "swerve-self":
        swerved0 |= {attacker}

    def in_play(card: dict[str, Any]) -> bool:  # SW-1.5
        return card["id"] not in held and card.get("mission") is not None

    def moves(role: str, swerved: frozenset[str], used: frozenset[str]) -> list[tuple[str, str | None]]:
        out: list[tuple[str, str | None]] = [("pass", None)]
        if role == "defender" and target not in swerved:  # SW-3.4
            out.append(("swerve-target", None))
        for cid in hands.get(owners[role], []):  # SW-1.5, SW-3.5: tactics from the hand, once
            if cards[cid]["type"] == "tactic" and cid not in used and cards[cid].get("timing") in USABLE:
                out.append(("play", cid))
        for c in data["cards"]:  # SW-1.6: abilities of cards in play, paid unless `cost: none`
            if (c["owner"] == owners[role] and c["type"] != "tactic" and c.get("effect") is not None
                    and in_play(c) and c.get("timing") in USABLE and c["id"] not in used
                    and (c.get("cost") == "none" or c["id"] not in swerved)):
                out.append(("use", c["id"]))
        return out

    out: dict[tuple[str, ...], tuple[int, int, int]] = {}

    def walk(line: tuple[str, ...], totals: tuple[int, int, int], role: str, passes: int,
             swerved: frozenset[str], used: frozenset[str]) -> None:
        if passes == 2:  # SW-3.2
            out[line] = totals
            return
        other = "defender" if role == "attacker" else "attacker"
        for kind, cid in moves(role, swerved, used):
            name = f"{role}:{kind}" + (f":{cid}" if cid else "")
            acc, speed, dmg = totals
            if kind == "pass":
                walk((*line, name), totals, other, passes + 1, swerved, used)
                continue
            if kind == "swerve-target":
                walk((*line, name), (acc, speed + tgt.get("speed", 0), dmg), other, 0, swerved | {target}, used)
                continue
            assert cid is not None
            effect = cards[cid]["effect"]
            if role == "attacker":  # SW-1.3: the acting side's totals only
                acc, dmg = acc + effect.get("accuracy", 0), dmg + effect.get("damage", 0)
            else:
                speed += effect.get("speed", 0)
            pays = kind == "use" and cards[cid].get("cost") != "none"
            walk((*line, name), (acc, speed, dmg), other, 0, swerved | ({cid} if pays else set()), used | {cid})

    start = (launcher["ranged"]["accuracy"], tgt.get("speed", 0), launcher["ranged"]["damage"])  # SW-2.3, SW-2.4
    walk((), start, "attacker", 0, swerved0, frozenset())
    return out


def rules_bonuses(data: dict[str, Any], player: str) -> list[int]:
    """The combat bonuses the reveal may show, one entry per card (SW-4.1, SW-4.2, SW-6.1)."""
    deck = data["players"][player]
    if deck.get("top_revealed") is not None:
        return [deck["top_revealed"]]
    if not deck.get("deck"):
        return [0]
    return list(deck["deck"]) if deck.get("deck_order", "known") == "unknown" else [deck["deck"][0]]


def rules_odds(data: dict[str, Any], attacker: str, target: str) -> tuple[
        tuple[Fraction, Fraction], tuple[str, ...], dict[tuple[str, ...], Fraction]]:
    """Minimax over the tree of :func:`rules_lines`: (P(attacker wins), mean damage) under best play, the best
    line (the first of equally good actions, pass first) and each line's chance of winning."""
    lines = rules_lines(data, attacker, target)
    ties = data.get("options", {}).get("attacker_wins_ties", False)
    bonuses = rules_bonuses(data, next(c["owner"] for c in data["cards"] if c["id"] == attacker))

    def leaf(totals: tuple[int, int, int]) -> tuple[Fraction, Fraction]:
        acc, speed, dmg = totals
        wins = sum(acc + b > speed or (ties and acc + b == speed) for b in bonuses)  # SW-4.3
        p = Fraction(wins, len(bonuses))
        return p, p * max(0, dmg)  # SW-5.1, SW-5.2

    children: dict[tuple[str, ...], list[str]] = {}
    for line in lines:  # insertion order is move order: the first child is the first move tried
        for i in range(len(line)):
            kids = children.setdefault(line[:i], [])
            if line[i] not in kids:
                kids.append(line[i])

    def best(prefix: tuple[str, ...]) -> tuple[tuple[Fraction, Fraction], tuple[str, ...]]:
        if prefix in lines:
            return leaf(lines[prefix]), prefix
        mover = children[prefix][0].split(":")[0]
        pick: tuple[tuple[Fraction, Fraction], tuple[str, ...]] | None = None
        for move in children[prefix]:
            r = best((*prefix, move))
            if pick is None or (r[0] > pick[0] if mover == "attacker" else r[0] < pick[0]):
                pick = r
        assert pick is not None
        return pick

    score, line = best(())
    return score, line, {k: leaf(v)[0] for k, v in lines.items()}


def agrees_with_the_rules(data: dict[str, Any], attacker: str, target: str) -> None:
    """The engine's odds, best line and listed lines of play equal the oracle's."""
    battle = battle_from_mapping(data)[1]
    odds = SW.odds(SW.plan(battle, Attack(attacker, target)))
    score, line, by_line = rules_odds(data, attacker, target)
    assert odds.events["attacker_wins"] == score[0]
    assert odds.outcomes["damage"].mean() == score[1]
    assert odds.lines.best_line == line
    if not odds.lines.cut:
        listed = {x.actions: x.attacker_wins for x in odds.lines.lines}
        assert listed == by_line


def build_data(deck: list[int], tactics: list[tuple[str, str, str, int]], ties: bool, speed: int) -> dict[str, Any]:
    cards: list[dict[str, Any]] = [
        {"id": "gun", "owner": "a", "type": "weapon", "mission": "m", "ranged": {"accuracy": 20, "damage": 2}},
        {"id": "car", "owner": "d", "type": "vehicle", "speed": speed, "toughness": 3, "mission": "m"}]
    hands: dict[str, list[str]] = {"a": [], "d": []}
    for i, (owner, timing, stat, n) in enumerate(tactics):
        cards.append({"id": f"t{i}", "owner": owner, "type": "tactic", "timing": timing, "effect": {stat: n}})
        hands[owner].append(f"t{i}")
    return {"ruleset": "swerve", "options": {"attacker_wins_ties": ties},
            "players": {"a": {"deck": deck, "deck_order": "unknown"}, "d": {"deck": []}},
            "cards": cards, "hands": hands}


def build(deck: list[int], tactics: list[tuple[str, str, str, int]], ties: bool, speed: int) -> Any:
    return battle_from_mapping(build_data(deck, tactics, ties, speed))[1]


tactic = st.tuples(st.sampled_from(["a", "d"]), st.sampled_from(["combat", "ranged-combat", "close-combat"]),
                   st.sampled_from(["accuracy", "speed", "damage"]), st.integers(-5, 15))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 20), max_size=6), st.lists(tactic, max_size=4), st.booleans(), st.integers(5, 30))
def test_best_line_equals_exhaustive_minimax(deck, tactics, ties, speed):
    """SW-6.2: the memoised search and the oracle written from the rules agree on the value, the line itself and
    every line of play listed."""
    agrees_with_the_rules(build_data(deck, tactics, ties, speed), "gun", "car")


#: Where a card with an ability or a tactic lies: in its owner's hand, in play at a mission, or neither [SW-1.5].
PLACES = ("hand", "play", "nowhere")
card_spec = st.tuples(st.sampled_from(["a", "d"]), st.sampled_from(["tactic", "unit", "vehicle"]),
                      st.sampled_from(PLACES), st.sampled_from(["combat", "ranged-combat", "close-combat", "main"]),
                      st.sampled_from(["accuracy", "speed", "damage"]), st.integers(-5, 15),
                      st.sampled_from(["swerve-self", "none"]), st.booleans())


@st.composite
def positions(draw: st.DrawFn) -> dict[str, Any]:
    """A combat whose launcher and target may carry abilities of their own (SW-2.5), with other cards in hands,
    in play or nowhere (SW-1.5), abilities paid or free and cards swerved already (SW-1.6)."""
    launcher_cost = draw(st.sampled_from(["swerve-self", "none"]))
    gun: dict[str, Any] = {"id": "gun", "owner": "a", "type": "weapon", "mission": "m",
                           "ranged": {"accuracy": draw(st.integers(0, 30)), "damage": draw(st.integers(0, 3)),
                                      "cost": launcher_cost},
                           "swerved": launcher_cost == "none" and draw(st.booleans())}
    car: dict[str, Any] = {"id": "car", "owner": "d", "type": draw(st.sampled_from(["unit", "vehicle"])),
                           "speed": draw(st.integers(0, 30)), "mission": "m", "swerved": draw(st.booleans())}
    for card in (gun, car):
        if draw(st.booleans()):  # an ability of its own
            card.update(timing=draw(st.sampled_from(["combat", "ranged-combat", "main"])),
                        effect={draw(st.sampled_from(["accuracy", "speed", "damage"])): draw(st.integers(-5, 15))},
                        cost=draw(st.sampled_from(["swerve-self", "none"])))
    cards, hands = [gun, car], {"a": [], "d": []}
    for i, (owner, kind, place, timing, stat, n, cost, swerved) in enumerate(draw(st.lists(card_spec, max_size=5))):
        card = {"id": f"c{i}", "owner": owner, "type": kind, "timing": timing, "effect": {stat: n}}
        if kind != "tactic":
            card.update(cost=cost, swerved=swerved)
        if place == "hand":
            hands[owner].append(card["id"])
        elif place == "play":
            card["mission"] = "m"
        cards.append(card)
    order = draw(st.sampled_from(["known", "unknown"]))
    deck = draw(st.lists(st.integers(0, 20), max_size=5))
    player: dict[str, Any] = {"deck": deck, "deck_order": order}
    if order == "unknown" and deck and draw(st.booleans()):
        player["top_revealed"] = deck[0]
    return {"ruleset": "swerve", "options": {"attacker_wins_ties": draw(st.booleans())},
            "players": {"a": player, "d": {"deck": []}}, "cards": cards, "hands": hands}


@settings(max_examples=150, deadline=None)
@given(positions())
def test_engine_agrees_with_the_rules_oracle_on_hands_missions_and_costs(data):
    """SW-1.5, SW-1.6, SW-2.5, SW-6.2: with cards in hands, in play or nowhere, launchers and targets with
    abilities of their own, paid or free, the engine's best play equals the oracle's."""
    agrees_with_the_rules(data, "gun", "car")


def test_oracle_reads_the_audits_launcher_as_the_rules_do_SW_2_5():
    """SW-2.5: the audit's repro through the oracle: the launcher's own +10 is not paid again, 1/3."""
    data = build_data([0, 5, 10], [], False, 25)
    data["cards"][0].update(timing="combat", effect={"accuracy": 10})
    data["cards"][1]["swerved"] = True
    assert rules_odds(data, "gun", "car")[0][0] == Fraction(1, 3)
    agrees_with_the_rules(data, "gun", "car")
    data["cards"][0]["ranged"]["cost"] = "none"  # stays unswerved: its ability can be paid
    assert rules_odds(data, "gun", "car")[0][0] == 1
    agrees_with_the_rules(data, "gun", "car")


def test_oracle_and_engine_ignore_cards_out_of_play_SW_1_5():
    """SW-1.5: a vehicle in hand and a unit at no mission lend nothing; the same unit at a mission does."""
    data = build_data([0, 5, 10], [("d", "combat", "speed", 5)], False, 20)
    data["cards"] += [{"id": "jeep", "owner": "d", "type": "vehicle", "timing": "combat", "effect": {"speed": 30}},
                      {"id": "scout", "owner": "d", "type": "unit", "timing": "combat", "effect": {"speed": 30}}]
    data["hands"]["d"].append("jeep")
    lines = rules_lines(data, "gun", "car")
    assert not any("jeep" in a or "scout" in a for line in lines for a in line)
    agrees_with_the_rules(data, "gun", "car")
    data["cards"][-1]["mission"] = "m"
    assert any("defender:use:scout" in line for line in rules_lines(data, "gun", "car"))
    agrees_with_the_rules(data, "gun", "car")


def test_oracle_and_engine_on_free_and_paid_abilities_SW_1_6():
    """SW-1.6: a swerved card's paid ability is closed, a free one stays open; each is used once."""
    data = build_data([0, 10], [], True, 25)
    data["cards"] += [{"id": "eye", "owner": "a", "type": "unit", "mission": "m", "swerved": True, "timing": "combat",
                       "effect": {"accuracy": 5}},
                      {"id": "lens", "owner": "a", "type": "unit", "mission": "m", "swerved": True, "cost": "none",
                       "timing": "ranged-combat", "effect": {"accuracy": 5}}]
    lines = rules_lines(data, "gun", "car")
    assert not any("attacker:use:eye" in line for line in lines)
    assert any("attacker:use:lens" in line for line in lines)
    assert not any(line.count("attacker:use:lens") > 1 for line in lines)
    agrees_with_the_rules(data, "gun", "car")


def test_oracle_and_engine_on_the_examples():
    """The shipped examples, read raw by the oracle."""
    import yaml

    from rangefire.demo import example_path

    for name, attacker, target in (("sawblade.yaml", "sawblade-launcher", "road-warrior"),
                                   ("ambush.yaml", "rail-gun", "dune-buggy")):
        agrees_with_the_rules(yaml.safe_load(example_path(name).read_text()), attacker, target)


def test_seeded_reveals_agree_with_exact_odds():
    """6,000 seeded resolutions of a fixed line: wins and bonuses match the exact odds (chi-square)."""
    battle = build([0, 5, 5, 10, 15, 20], [], False, 15)
    plan = SW.plan(battle, Attack("gun", "car", (("actions", ("a:pass", "d:swerve-target", "a:pass", "d:pass")),)))
    exact = SW.odds(plan).outcomes["damage"].probabilities()  # speed 30 against 20 + bonus: wins on 15, 20
    source = SeededSource(5)
    seen = Counter(SW.resolve(plan, source).outcome.damage for _ in range(6000))
    assert set(seen) == set(exact)
    observed = [seen[k] for k in exact]
    expected = [float(p) * 6000 for p in exact.values()]
    assert chisquare(observed, expected).pvalue > 1e-3
    assert exact == {0: Fraction(2, 3), 2: Fraction(1, 3)}
