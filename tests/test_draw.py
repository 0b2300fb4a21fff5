"""The battle drawn (``rangefire.draw``): the SVG's elements checked against the engine's own plans.

Each picture is parsed as XML and read back: the unit groups and their ids, terrain by kind, the line of fire's
state against the check's verdict and its ends against the plan's geometry in pixels, refused targets marked
with their clauses, scenario text escaped, and the scale bar's length.
"""

from __future__ import annotations

import math
import os
import sys
import xml.etree.ElementTree as ET
from fractions import Fraction
from typing import Any

import pytest

from rangefire.core import Attack, RangefireError, UnknownUnitError
from rangefire.core.moves import Move
from rangefire.core.scene import LINE_STATES
from rangefire.demo import example_path
from rangefire.draw import SCENES, battle_scene, draw_battle, write_drawing
from rangefire.draw.svg import SCALES
from rangefire.rulesets import RULESETS, battle_from_mapping, load_battle

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg.encode("utf-8"))


def classes(el: ET.Element) -> set[str]:
    return set(el.get("class", "").split())


def find(root: ET.Element, tag: str, cls: str) -> list[ET.Element]:
    return [el for el in root.iter(SVG + tag) if cls in classes(el)]


def title(el: ET.Element) -> str:
    t = el.find(SVG + "title")
    return t.text or "" if t is not None else ""


def to_px(root: ET.Element, x: float, y: float) -> tuple[float, float]:
    """Table units to pixels, from the picture's own origin and scale, with y flipped (y runs up the table)."""
    s = float(root.get("data-scale", "0"))
    return float(root.get("data-origin-x", "0")) + x * s, float(root.get("data-origin-y", "0")) - y * s


def line_ends(el: ET.Element) -> tuple[tuple[float, float], tuple[float, float]]:
    return (float(el.get("x1", "0")), float(el.get("y1", "0"))), (float(el.get("x2", "0")), float(el.get("y2", "0")))


def close(a: tuple[float, float], b: tuple[float, float], tol: float = 0.02) -> bool:
    return math.dist(a, b) <= tol


def example(name: str) -> tuple[Any, Any]:
    return load_battle(example_path(name))


def dump_with(example_name: str, **changes: Any) -> tuple[Any, Any]:
    ruleset, battle = example(example_name)
    data = ruleset.dump(battle)
    data.update(changes)
    return battle_from_mapping(data)


# -- every game is drawn ---------------------------------------------------------------------------
def test_every_ruleset_has_a_drawing():
    assert set(SCENES) == {r.key for r in RULESETS}


@pytest.mark.parametrize("name", ["wheatfield.yaml", "ford.yaml", "temple.yaml", "mist-bridge.yaml", "sawblade.yaml",
                                  "ambush.yaml"])
def test_every_example_draws_one_group_per_unit(name):
    ruleset, battle = example(name)
    root = parse(draw_battle(ruleset, battle))
    ids = [g.get("data-id") for g in find(root, "g", "unit")]
    assert sorted(ids) == sorted(c for c in ruleset.unit_ids(battle) if _in_play(ruleset, battle, c))
    # a page makes the pieces clickable by data-unit and data-side: every unit group, and nothing else, has them
    clickable = {el.get("data-unit"): el.get("data-side") for el in root.iter() if el.get("data-unit") is not None
                 and el is not root and "scale-bar" not in classes(el)}
    assert clickable == {uid: ruleset.side_of(battle, uid) for uid in ids}


def _in_play(ruleset, battle, uid):
    return ruleset.key != "swerve" or battle.holder(uid) is None


# -- Dress on the Colors ---------------------------------------------------------------------------
def test_wheatfield_units_terrain_and_gunsmoke_DC_1_2_DC_1_3_DC_7_1():
    ruleset, battle = example("wheatfield.yaml")
    root = parse(draw_battle(ruleset, battle))
    units = {g.get("data-id"): g for g in find(root, "g", "unit")}
    assert list(units) == [u.id for u in battle.units]
    # one stand polygon per stand, in the unit's group [DC-1.2]
    for unit in battle.units:
        assert len(find(units[unit.id], "polygon", "stand")) == unit.stands
        assert units[unit.id].get("data-side") == unit.side
    kinds = {p.get("data-id"): classes(p) for p in find(root, "polygon", "terrain")}
    assert "terrain-heavy" in kinds["stone-wall"] and "terrain-light" in kinds["rose-woods"]
    assert "terrain-gunsmoke" in kinds["old-smoke"]
    # 20th-maine stands still with its marker in place; 83rd-pennsylvania moved, so it has none [DC-7.1]
    markers = [p.get("data-id") for p in find(root, "polygon", "gunsmoke")]
    assert markers == ["20th-maine:gunsmoke"]
    # without an attacker, each unit's arc shown by the start of its two bounding lines [DC-2.1]
    edges = [line.get("data-id") for line in find(root, "line", "arc")]
    assert sorted(edges) == sorted(2 * [u.id for u in battle.units])


