"""Battles drawn: a battle (and an attacker's checks) as a to-scale SVG picture, or a PNG of it.

>>> from rangefire.demo import example_path
>>> from rangefire.rulesets import load_battle
>>> ruleset, battle = load_battle(example_path("wheatfield.yaml"))
>>> svg = draw_battle(ruleset, battle, attacker="15th-alabama")   # the rules choose the target
>>> 'class="line-of-fire hindered' in svg, svg.count('<g class="unit')
(True, 6)
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from rangefire.core import Attack, Check, ChoiceError, RangefireError, Ruleset
from rangefire.core.scene import Scene
from rangefire.draw.svg import render_svg
from rangefire.rulesets.arcane_legions import scene as arcane_legions_scene
from rangefire.rulesets.bushido import scene as bushido_scene
from rangefire.rulesets.dress_on_the_colors import scene as dress_on_the_colors_scene
from rangefire.rulesets.swerve import scene as swerve_scene
from rangefire.scenario.files import atomic_write_bytes

#: A PNG's longest side in pixels at most: a larger table is drawn scaled down to fit (cairo refuses a surface
#: past 32,767 pixels, and one near that holds gigabytes; 8,000 a side took 5 s to compress, most of it white).
MAX_PNG_SIDE = 4000
#: Nor is one drawn whose short side would be less than this once fitted (a unit a million steps along a
#: ford's narrow table): nothing of it could be seen, and cairo refuses a side under a pixel.
MIN_PNG_SIDE = 20

#: The picture's size in pixels, as the SVG's root element gives it.
_SIZE = re.compile(r'<svg [^>]*?width="([0-9.]+)" height="([0-9.]+)"')

SceneFunction = Callable[[Any, Check | None, Sequence[Check] | None, Mapping[str, object]], Scene]

#: Each game's drawing, by ruleset key (an attacker's checks run against ``Ruleset.enemies``). The one place
#: that ties a game to its drawing.
SCENES: dict[str, SceneFunction] = {
    "dress-on-the-colors": dress_on_the_colors_scene.scene,
    "arcane-legions": arcane_legions_scene.scene,
    "bushido": bushido_scene.scene,
    "swerve": swerve_scene.scene,
}


def battle_scene(ruleset: Ruleset[Any, Any], battle: Any, attacker: str | None = None,
                 target: str | None = None, choices: Mapping[str, object] | None = None) -> Scene:
    """The scene of a battle: with an attacker, the check of every enemy marked legal or refused (with the
    clause); with a target, or where the rules choose the target themselves, that check's line drawn, with the
    player's ``choices`` made (an Arcane Legions side, an order: the line is the attack's as it would be made).
    The other enemies are marked as the engine checks them unchosen: a choice is the chosen target's."""
    try:
        game_scene = SCENES[ruleset.key]
    except KeyError:
        raise RangefireError(f"no drawing for the ruleset {ruleset.key!r}") from None

    def make(battle: Any, check: Check | None, checks: Sequence[Check] | None, chosen: Mapping[str, object]) -> Scene:
        return _whole_table(battle, game_scene(battle, check, checks, chosen))

    chosen = next(iter(choices or {}), None)
    if attacker is None:
        if target is not None:
            raise RangefireError("a target needs an attacker: name the attacker too")
        if chosen is not None:
            raise ChoiceError(chosen, f"{chosen}: a choice is made for an attack: name the attacker too")
        return make(battle, None, None, {})
    if chosen is not None and target is None and ruleset.chooses_target is None:
        raise ChoiceError(chosen, f"{chosen}: a choice is made for an attack on a target: name the target too")
    # an unknown id or a choice the game does not declare is bad input, raised
    check: Check | None = ruleset.check(battle, ruleset.attack(attacker, target, choices or {}))
    if target is None and check is not None and not check.is_legal:
        check = None  # the rules chose no target: nothing to draw a line to
    checks = ruleset.check_many(battle, [Attack(attacker, uid) for uid in ruleset.enemies(battle, attacker)])
    if chosen is not None and check is not None:
        # the chosen target is marked as the attack chosen is checked (from the side chosen it may be refused),
        # unless a nomination has moved that attack to another model, which keeps its own mark
        checks = [check if c.target == check.target == target else c for c in checks]
    return make(battle, check, checks, choices or {})


def _whole_table(battle: Any, scene: Scene) -> Scene:
    """A battle that gives its table's size (``table: {width, depth}``, its corner at the origin) is drawn with all
    of the table in the picture, not only around its pieces: an empty table being set up shows where units and
    terrain may go, and a table's edge a move may not cross (DC-10.2, AL-10.1, BU-9.2) is in sight."""
    table = getattr(battle, "table", None)
    if table is None:
        return scene
    x0, y0, x1, y1 = scene.bounds if scene.items else (0.0, 0.0, 0.0, 0.0)
    bounds = (min(x0, 0.0), min(y0, 0.0), max(x1, float(table.width)), max(y1, float(table.depth)))
    return dataclasses.replace(scene, bounds=bounds)


def draw_battle(ruleset: Ruleset[Any, Any], battle: Any, attacker: str | None = None,
                target: str | None = None, choices: Mapping[str, object] | None = None) -> str:
    """The battle as SVG text (see :func:`battle_scene` for what is marked)."""
    return render_svg(battle_scene(ruleset, battle, attacker, target, choices))


def svg_to_png(svg_text: str) -> bytes:
    """The picture as PNG bytes, through cairosvg (imported only when a PNG is asked for)."""
    try:
        import cairosvg  # type: ignore[import-untyped]
    except (ImportError, OSError):  # OSError: cairocffi found no cairo library on the machine
        raise RangefireError("writing a PNG needs the Python package cairosvg and the cairo library; "
                             "write .svg instead") from None
    size = _SIZE.search(svg_text)
    width, height = (float(size[1]), float(size[2])) if size else (0.0, 0.0)
    # a table too large for a picture at the game's scale (a unit a million inches away) is drawn smaller
    scale = min(1.0, MAX_PNG_SIDE / max(width, height, 1.0))
    if size and min(width, height) * scale < MIN_PNG_SIDE:  # cairosvg: "The SVG size is undefined"
        raise RangefireError(f"the picture is {width:,.0f} x {height:,.0f} pixels at the game's scale: too long and "
                             f"thin for a PNG (at most {MAX_PNG_SIDE:,} pixels a side, its short side would be "
                             f"{min(width, height) * scale:.2g}); write .svg instead")
    cairo_error = getattr(cairosvg.surface.cairo, "CairoError", MemoryError)
    try:
        png = cairosvg.svg2png(bytestring=svg_text.encode("utf-8"), scale=scale)
    except (MemoryError, ValueError, OverflowError, cairo_error) as exc:
        raise RangefireError(f"the picture could not be drawn as PNG ({type(exc).__name__}); write .svg "
                             "instead") from None
    assert isinstance(png, bytes)
    return png


def write_drawing(svg_text: str, path: str | Path) -> None:
    """Write the picture to ``path``: ``.svg`` as it is, ``.png`` rendered; atomically, as scenarios are
    written (:func:`~rangefire.scenario.files.atomic_write_bytes`), so a failure leaves any old file whole."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".svg":
        data = svg_text.encode("utf-8")
    elif suffix == ".png":
        data = svg_to_png(svg_text)
    else:
        raise RangefireError(f"{path}: a drawing is written as .svg or .png, not {suffix or 'a file without one'}")
    atomic_write_bytes(path, data)


__all__ = ["MAX_PNG_SIDE", "SCENES", "battle_scene", "draw_battle", "render_svg", "svg_to_png", "write_drawing"]
