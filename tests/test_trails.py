"""A unit's move this turn, kept and drawn, in Arcane Legions and Bushido as in Dress on the Colors: where it stood
at the start of the turn is written by its first move (``start_position``, and ``start_facing`` where units face),
cleared when the turn ends (AL-9.1 for the side whose turn it was, BU-8.2 for every model) or when a move puts it back
there, and drawn as a dashed outline with a trail, base centre to base centre as the games measure a move (AL-10.2,
BU-9.2), the unit's name and badges kept off the trail, in the SVG and in the PNG."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from fractions import Fraction
from typing import Any

import pytest

from rangefire.core.moves import Move
from rangefire.draw import draw_battle
from rangefire.rulesets.arcane_legions.table import base_of
from tests.test_draw import (
    SVG,
    changed,
    classes,
    close,
    dark,
    dump_with,
    find,
    line_ends,
    parse,
    png_pixels,
    polygon_points,
    title,
    to_px,
)

F = Fraction


def ford(**changes: Any) -> tuple[Any, Any]:
    """The ford on the legion's turn."""
    return dump_with("ford.yaml", turn={"number": 1, "side": "legion"}, **changes)


def temple() -> tuple[Any, Any]:
    """The temple yard, the prefecture activating (as the example records)."""
    return dump_with("temple.yaml")


def moved(ruleset: Any, battle: Any, *moves: Move) -> Any:
    for move in moves:
        battle, _ = ruleset.move(battle, move)
    return battle


def trails(root: ET.Element) -> dict[str, ET.Element]:
    return {line.get("data-id", ""): line for line in find(root, "line", "trail")}


def ghosts(root: ET.Element) -> dict[str, ET.Element]:
    """Where each unit stood, by its id (the legend's sample is no unit's)."""
    return {g.get("data-id", ""): g for g in find(root, "g", "ghost") if g.get("data-id")}


def on_segment(p: tuple[float, float], a: tuple[float, float], b: tuple[float, float], tol: float = 0.05) -> bool:
    """Whether ``p`` lies on the segment from ``a`` to ``b`` (pixels)."""
    return abs(math.dist(a, p) + math.dist(p, b) - math.dist(a, b)) <= tol


def label_boxes(root: ET.Element) -> list[tuple[str, str, tuple[float, float, float, float]]]:
    """Each name and row of badges on the table: its kind, whose it is and its box in pixels (its rectangles')."""
    (labels,) = find(root, "g", "labels")
    out = []
    for g in labels:
        kind = "badges" if "badges" in classes(g) else "name" if "name" in classes(g) else ""
        if not kind:
            continue
        rects = list(g.iter(SVG + "rect"))
        xs = [float(r.get("x", 0)) + d * float(r.get("width", 0)) for r in rects for d in (0, 1)]
        ys = [float(r.get("y", 0)) + d * float(r.get("height", 0)) for r in rects for d in (0, 1)]
        out.append((kind, g.get("data-for", ""), (min(xs), min(ys), max(xs), max(ys))))
    return out


def crossed(line: tuple[tuple[float, float], tuple[float, float]], box: tuple[float, float, float, float]) -> bool:
    """Whether the line passes through the box: a point every pixel along it is inside."""
    (x1, y1), (x2, y2) = line
    n = max(2, int(math.dist((x1, y1), (x2, y2))))
    return any(box[0] < x1 + (x2 - x1) * k / n < box[2] and box[1] < y1 + (y2 - y1) * k / n < box[3]
               for k in range(n + 1))


def assert_labels_off_trails_and_apart(root: ET.Element) -> None:
    """No name or row of badges lies on a trail, and no two of them on each other."""
    lines = [line_ends(line) for line in trails(root).values()]
    boxes = label_boxes(root)
    for kind, owner, box in boxes:
        for line in lines:
            assert not crossed(line, box), (kind, owner, box, line)
    for i, (_, a, p) in enumerate(boxes):
        for _, b, q in boxes[i + 1:]:
            assert min(min(p[2], q[2]) - max(p[0], q[0]), min(p[3], q[3]) - max(p[1], q[1])) <= 2, (a, b)