def test_wheatfield_line_of_fire_is_the_plans_hindered_by_gunsmoke_DC_2_2_DC_7_2():
    ruleset, battle = example("wheatfield.yaml")
    plan = ruleset.plan(battle, Attack("15th-alabama"))  # the rules choose 20th-maine [DC-2.3]
    assert plan.smoke_from  # the verdict the drawing must show
    root = parse(draw_battle(ruleset, battle, attacker="15th-alabama"))
    (line,) = find(root, "line", "line-of-fire")
    assert "hindered" in classes(line) and line.get("data-id") == "15th-alabama->20th-maine"
    (start, end) = plan.line_of_fire
    a, b = line_ends(line)
    assert close(a, to_px(root, float(start[0]), float(start[1])))
    assert close(b, to_px(root, float(end[0]), float(end[1])))
    # y runs up the table and down the picture: the firer (y = 12) is drawn above its target (y = 0)
    assert a[1] < b[1]
    assert any(f"{math.sqrt(plan.distance2):.2f} in, medium" in (t.text or "") for t in root.iter(SVG + "text"))
    # the marker it crosses outlined as what hinders it, the wall as what gives cover [DC-4.2]
    assert [p.get("data-id") for p in find(root, "polygon", "hindrance")] == ["20th-maine:gunsmoke"]
    assert [p.get("data-id") for p in find(root, "polygon", "cover")] == ["stone-wall"]


def test_wheatfield_targets_marked_legal_or_refused_with_the_clause_DC_2_3():
    ruleset, battle = example("wheatfield.yaml")
    root = parse(draw_battle(ruleset, battle, attacker="15th-alabama"))
    legal = [p.get("data-id") for p in find(root, "polygon", "legal-target")]
    refused = {p.get("data-id"): title(p) for p in find(root, "polygon", "refused-target")}
    assert legal == ["20th-maine"]
    assert set(refused) == {"83rd-pennsylvania", "battery-d"}
    for uid, why in refused.items():
        check = ruleset.check(battle, Attack("15th-alabama", uid))
        assert why == "; ".join(str(r) for r in check.refusals) and "[DC-2.3]" in why
    # the clause written beside each refused target, for a picture without tooltips
    clauses = {g.get("data-for"): g.find(SVG + "text").text for g in find(root, "g", "clause")}
    assert clauses == {"83rd-pennsylvania": "✕ DC-2.3", "battery-d": "✕ DC-2.3"}
    # the firer's arc is drawn [DC-2.1]
    assert [p.get("data-id") for p in find(root, "polygon", "arc")] == ["15th-alabama"]


def test_a_refused_target_gets_a_refused_line_DC_2_1():
    ruleset, battle = example("wheatfield.yaml")
    check = ruleset.check(battle, Attack("20th-maine", "4th-texas"))
    assert not check.is_legal
    root = parse(draw_battle(ruleset, battle, attacker="20th-maine", target="4th-texas"))
    (line,) = find(root, "line", "line-of-fire")
    assert "refused" in classes(line) and title(line) == "; ".join(str(r) for r in check.refusals)


# -- Arcane Legions --------------------------------------------------------------------------------
def test_ford_line_of_sight_between_the_plans_notches_hindered_AL_4_1_AL_4_3():
    ruleset, battle = example("ford.yaml")
    plan = ruleset.plan(battle, Attack("archers", "orc-band"))
    assert plan.sight == "hindered"
    root = parse(draw_battle(ruleset, battle, attacker="archers", target="orc-band"))
    assert root.get("data-unit") == "steps" and float(root.get("data-scale", 0)) == SCALES["steps"]
    assert [g.get("data-id") for g in find(root, "g", "unit")] == [u.id for u in battle.units]
    (line,) = find(root, "line", "line-of-fire")
    assert "hindered" in classes(line)
    a, b = line_ends(line)
    assert close(a, to_px(root, *map(float, plan.from_notch)))
    assert close(b, to_px(root, *map(float, plan.to_notch)))
    assert [p.get("data-id") for p in find(root, "polygon", "hindrance")] == list(plan.hindered_by)
    kinds = {p.get("data-id"): classes(p) for p in find(root, "polygon", "terrain")}
    assert "terrain-blocking" in kinds["crag"] and "terrain-hindering" in kinds["willow-woods"]


def test_ford_bases_show_their_coloured_sides_and_notches_AL_1_2_AL_1_3():
    ruleset, battle = example("ford.yaml")
    root = parse(draw_battle(ruleset, battle))
    archers = next(g for g in find(root, "g", "unit") if g.get("data-id") == "archers")
    edges = [c for el in archers.iter(SVG + "line") for c in classes(el) if c.startswith("edge-")]
    assert sorted(edges) == ["edge-blue", "edge-grey", "edge-grey", "edge-red"]  # front blue, right/back grey, left red
    assert len(find(archers, "circle", "notch")) == 5 + 3 + 5 + 3  # a formation's notches [AL-1.3]


