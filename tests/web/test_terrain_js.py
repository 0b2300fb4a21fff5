"""The set-up page's terrain (static/terrain.js) against the library, run in Node: a polygon the page refuses
before sending it is exactly one a scenario refuses (rangefire.geometry.exact.Polygon: a simple polygon of positive
area, DC-1.3, AL-1, BU-1.4), the corners it sends are read by the server as the numbers typed or dragged
(rangefire.core.numbers.parse_exact), and a piece dragged has its corners moved exactly."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from rangefire.core.numbers import parse_exact
from rangefire.geometry.exact import GeometryError, Point, Polygon

TERRAIN_JS = Path(__file__).resolve().parents[2] / "src" / "rangefire" / "web" / "static" / "terrain.js"
NODE = shutil.which("node")

_PROGRAM = """
import { cornersText, exactOf, exactValue, parseCorners, polygonProblem, shifted } from %s;
const cases = JSON.parse(await new Promise((done) => { let t = ""; process.stdin.on("data", (c) => t += c);
  process.stdin.on("end", () => done(t)); }));
const read = (text) => {
  try { return polygonProblem(parseCorners(text)); } catch (e) { return `unread: ${e.message}`; }
};
const out = {
  problems: cases.polygons.map(read),
  numbers: cases.numbers.map((t) => exactValue(exactOf(t))),
  texts: cases.polygons.map((t) => cornersText(parseCorners(t))),
  shifted: cases.shifts.map(([t, dx, dy]) => shifted(parseCorners(t), exactOf(dx), exactOf(dy))
    .map(([x, y]) => [exactValue(x), exactValue(y)])),
};
console.log(JSON.stringify(out));
"""

pytestmark = pytest.mark.skipif(NODE is None, reason="Node.js runs the page's modules here; it is not on this machine")

#: Coordinates a player types or a drag gives: whole, halves, thirds, decimals.
VALUES = ["0", "1", "2", "3", "1/2", "3/2", "1/3", "2/3", "2.5", "0.1", "-1"]


def run(cases: dict[str, Any], tmp_path: Path) -> dict[str, Any]:
    program = tmp_path / "terrain.mjs"
    program.write_text(_PROGRAM % json.dumps(TERRAIN_JS.as_uri()))
    assert NODE is not None
    done = subprocess.run([NODE, str(program)], input=json.dumps(cases), capture_output=True, text=True,
                          timeout=120, check=True)
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def refused_by_the_library(corners: list[tuple[str, str]]) -> bool:
    try:
        Polygon(tuple(Point(parse_exact(x), parse_exact(y)) for x, y in corners))
    except GeometryError:
        return True
    return False


def text(corners: list[tuple[str, str]]) -> str:
    return " ".join(f"{x},{y}" for x, y in corners)


def test_the_page_refuses_the_polygons_the_scenario_refuses(tmp_path: Path) -> None:
    rng = random.Random(21)
    named = [
        [("0", "0"), ("6", "0"), ("6", "4"), ("0", "4")],                    # a rectangle
        [("0", "0"), ("6", "0"), ("0", "4"), ("6", "4")],                    # a bow tie: its sides cross
        [("0", "0"), ("2", "0"), ("1", "0"), ("1", "1")],                    # a side turning back over the last
        [("0", "0"), ("1", "1"), ("2", "2")],                                # on one line
        [("0", "0"), ("0", "0"), ("1", "1"), ("0", "1")],                    # a corner twice
        [("0", "0"), ("2", "0"), ("4", "0"), ("4", "2")],                    # a straight corner: allowed
        [("0", "0"), ("4", "0"), ("4", "4"), ("2", "0"), ("0", "4")],        # a corner touching a side
        [("0", "0"), ("1/3", "0"), ("1", "1")],
        [("0", "0"), ("1", "0")],                                            # two corners
    ]
    polygons = named + [[(rng.choice(VALUES), rng.choice(VALUES)) for _ in range(rng.randint(3, 7))]
                        for _ in range(3000)]
    out = run({"polygons": [text(p) for p in polygons], "numbers": [], "shifts": []}, tmp_path)
    page = [problem is not None for problem in out["problems"]]
    library = [refused_by_the_library(p) for p in polygons]
    assert page == library
    assert 0.1 < sum(library) / len(library) < 0.9  # both verdicts well represented: the test can tell them apart
    assert page[:7] == [False, True, True, True, True, False, True]
    assert "crosses" in out["problems"][1] and "turns back" in out["problems"][2] and "again" in out["problems"][4]
    assert "at least 3 corners" in out["problems"][8]
    # written back as the page writes them, each corner reads as it was typed
    for polygon, written in zip(polygons, out["texts"], strict=True):
        back = [pair.split(",") for pair in written.split()]
        assert [(parse_exact(x), parse_exact(y)) for x, y in back] == \
            [(parse_exact(x), parse_exact(y)) for x, y in polygon]


def test_the_numbers_sent_are_read_as_typed_and_drags_move_corners_exactly(tmp_path: Path) -> None:
    rng = random.Random(5)
    fractions = [Fraction(rng.randint(-10**6, 10**6), rng.choice([1, 2, 4, 5, 8, 10, 3, 7, 1000, 1024, 3 * 2**20]))
                 for _ in range(600)]
    numbers = ["10.1", "-2.50", ".5", "1/3", "-7/21", "0.000001", "123456.789", "0"]
    numbers += [f"{f.numerator}/{f.denominator}" for f in fractions]
    numbers += [f"{float(f):.6f}" for f in fractions]
    shifts = [(text([(rng.choice(VALUES), rng.choice(VALUES)) for _ in range(4)]), rng.choice(["0.5", "-1.5", "3"]),
               rng.choice(["-0.5", "2", "1/2"])) for _ in range(200)]
    out = run({"polygons": [], "numbers": numbers, "shifts": shifts}, tmp_path)
    for typed, sent in zip(numbers, out["numbers"], strict=True):
        assert parse_exact(sent) == parse_exact(typed), (typed, sent)
        if Fraction(typed).denominator in (1, 2, 4, 5, 8, 10):  # a short decimal goes as a JSON number
            assert isinstance(sent, int | float), (typed, sent)
    for (corners, dx, dy), moved in zip(shifts, out["shifted"], strict=True):
        expected = [(parse_exact(x) + parse_exact(dx), parse_exact(y) + parse_exact(dy))
                    for x, y in (pair.split(",") for pair in corners.split())]
        assert [(parse_exact(x), parse_exact(y)) for x, y in moved] == expected