# -- Arcane Legions: kept, cleared [AL-10.1, AL-9.1] -----------------------------------------------------------
def test_an_arcane_legions_move_keeps_where_the_unit_began_its_turn_al_10_1():
    """AL-10.1: the first move writes where the unit stood and faced; a second keeps it; a move back where it began,
    facing as it began, leaves none written (the unit as it was); an unmoved unit writes none in its file."""
    ruleset, battle = ford()
    once = moved(ruleset, battle, Move("spearmen", by=(F(2), F(-1))))
    spear = once.unit("spearmen")
    assert (spear.start_position, spear.start_facing, spear.position) == ((5, 0), 0, (7, -1))
    twice = moved(ruleset, once, Move("spearmen", by=(F(1), F(0)), turn=F(90)))
    assert (twice.unit("spearmen").start_position, twice.unit("spearmen").start_facing) == ((5, 0), 0)
    back = moved(ruleset, twice, Move("spearmen", to=(F(5), F(0)), facing=F(0)))
    assert back.unit("spearmen") == battle.unit("spearmen")
    turned = moved(ruleset, battle, Move("archers", turn=F(30)))
    assert (turned.unit("archers").start_position, turned.unit("archers").start_facing) == ((0, 0), 0)
    units = {u["id"]: u for u in ruleset.dump(once)["units"]}
    assert units["spearmen"]["start_position"] == [5, 0] and units["spearmen"]["start_facing"] == 0
    assert not {"start_position", "start_facing"} & set(units["archers"])


def test_the_end_of_a_side_s_turn_clears_where_its_units_began_al_9_1():
    """AL-9.1: ending the turn clears the start of turn of the side whose turn ends, logged; a unit of the other side
    (moved before any turn was recorded) keeps its own until its side's turn ends."""
    ruleset, battle = dump_with("ford.yaml")  # no turn recorded: any side's unit moves [AL-10.3]
    battle = moved(ruleset, battle, Move("spearmen", by=(F(2), F(-1))), Move("orc-band", by=(F(0), F(1))))
    ended, log = ruleset.end_turn(battle)
    assert ended.unit("spearmen").start_position is None and ended.unit("spearmen").start_facing is None
    assert ended.unit("orc-band").start_position == (F(1, 2), 5)  # the horde's turn has not ended
    assert "[AL-9.1] spearmen: its move this turn is over; where it stood at the start of the turn is no longer " \
           "kept" in [str(line) for line in log]
    again, log = ruleset.end_turn(ended)
    assert again.unit("orc-band").start_position is None and again.unit("orc-band").start_facing is None
    assert not any("spearmen" in str(line) and "no longer kept" in str(line) for line in log)


# -- Bushido: kept, cleared [BU-9.1, BU-8.2] -------------------------------------------------------------------
def test_a_bushido_move_keeps_where_the_model_began_the_turn_bu_9_1():
    """BU-9.1: the first move (or run) writes where the model stood; a second keeps it; a move back leaves none."""
    ruleset, battle = temple()
    once = moved(ruleset, battle, Move("yoichi", by=(F(1), F(4))))
    assert (once.unit("yoichi").start_position, once.unit("yoichi").position) == ((0, 0), (1, 4))
    twice = moved(ruleset, once, Move("yoichi", by=(F(1), F(0)), run=True))
    assert twice.unit("yoichi").start_position == (0, 0)
    back = moved(ruleset, twice, Move("yoichi", to=(F(0), F(0))))
    assert back.unit("yoichi").start_position is None and back.unit("yoichi").position == (0, 0)
    assert "start_position" not in next(u for u in ruleset.dump(battle)["units"] if u["id"] == "kenji")