def test_a_blocked_line_of_sight_is_drawn_blocked_with_its_blockers_AL_4_2():
    wall = {"id": "wall", "kind": "blocking", "polygon": [[-3, 2], [4, 2], [4, 2.5], [-3, 2.5]]}
    ruleset, battle = example("ford.yaml")
    ruleset, battle = dump_with("ford.yaml", terrain=[*ruleset.dump(battle)["terrain"], wall])
    check = ruleset.check(battle, Attack("archers", "orc-band"))
    assert [r.clause for r in check.refusals] == ["AL-4.2"]
    root = parse(draw_battle(ruleset, battle, attacker="archers", target="orc-band"))
    (line,) = find(root, "line", "line-of-fire")
    assert "blocked" in classes(line)
    # every blocker the refusal names is outlined
    assert sorted(p.get("data-id") for p in find(root, "polygon", "blocker")) == ["crag", "wall"]
    assert "(crag, wall)" in check.refusals[0].reason


# -- Bushido ---------------------------------------------------------------------------------------
def test_temple_line_of_sight_zones_and_nominees_BU_2_1_BU_2_2_BU_4_2():
    ruleset, battle = example("temple.yaml")
    plan = ruleset.plan(battle, Attack("yoichi", "takeda"))
    root = parse(draw_battle(ruleset, battle, attacker="yoichi", target="takeda"))
    scale = float(root.get("data-scale", 0))
    zones = {c.get("data-id"): float(c.get("r", 0)) for c in find(root, "circle", "zone-of-control")}
    for model in battle.units:  # 1 in beyond the base edge [BU-2.2]
        assert zones[model.id] == pytest.approx((float(model.disc.radius) + 1) * scale, abs=0.01)
    (line,) = find(root, "line", "line-of-fire")
    assert "hindered" in classes(line)  # through the bamboo grove, which gives cover [BU-5.7]
    seen = plan.line_of_sight["line"]
    a, b = line_ends(line)
    assert close(a, to_px(root, *seen["from"]), 0.05) and close(b, to_px(root, *seen["to"]), 0.05)
    assert [p.get("data-id") for p in find(root, "polygon", "cover")] == list(plan.cover_by) == ["bamboo-grove"]
    assert [c.get("data-id") for c in find(root, "circle", "nominee")] == [n.id for n in plan.nominees]
    refused = {c.get("data-id"): title(c) for c in find(root, "circle", "refused-target")}
    assert "[BU-3.2]" in refused["scout"]


def test_no_line_of_sight_is_drawn_blocked_by_the_storehouse_BU_3_2():
    ruleset, battle = example("temple.yaml")
    root = parse(draw_battle(ruleset, battle, attacker="yoichi", target="scout"))
    (line,) = find(root, "line", "line-of-fire")
    assert "blocked" in classes(line) and "BU-3.2" in title(line)
    assert [p.get("data-id") for p in find(root, "polygon", "blocker")] == ["storehouse"]


# -- swerve ----------------------------------------------------------------------------------------
def test_sawblade_cards_at_their_mission_and_the_combat_arrow_SW_2_1():
    ruleset, battle = example("sawblade.yaml")
    root = parse(draw_battle(ruleset, battle, attacker="sawblade-launcher", target="road-warrior"))
    assert root.get("data-unit") == ""
    assert not find(root, "g", "scale-bar")  # no table, no scale
    assert [p.get("data-id") for p in find(root, "polygon", "mission")] == ["canyon"]
    (line,) = find(root, "line", "line-of-fire")
    assert "clear" in classes(line)
    assert "accuracy 30 vs speed 20" in "".join(t.text or "" for t in root.iter(SVG + "text"))
    assert [p.get("data-id") for p in find(root, "polygon", "legal-target")] == ["road-warrior"]


def test_a_swerved_card_is_turned_and_a_hand_listed_SW_1_1_SW_1_5():
    ruleset, battle = example("ambush.yaml")
    cards = [c.model_copy(update={"swerved": True}) if c.id == "spotter" else c for c in battle.cards]
    battle = battle.model_copy(update={"cards": tuple(cards)})
    root = parse(draw_battle(ruleset, battle))
    boxes = {p.get("data-id"): p for p in find(root, "polygon", "card")}
    for cid, box in boxes.items():
        xs = [float(v.split(",")[0]) for v in box.get("points", "").split()]
        ys = [float(v.split(",")[1]) for v in box.get("points", "").split()]
        wide = max(xs) - min(xs) > max(ys) - min(ys)
        assert wide == (cid == "spotter"), cid
        assert ("swerved" in classes(box)) == (cid == "spotter")
    notes = " ".join(t.text or "" for t in find(root, "g", "notes")[0].iter(SVG + "text"))
    for player, hand in battle.hands.items():
        assert f"{player}'s hand" in notes and all(cid in notes for cid in hand)
    assert not set(boxes) & {cid for hand in battle.hands.values() for cid in hand}  # a hand is not in play


