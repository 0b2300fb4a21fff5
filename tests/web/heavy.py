"""Tables as large as a battle served here may be (31 units against 31, 3,000 corners of terrain), on which the
engine's answers to a whole side take seconds: for the engine-time tests and the server's bench."""

from __future__ import annotations

import math
from typing import Any

#: Units on each side, and terrain corners in all: within the server's bounds (MAX_PIECES, MAX_TERRAIN_CORNERS).
SIDE_UNITS = 31
CORNERS = 3000


#: Corners of each piece of terrain (a scenario holds at most 200 pieces).
PIECE_CORNERS = 15


def _pieces(corners: int, x0: float, y0: float, columns: int, step: float, radius: float,
            kinds: tuple[str, ...]) -> list[dict[str, Any]]:
    """Pieces of terrain of :data:`PIECE_CORNERS` corners each (round, none touching another) on a grid, their
    kinds in turn, ``corners`` in all."""
    found = []
    for i in range(corners // PIECE_CORNERS):
        x, y = x0 + (i % columns) * step, y0 + (i // columns) * step
        ring = [[round(x + radius * math.cos(2 * math.pi * k / PIECE_CORNERS), 3),
                 round(y + radius * math.sin(2 * math.pi * k / PIECE_CORNERS), 3)] for k in range(PIECE_CORNERS)]
        found.append({"id": f"t{i}", "kind": kinds[i % len(kinds)], "polygon": ring})
    return found


def bushido(side_units: int = SIDE_UNITS, corners: int = CORNERS) -> dict[str, Any]:
    """Bushido: two lines of models on round bases with bows, solid and obscuring terrain strewn between."""
    units = []
    for i in range(2 * side_units):
        side, k = ("prefecture", i) if i < side_units else ("ito", i - side_units)
        units.append({"id": f"m{i}", "side": side, "base": 30, "rcp": 3, "position": [round(k * 3.1, 2),
                      0 if side == "prefecture" else 22], "wounds": {"boxes": 4},
                      "weapon": {"short": 8, "medium": 16, "long": 32}})
    terrain = _pieces(corners, 1.0, 6.0, 40, 2.4, 0.4, ("obscuring", "obscuring", "solid"))
    return {"ruleset": "bushido", "units": units, "terrain": terrain}


def dress_on_the_colors(side_units: int = SIDE_UNITS, corners: int = CORNERS) -> dict[str, Any]:
    """Dress on the Colors: two lines of regiments facing each other, light woods strewn between."""
    units = []
    for i in range(2 * side_units):
        side, k = ("union", i) if i < side_units else ("confederate", i - side_units)
        units.append({"id": f"r{i}", "side": side, "stands": 4, "weapon": "rifled-musket", "formation": "line",
                      "position": [k * 6, 0 if side == "union" else 30], "facing": 0 if side == "union" else 180})
    terrain = _pieces(corners, 1.0, 9.0, 40, 4.6, 0.6, ("light",))
    return {"ruleset": "dress-on-the-colors", "units": units, "terrain": terrain}