def test_the_end_of_the_turn_clears_where_models_began_not_the_end_of_an_activation_bu_8_2():
    """BU-8.2: the start stays through the end of an activation (the model is still marked moved) and goes, logged,
    when the turn ends, with moved and ran."""
    ruleset, battle = temple()
    battle = moved(ruleset, battle, Move("yoichi", by=(F(1), F(4))))
    passed, _ = ruleset.end_activation(battle)
    assert passed.unit("yoichi").start_position == (0, 0) and passed.unit("yoichi").has("moved")
    ended, log = ruleset.end_turn(passed)
    assert ended.unit("yoichi").start_position is None and not ended.unit("yoichi").has("moved")
    assert "[BU-8.2] yoichi: aimed, moved, where it stood at the start of the turn cleared" in [str(x) for x in log]


# -- undone ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "uid", "by"), [("ford.yaml", "spearmen", "2,-1"), ("temple.yaml", "yoichi", "1,4")])
def test_a_move_then_its_undo_gives_the_battle_back_exactly(tmp_path, name, uid, by):
    """The start the move wrote goes with the undo: the battle written after it is the example's, key for key."""
    from rangefire.demo import example_path
    from rangefire.rulesets import load_battle
    from tests.commands import run

    log, after, back = tmp_path / "game.jsonl", tmp_path / "after.yaml", tmp_path / "back.yaml"
    run("move", str(example_path(name)), uid, "--by", by, "--log", str(log), "--out", str(after))
    ruleset, moved_battle = load_battle(after)
    assert next(u for u in ruleset.dump(moved_battle)["units"] if u["id"] == uid)["start_position"]
    run("undo", str(example_path(name)), "--log", str(log), "--out", str(back))
    ruleset, restored = load_battle(back)
    assert ruleset.dump(restored) == ruleset.dump(load_battle(example_path(name))[1])


# -- drawn: Arcane Legions [AL-10.1, AL-10.2] ------------------------------------------------------------------
def test_an_arcane_legions_unit_is_drawn_where_it_began_with_its_trail_al_10_1_al_10_2():
    """AL-10.1, AL-10.2: the moved unit's base where it began, outlined at the start position and facing; its trail
    from that base's centre, along the line to its centre now, to its base's edge (the arrow not under it), the
    distance between centres in its title; none for an unmoved unit; the legend says what both are."""
    ruleset, battle = ford()
    battle = moved(ruleset, battle, Move("spearmen", by=(F(2), F(-1))))
    spear = battle.unit("spearmen")
    root = parse(draw_battle(ruleset, battle))
    assert set(ghosts(root)) == set(trails(root)) == {"spearmen"}
    ghost = ghosts(root)["spearmen"]
    then = base_of(spear.model_copy(update={"position": (5, 0), "facing": 0}))
    (outline,) = find(ghost, "polygon", "ghost")
    for drawn, corner in zip(polygon_points(outline), then.polygon.vertices, strict=True):
        assert close(drawn, to_px(root, float(corner.x), float(corner.y)))
    assert "spearmen began its turn at (5, 0) facing 0° [AL-10.1]" in title(ghost)
    a, b = line_ends(trails(root)["spearmen"])
    centre = to_px(root, 7, -1)
    assert close(a, to_px(root, 5, 0)) and on_segment(b, a, centre)
    now = base_of(spear).polygon.box
    x0, y0 = to_px(root, float(now.x0), float(now.y1))
    x1, y1 = to_px(root, float(now.x1), float(now.y0))
    assert min(abs(b[0] - x0), abs(b[0] - x1), abs(b[1] - y0), abs(b[1] - y1)) < 0.05  # on its base's edge
    assert "from (5, 0) facing 0° to (7, -1) facing 0°: 2.24 steps between base centres [AL-10.1, AL-10.2]" in \
        title(trails(root)["spearmen"])
    (legend,) = find(root, "g", "legend")
    said = " ".join(t.text or "" for t in legend.iter(SVG + "text"))
    assert "where it stood at the start of its turn [AL-10.1]" in said
    assert "its move this turn, base centre to base centre [AL-10.2]" in said