# -- text, scale, legend, files --------------------------------------------------------------------
def test_scenario_text_is_escaped_and_control_characters_written_out():
    name = 'Pickett <&> "charge" [bold]\x1b[2J\u202e'
    ruleset, battle = dump_with("wheatfield.yaml", name=name)
    units = [dict(u, side="<b>&[rebs]") if u["side"] == "confederate" else u for u in ruleset.dump(battle)["units"]]
    ruleset, battle = dump_with("wheatfield.yaml", name=name, units=units,
                                turn={"number": 1, "order": ["union", "<b>&[rebs]"]})  # the order names every side
    svg = draw_battle(ruleset, battle, attacker="15th-alabama")
    assert "\x1b" not in svg and "\u202e" not in svg
    root = parse(svg)  # parseable: every < and & escaped
    shown = 'Pickett <&> "charge" [bold]\\x1b[2J\\u202e'
    assert root.find(SVG + "title").text == f"{shown}: 15th-alabama fires at 20th-maine"
    sides = {g.get("data-side") for g in find(root, "g", "unit")}
    assert sides == {"union", "<b>&[rebs]"}
    assert any(t.text == "<b>&[rebs]: stands, thick front edge, arrow = facing" for t in root.iter(SVG + "text"))


@pytest.mark.parametrize(("name", "unit"), [("wheatfield.yaml", "in"), ("ford.yaml", "steps"), ("temple.yaml", "in")])
def test_scale_bar_is_its_length_at_the_scale(name, unit):
    ruleset, battle = example(name)
    root = parse(draw_battle(ruleset, battle))
    (bar,) = find(root, "g", "scale-bar")
    n = int(bar.get("data-length", 0))
    assert bar.get("data-unit") == unit and n >= 1
    (line,) = find(bar, "line", "scale-line")
    a, b = line_ends(line)
    assert b[0] - a[0] == pytest.approx(n * float(root.get("data-scale", 0)))
    label = "".join(bar.itertext()).strip()
    assert label == (f"{n} {unit}" if unit == "in" else f"{n} step" + ("s" if n != 1 else ""))


def test_legend_names_every_kind_drawn():
    ruleset, battle = example("wheatfield.yaml")
    root = parse(draw_battle(ruleset, battle, attacker="15th-alabama"))
    (legend,) = find(root, "g", "legend")
    entries = {c for g in find(legend, "g", "legend-entry") for c in classes(g)} - {"legend-entry"}
    for kind in ("stand", "terrain-heavy", "terrain-light", "gunsmoke", "arc", "attacker", "legal-target",
                 "refused-target", "line-of-fire", "hindrance", "cover"):
        assert kind in entries, kind
    states = {g.get("data-state") for g in find(legend, "g", "line-of-fire")}
    assert states == {"hindered"}


def test_a_target_needs_an_attacker_and_ids_must_exist():
    ruleset, battle = example("wheatfield.yaml")
    with pytest.raises(RangefireError, match="attacker"):
        draw_battle(ruleset, battle, target="20th-maine")
    with pytest.raises(UnknownUnitError):
        draw_battle(ruleset, battle, attacker="1st-minnesota")


def test_scene_is_data_with_the_checks_given():
    ruleset, battle = example("wheatfield.yaml")
    scene = battle_scene(ruleset, battle, attacker="15th-alabama")
    assert [g.id for g in scene.groups("unit")] == [u.id for u in battle.units]
    assert scene.unit == "in" and scene.sides == ("union", "confederate")


