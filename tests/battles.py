"""Battles built for tests and benchmarks: many units, seeded, so that a figure or a verdict can be repeated."""

from __future__ import annotations

import random
from typing import Any

from rangefire.rulesets import battle_from_mapping


def arcane_lines(seed: int, units: int, pieces: int, *, spacing: float, rows: tuple[tuple[float, float], ...],
                 field: tuple[float, float, float, float], piece: tuple[float, float]) -> Any:
    """Arcane Legions units in two lines facing each other (``units`` in all, half a side, ``spacing`` apart,
    each line's depth a range of ``rows``), ``pieces`` of hindering and blocking terrain strewn over ``field``
    (x from, x to, y from, y to) between them, each a quadrilateral ``piece`` (width, depth) in size."""
    rng = random.Random(seed)
    half, (width, depth) = units // 2, piece
    made = []
    for i in range(units):
        side = "red" if i < half else "blue"
        y = rng.uniform(*rows[0]) if side == "red" else rng.uniform(*rows[1])
        made.append({"id": f"u{i}", "side": side, "base": rng.choice(["sortie", "formation"]),
                     "position": [round(i % half * spacing, 2), round(y, 2)], "facing": 0 if side == "red" else 180,
                     "sides": {"front": "blue", "right": "grey", "back": "grey", "left": "red"},
                     "slots": [{"icons": ["blue", "white"]}] * 3})
    terrain = []
    for j in range(pieces):
        x, y = round(rng.uniform(field[0], field[1]), 2), round(rng.uniform(field[2], field[3]), 2)
        terrain.append({"id": f"t{j}", "kind": rng.choice(["hindering", "blocking"]),
                        "polygon": [[x, y], [x + width, y], [x + width * 1.2, y + depth * 4 / 3], [x, y + depth]]})
    return battle_from_mapping({"ruleset": "arcane-legions", "units": made, "terrain": terrain,
                                "players": {"red": {"order_points": 99}, "blue": {"order_points": 99}}})[1]