def test_an_arcane_legions_unit_that_only_turned_is_outlined_without_a_trail_al_10_1():
    ruleset, battle = ford()
    root = parse(draw_battle(ruleset, moved(ruleset, battle, Move("archers", turn=F(30)))))
    assert set(ghosts(root)) == {"archers"} and not trails(root)
    assert find(ghosts(root)["archers"], "line", "ghost-front")  # the facing it began with


def test_a_trail_coming_at_the_front_stops_short_of_the_facing_arrow_al_10_2():
    """The archers step back 3: their trail comes down at their front; its arrow ends before the facing arrow's
    tip, not over it."""
    ruleset, battle = ford()
    root = parse(draw_battle(ruleset, moved(ruleset, battle, Move("archers", by=(F(0), F(-3))))))
    (facing,) = [line for g in find(root, "g", "unit") if g.get("data-id") == "archers"
                 for line in find(g, "line", "facing")]
    tip = line_ends(facing)[1]
    _, end = line_ends(trails(root)["archers"])
    assert end[1] < tip[1] - 8  # above the tip (y runs down the picture), by more than the arrowhead


def test_after_the_end_of_the_turn_no_trail_is_drawn_al_9_1():
    ruleset, battle = ford()
    battle = moved(ruleset, battle, Move("spearmen", by=(F(2), F(-1))))
    ended, _ = ruleset.end_turn(battle)
    root = parse(draw_battle(ruleset, ended))
    assert not trails(root) and not ghosts(root)


# -- drawn: Bushido [BU-9.1, BU-9.2] ---------------------------------------------------------------------------
def test_a_bushido_model_is_drawn_where_it_began_with_its_trail_bu_9_1_bu_9_2():
    """BU-9.1, BU-9.2: the base where the model began, a circle as big as its own at the start position; its trail
    from that centre to the edge of its base now, along the line between the centres, with the distance; a run
    says so; after the end of the turn neither is drawn."""
    ruleset, battle = temple()
    battle = moved(ruleset, battle, Move("yoichi", by=(F(1), F(4))), Move("kenji", by=(F(-3), F(-2)), run=True))
    root = parse(draw_battle(ruleset, battle))
    assert set(ghosts(root)) == set(trails(root)) == {"yoichi", "kenji"}
    scale = float(root.get("data-scale", "0"))
    yoichi = battle.unit("yoichi")
    r = float(yoichi.disc.radius) * scale
    (circle,) = find(ghosts(root)["yoichi"], "circle", "ghost")
    assert close((float(circle.get("cx", 0)), float(circle.get("cy", 0))), to_px(root, 0, 0))
    assert abs(float(circle.get("r", 0)) - r) < 0.02
    a, b = line_ends(trails(root)["yoichi"])
    centre = to_px(root, 1, 4)
    assert close(a, to_px(root, 0, 0)) and on_segment(b, a, centre) and abs(math.dist(b, centre) - r) < 0.05
    assert "yoichi moved this turn from (0, 0) to (1, 4): 4.12 in, base centre to base centre [BU-9.1, BU-9.2]" in \
        title(trails(root)["yoichi"])
    assert "kenji ran this turn from (10, 0) to (7, -2)" in title(trails(root)["kenji"])
    ended, _ = ruleset.end_turn(battle)
    after = parse(draw_battle(ruleset, ended))
    assert not trails(after) and not ghosts(after)