def test_write_drawing_svg_png_and_bad_suffix(tmp_path):
    ruleset, battle = example("temple.yaml")
    svg = draw_battle(ruleset, battle, attacker="yoichi", target="takeda")
    write_drawing(svg, tmp_path / "t.svg")
    assert (tmp_path / "t.svg").read_text(encoding="utf-8") == svg
    umask = os.umask(0)
    os.umask(umask)
    assert (tmp_path / "t.svg").stat().st_mode & 0o777 == 0o666 & ~umask  # as any new file, not private
    with pytest.raises(RangefireError, match=r"\.svg or \.png"):
        write_drawing(svg, tmp_path / "t.pdf")
    with pytest.raises(RangefireError, match="cannot write"):
        write_drawing(svg, tmp_path / "missing" / "t.svg")
    write_drawing(svg, tmp_path / "t.png")
    assert (tmp_path / "t.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_png_without_cairosvg_names_the_package(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "cairosvg", None)  # as if it were not installed
    with pytest.raises(RangefireError, match="cairosvg"):
        write_drawing("<svg xmlns='http://www.w3.org/2000/svg'/>", tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()


def test_terrain_that_matters_more_is_drawn_over_open_ground():
    """The mist lies inside the river bank: drawn in file order the clear bank would hide it."""
    ruleset, battle = example("mist-bridge.yaml")
    root = parse(draw_battle(ruleset, battle))
    order = [p.get("data-id") for p in find(root, "polygon", "terrain")]
    assert order == ["river-bank", "mist", "shrine"]


@pytest.mark.parametrize("name", ["wheatfield.yaml", "ford.yaml", "temple.yaml", "mist-bridge.yaml", "sawblade.yaml",
                                  "ambush.yaml"])
def test_every_pair_draws_with_a_line_that_agrees_with_its_check(name):
    ruleset, battle = example(name)
    ids = list(ruleset.unit_ids(battle))
    for attacker in ids:
        for target in ids:
            check = ruleset.check(battle, Attack(attacker, target))
            root = parse(draw_battle(ruleset, battle, attacker, target))
            states = {s for line in find(root, "line", "line-of-fire") for s in classes(line)} - {"line-of-fire"}
            assert states <= set(LINE_STATES), (attacker, target)
            assert not (check.is_legal and states & {"blocked", "refused"}), (attacker, target)
            assert not (not check.is_legal and states & {"clear", "touching", "hindered"}), (attacker, target)


@pytest.mark.parametrize(("choices", "state"), [({"from_side": "right"}, "blocked"),
                                                ({"from_side": "right", "to_side": "front"}, "blocked"),
                                                ({"to_side": "right"}, None)])
def test_a_refused_line_runs_between_the_sides_the_player_chose_al_3_1_al_4_2(choices, state):
    """From the archers' right side every line to the orc band runs into the crag [AL-4.2]: the line drawn for
    the refusal leaves from a notch of that side (and, where chosen, reaches one of the side attacked), never
    from the front, whose line is clear."""
    from rangefire.rulesets.arcane_legions.table import base_of

    ruleset, battle = example("ford.yaml")
    check = ruleset.check(battle, ruleset.attack("archers", "orc-band", choices))
    svg = parse(draw_battle(ruleset, battle, "archers", "orc-band", choices))
    lines = find(svg, "line", "line-of-fire")
    if check.is_legal:  # the side attacked alone moves nothing to refuse: the plan's own line
        assert state is None and not any("blocked" in classes(el) for el in lines)
        return
    assert state is not None and [sorted(classes(el) - {"line-of-fire"}) for el in lines] == [[state]]
    start, end = line_ends(lines[0])
    froms = base_of(battle.unit("archers")).sides[choices["from_side"]].notches
    assert any(close(start, to_px(svg, float(n.x), float(n.y))) for n in froms)
    if "to_side" in choices:
        tos = base_of(battle.unit("orc-band")).sides[choices["to_side"]].notches
        assert any(close(end, to_px(svg, float(n.x), float(n.y))) for n in tos)


# -- after moves: trails, where a unit stood, badges, terrain names ------------------------------------
def moved_wheatfield(*moves: Any) -> tuple[Any, Any]:
    """The Wheatfield on the Union's turn, after the moves given."""
    ruleset, battle = dump_with("wheatfield.yaml", turn={"number": 1, "side": "union"})
    for move in moves:
        battle, _ = ruleset.move(battle, move)
    return ruleset, battle


def centre(points: Any) -> tuple[float, float]:
    pts = [(float(p.x), float(p.y)) for p in points]
    return sum(x for x, _ in pts) / len(pts), sum(y for _, y in pts) / len(pts)


def polygon_points(el: ET.Element) -> list[tuple[float, float]]:
    return [(float(x), float(y)) for x, y in (v.split(",") for v in el.get("points", "").split())]


def test_a_moved_unit_has_its_trail_from_where_it_stood_DC_6_1_DC_10_1():
    """20th-maine moves 3 in up the table: where it stood at the start of its turn is outlined (a stand for each
    of its stands, at the start position the game records), and its trail runs from there to the unit, its arrow
    on the unit's back edge. A unit that did not move has neither."""
    from rangefire.rulesets.dress_on_the_colors.table import footprint

    ruleset, battle = moved_wheatfield(Move("20th-maine", by=(Fraction(0), Fraction(3))))
    unit = battle.unit("20th-maine")
    assert unit.start_position == (10, 0) and unit.position == (10, 3)
    root = parse(draw_battle(ruleset, battle))
    ghosts = [g for g in find(root, "g", "ghost") if g.get("data-id") == "20th-maine"]
    assert len(ghosts) == 1 and "began its turn at (10, 0)" in title(ghosts[0]) and "[DC-6.1]" in title(ghosts[0])
    then = footprint(unit, at_start=True)
    stands = find(ghosts[0], "polygon", "ghost")
    assert len(stands) == unit.stands
    for drawn, stand in zip(stands, then.stands, strict=True):
        for a, b in zip(polygon_points(drawn), stand.vertices, strict=True):
            assert close(a, to_px(root, float(b.x), float(b.y)))
    trails = {line.get("data-id"): line for line in find(root, "line", "trail")}
    # 83rd-pennsylvania's start is recorded in the example too (it moved before the scenario was written)
    assert set(trails) == {"20th-maine", "83rd-pennsylvania"}
    start, end = line_ends(trails["20th-maine"])
    assert close(start, to_px(root, *centre([p for stand in then.stands for p in stand.vertices])))  # its middle
    assert close(end, to_px(root, 10, 2))  # the middle of its back edge, 1 in behind its front at y = 3
    assert "moved this turn from (10, 0) facing 0° to (10, 3) facing 0° [DC-10.1]" in title(trails["20th-maine"])
    assert any("arrowhead trail" in el.get("class", "") for el in root.iter(SVG + "polygon"))
    assert not [g for g in find(root, "g", "ghost") if g.get("data-id") in ("15th-alabama", "battery-d")]
    # the legend says what the two marks are
    (legend,) = find(root, "g", "legend")
    said = {c for g in find(legend, "g", "legend-entry") for c in classes(g)}
    assert {"ghost", "trail"} <= said


def test_a_unit_that_only_turned_is_outlined_where_it_stood_without_a_trail_DC_6_1():
    ruleset, battle = moved_wheatfield(Move("battery-d", turn=Fraction(30)))
    root = parse(draw_battle(ruleset, battle))
    assert "battery-d" in {g.get("data-id") for g in find(root, "g", "ghost")}
    assert "battery-d" not in {line.get("data-id") for line in find(root, "line", "trail")}


def badge_words(root: ET.Element, uid: str) -> dict[str, str]:
    """A unit's badges: the word each shows, by its mark."""
    rows = [g for g in find(root, "g", "badges") if g.get("data-for") == uid]
    return {g.get("data-mark", ""): g.find(SVG + "text").text for row in rows for g in find(row, "g", "badge")}


def legend_marks(root: ET.Element) -> set[str]:
    (legend,) = find(root, "g", "legend")
    return {g.get("data-state", "") for g in find(legend, "g", "legend-entry") if "badge" in classes(g)}


def test_disorder_micro_hits_gunsmoke_and_moves_are_badges_by_the_unit_DC_4_3_DC_5_3_DC_7_1():
    ruleset, battle = example("wheatfield.yaml")
    units = [dict(u, disordered=True, fired=True) if u["id"] == "15th-alabama" else u
             for u in ruleset.dump(battle)["units"]]
    ruleset, battle = dump_with("wheatfield.yaml", units=units)
    root = parse(draw_battle(ruleset, battle))
    assert badge_words(root, "15th-alabama") == {"disordered": "disordered", "fired": "fired"}
    assert badge_words(root, "47th-alabama") == {"micro-hit": "micro-hit"}
    assert badge_words(root, "20th-maine") == {"gunsmoke": "gunsmoke"}  # its marker in place [DC-7.1]
    assert badge_words(root, "83rd-pennsylvania") == {"moved": "moved"}
    assert badge_words(root, "battery-d") == {}
    assert legend_marks(root) == {"disordered", "fired", "micro-hit", "gunsmoke", "moved"}
    (legend,) = find(root, "g", "legend")
    texts = " ".join(t.text or "" for t in legend.iter(SVG + "text"))
    assert "disordered: -1 to each die it fires" in texts and "[DC-4.3]" in texts


def test_bushido_states_and_wounds_are_badges_by_the_model_BU_5_3_BU_5_4_BU_7_3():
    ruleset, battle = example("mist-bridge.yaml")
    models = [dict(m, states=["moved", "prone", "surprised"], attacked=True) if m["id"] == "ogre" else m
              for m in ruleset.dump(battle)["units"]]
    ruleset, battle = dump_with("mist-bridge.yaml", units=models)
    root = parse(draw_battle(ruleset, battle))
    assert badge_words(root, "cultist") == {"will_move": "will move", "ran": "ran", "wounds": "wounds 0/3"}
    assert badge_words(root, "archer") == {"aimed": "aimed", "wounds": "wounds 0/3"}
    assert badge_words(root, "ogre") == {"moved": "moved", "prone": "prone", "surprised": "surprised",
                                         "attacked": "shot", "wounds": "wounds 0/10"}
    ruleset, battle = example("temple.yaml")
    assert badge_words(parse(draw_battle(ruleset, battle)), "takeda") == {"wounds": "wounds 1/6"}
    assert legend_marks(root) == {"aimed", "will_move", "moved", "ran", "prone", "surprised", "attacked", "wounds"}


def test_arcane_legions_figures_left_are_a_badge_by_the_unit_AL_1_5_AL_7_2():
    ruleset, battle = example("ford.yaml")
    units = [dict(u, slots=[dict(s, occupied=i < 1) for i, s in enumerate(u["slots"])], pushed=True)
             if u["id"] == "orc-band" else u for u in ruleset.dump(battle)["units"]]
    ruleset, battle = dump_with("ford.yaml", units=units)
    root = parse(draw_battle(ruleset, battle))
    assert badge_words(root, "orc-band") == {"figures": "1/4 figures", "pushed": "pushed"}
    assert badge_words(root, "archers") == {"figures": "4/4 figures"}
    assert legend_marks(root) == {"figures", "pushed"}


@pytest.mark.parametrize("name", ["wheatfield.yaml", "ford.yaml", "temple.yaml", "mist-bridge.yaml"])
def test_terrain_is_named_on_the_drawing(name):
    ruleset, battle = example(name)
    root = parse(draw_battle(ruleset, battle))
    named = {g.get("data-for"): g.find(SVG + "text").text for g in find(root, "g", "terrain-name")}
    assert named == {t.id: t.id for t in battle.terrain}


@pytest.mark.parametrize("name", ["wheatfield.yaml", "ford.yaml", "temple.yaml", "mist-bridge.yaml", "sawblade.yaml",
                                  "ambush.yaml"])
def test_labels_are_readable_and_apart(name):
    """Every word on the table is at least 11 pixels at the drawing's own size, and no two labels (names,
    badges, clauses, ranges, terrain names) lie over each other, for the battle and for each attacker."""
    ruleset, battle = example(name)
    for attacker in [None, *ruleset.unit_ids(battle)]:
        root = parse(draw_battle(ruleset, battle, attacker))
        (labels,) = find(root, "g", "labels")
        sizes = [float(t.get("font-size", 0)) for t in labels.iter(SVG + "text")]
        assert sizes and min(sizes) >= 11, attacker
        boxes = []
        for g in labels:
            rects = list(g.iter(SVG + "rect"))
            xs = [float(r.get("x", 0)) + d * float(r.get("width", 0)) for r in rects for d in (0, 1)]
            ys = [float(r.get("y", 0)) + d * float(r.get("height", 0)) for r in rects for d in (0, 1)]
            boxes.append((g.get("data-for"), min(xs), min(ys), max(xs), max(ys)))
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:]:
                overlap = min(a[3], b[3]) - max(a[1], b[1]), min(a[4], b[4]) - max(a[2], b[2])
                assert min(overlap) <= 2, (attacker, a, b)


def test_markup_in_a_name_is_text_not_markup():
    """Ids are held to [A-Za-z0-9_.:-], so a unit cannot be called <b>; the scenario's name is free text, and a
    drawing made of any text (a web page's scene) is escaped wherever the text is written."""
    from rangefire.core import ScenarioError
    from rangefire.core.scene import Label, Poly, Scene, badges
    from rangefire.draw.svg import render_svg

    ruleset, battle = example("wheatfield.yaml")
    units = [dict(u, id="<b>x</b>") if u["id"] == "battery-d" else u for u in ruleset.dump(battle)["units"]]
    with pytest.raises(ScenarioError, match="units"):
        dump_with("wheatfield.yaml", units=units)
    ruleset, battle = dump_with("wheatfield.yaml", name="<b>Bold</b> & <script>", turn={"number": 1, "side": "union"})
    battle, _ = ruleset.move(battle, Move("20th-maine", by=(Fraction(0), Fraction(3))))
    svg = draw_battle(ruleset, battle)
    root = parse(svg)
    assert root.find(SVG + "title").text == "<b>Bold</b> & <script>" and "<b>" not in svg
    scene = Scene("<i>t</i>", (Poly("stand", "<b>", "<s>", title="<u>", points=((0, 0), (1, 0), (1, 1))),
                               Label("name", "<b>", "<s>", at=(0, 2), text="<b>"),
                               *badges("<b>", "<s>", [("<m>", "<w>")], "<t>", (0, 3), 1.0)),
                  (-2, -2, 4, 4), sides=("<s>",))
    out = render_svg(scene)
    root = parse(out)
    assert "<b>" not in out and "<w>" not in out
    assert [t.text for t in root.iter(SVG + "text") if t.text in ("<b>", "<w>")] == ["<b>", "<w>"]
    assert [g.get("data-mark") for g in find(root, "g", "badge")] == ["<m>"]


def png_pixels(svg: str) -> Any:
    import io

    from PIL import Image

    from rangefire.draw import svg_to_png

    return Image.open(io.BytesIO(svg_to_png(svg))).convert("L")


def dark(image: Any, box: tuple[float, float, float, float]) -> int:
    """How many pixels of a box are dark (text, outlines)."""
    crop = image.crop(tuple(round(v) for v in box))
    return sum(1 for v in crop.get_flattened_data() if v < 120)


def changed(before: Any, after: Any, box: tuple[float, float, float, float]) -> int:
    """How many pixels of a box differ between two pictures."""
    from PIL import ImageChops

    crop = tuple(round(v) for v in box)
    return sum(1 for v in ImageChops.difference(before.crop(crop), after.crop(crop)).get_flattened_data() if v > 30)


def test_the_png_shows_the_trail_the_ghost_and_each_badge():
    """The marks are drawn, not only written in the SVG: the PNG of a moved unit has ink where its trail, where
    it stood and its badge are, and the PNG of the same battle with the move's marks taken away (no start
    recorded, not moved) has none there."""
    ruleset, battle = moved_wheatfield(Move("20th-maine", by=(Fraction(-6), Fraction(4))))
    unmarked = battle.model_copy(update={"units": tuple(
        u.model_copy(update={"start_position": None, "start_facing": None, "moved": False}) if u.id == "20th-maine"
        else u for u in battle.units)})
    svg_after, svg_before = draw_battle(ruleset, battle), draw_battle(ruleset, unmarked)
    after_png, before_png = png_pixels(svg_after), png_pixels(svg_before)
    root = parse(svg_after)
    assert (root.get("data-origin-x"), root.get("data-origin-y")) == (parse(svg_before).get("data-origin-x"),
                                                                      parse(svg_before).get("data-origin-y"))
    (trail,) = [line for line in find(root, "line", "trail") if line.get("data-id") == "20th-maine"]
    (a, b) = line_ends(trail)
    for t in (0.3, 0.5, 0.7):  # along the trail: its dashes and their white casing
        x, y = a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t
        assert changed(before_png, after_png, (x - 4, y - 4, x + 4, y + 4)) > 5, t
    (ghost,) = [g for g in find(root, "g", "ghost") if g.get("data-id") == "20th-maine"]
    points = [p for el in find(ghost, "polygon", "ghost") for p in polygon_points(el)]
    box = (min(x for x, _ in points), min(y for _, y in points), max(x for x, _ in points), max(y for _, y in points))
    assert changed(before_png, after_png, box) > 200
    (row,) = [g for g in find(root, "g", "badges") if g.get("data-for") == "20th-maine"]
    (rect,) = list(row.iter(SVG + "rect"))
    x, y, w, h = (float(rect.get(k, 0)) for k in ("x", "y", "width", "height"))
    inner = (x + 3, y + 3, x + w - 3, y + h - 3)  # the word "moved", inside the box's outline
    assert dark(after_png, inner) > 20 and changed(before_png, after_png, inner) > 20


@pytest.mark.parametrize(("game", "name", "clause"), [("dress-on-the-colors", "wheatfield", "DC-10.2"),
                                                      ("arcane-legions", "ford", "AL-10.1"),
                                                      ("bushido", "temple", "BU-9.2")])
def test_a_table_of_a_given_size_is_drawn_whole(game, name, clause):
    """A battle that gives its table's size is drawn with all of the table, empty or not: an empty one's table
    area is the table, corner to corner, at the picture's scale, and an example's given a table larger than its
    pieces spans it (the edge a move may not cross is in sight [clause]); with no size it is drawn around its
    pieces, smaller."""
    def area(battle_ruleset: Any, battle: Any) -> tuple[tuple[float, float, float, float], ET.Element]:
        root = parse(draw_battle(battle_ruleset, battle))
        [rect] = find(root, "rect", "table-area")
        return tuple(float(rect.get(k, "0")) for k in ("x", "y", "width", "height")), root  # type: ignore[return-value]

    empty: dict[str, Any] = {"ruleset": game, "units": [], "turn": {"number": 1, "order": ["a", "b"]},
                             "table": {"width": 30, "depth": 20}}
    if game == "arcane-legions":
        empty["players"] = {"a": {}, "b": {}}
    (x, y, w, h), root = area(*battle_from_mapping(empty))
    assert close((x, y + h), to_px(root, 0, 0)) and close((x + w, y), to_px(root, 30, 20)), clause
    ruleset, battle = example(f"{name}.yaml")
    bare, _ = area(ruleset, battle)
    (x, y, w, h), root = area(*battle_from_mapping({**ruleset.dump(battle), "table": {"width": 80, "depth": 60}}))
    corner, far = to_px(root, 0, 0), to_px(root, 80, 60)
    assert x <= corner[0] + 0.01 and y + h >= corner[1] - 0.01 and x + w >= far[0] - 0.01 and y <= far[1] + 0.01
    assert bare[2] < w and bare[3] < h