# -- the words kept off the trails ------------------------------------------------------------------------------
CASES = {
    "ford": ("ford.yaml", {"turn": {"number": 1, "side": "legion"}},
             [Move("archers", by=(F(0), F(-3))), Move("spearmen", by=(F(2), F(-1)))]),
    "ford-turned": ("ford.yaml", {"turn": {"number": 1, "side": "legion"}},
                    [Move("archers", by=(F(-1), F(-1)), turn=F(45)),
                     Move("spearmen", by=(F(0), F(-1)), turn=F(90))]),
    "ford-forward": ("ford.yaml", {"turn": {"number": 1, "side": "horde"}},
                     [Move("orc-band", by=(F(0), F(-1))), Move("wolf-riders", by=(F(-1), F(1)))]),
    "temple": ("temple.yaml", {}, [Move("yoichi", by=(F(0), F(3))), Move("kenji", by=(F(0), F(-3)))]),
    "temple-ran": ("temple.yaml", {}, [Move("yoichi", by=(F(-3), F(-1)), run=True), Move("kenji", to=(F(-1), F(-8)))]),
    "mist": ("mist-bridge.yaml", {}, [Move("cultist", by=(F(2), F(2))), Move("archer", by=(F(0), F(2)))]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_names_and_badges_are_kept_off_the_trails_and_apart(case):
    """A player reads each moved unit's name and badges: none lies on a trail, nor on another label."""
    name, changes, moves = CASES[case]
    ruleset, battle = dump_with(name, **changes)
    root = parse(draw_battle(ruleset, moved(ruleset, battle, *moves)))
    assert len(trails(root)) == len(moves)
    assert_labels_off_trails_and_apart(root)


# -- in the PNG ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("game", "uid", "move", "badge"), [
    ("ford", "spearmen", Move("spearmen", by=(F(2), F(-1))), "figures"),
    ("temple", "yoichi", Move("yoichi", by=(F(1), F(4))), "wounds"),
])
def test_the_png_shows_the_trail_where_the_unit_stood_and_its_badges(game, uid, move, badge):
    """The marks are drawn, not only written in the SVG: along the trail and where the unit stood the PNG differs
    from the PNG of the same battle with the start taken away, and the unit's badge has ink in its box."""
    ruleset, battle = ford() if game == "ford" else temple()
    battle = moved(ruleset, battle, move)
    plain = battle.model_copy(update={"units": tuple(
        u.model_copy(update={"start_position": None}) if u.id == uid else u for u in battle.units)})
    svg_after, svg_before = draw_battle(ruleset, battle), draw_battle(ruleset, plain)
    root, before_root = parse(svg_after), parse(svg_before)
    assert not trails(before_root)
    after_png, before_png = png_pixels(svg_after), png_pixels(svg_before)
    # the same place on the table is the same pixel in both pictures
    shift = (to_px(root, 0, 0)[0] - to_px(before_root, 0, 0)[0], to_px(root, 0, 0)[1] - to_px(before_root, 0, 0)[1])
    assert shift == (0, 0)
    a, b = line_ends(trails(root)[uid])
    for t in (0.25, 0.5, 0.75):
        x, y = a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t
        assert changed(before_png, after_png, (x - 4, y - 4, x + 4, y + 4)) > 5, t
    outline = next(el for el in ghosts(root)[uid] if el.tag in (SVG + "polygon", SVG + "circle"))
    if outline.tag == SVG + "circle":
        cx, cy, r = (float(outline.get(k, 0)) for k in ("cx", "cy", "r"))
        box = (cx - r, cy - r, cx + r, cy + r)
    else:
        xs, ys = zip(*polygon_points(outline), strict=True)
        box = (min(xs), min(ys), max(xs), max(ys))
    assert changed(before_png, after_png, box) > 100  # where it stood: outlined, filled
    (row,) = [g for g in find(root, "g", "badges") if g.get("data-for") == uid]
    rects = [g.find(SVG + "rect") for g in find(row, "g", "badge") if g.get("data-mark") == badge]
    x, y, w, h = (float(rects[0].get(k, 0)) for k in ("x", "y", "width", "height"))
    assert dark(after_png, (x + 3, y + 3, x + w - 3, y + h - 3)) > 20  # its word, inside the box's outline
