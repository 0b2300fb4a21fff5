"""Every figure of an answer for people whole at any terminal width, down to 24 columns: the tables of figures
(``rangefire.cli.figures``) narrow by wrapping their keys and putting what does not fit in a table after, never
by cutting a figure ("72.0…") or folding it inside a number ("15.6" over "%"). Each answer at a narrow terminal
holds the same figures as at a wide one, each whole, and the figures worked out here from the JSON's exact
fractions."""

from __future__ import annotations

import json
import re
from collections import Counter
from fractions import Fraction
from functools import cache
from pathlib import Path

import pytest

from tests.commands import run

ROOT = Path(__file__).resolve().parent.parent
WHEATFIELD = str(ROOT / "examples" / "wheatfield.yaml")
WIDTHS = (24, 30, 40, 80)
#: a figure as a word of the answer: a share, a decimal, an interval, a fraction (a name like 15th-alabama is none)
FIGURE = re.compile(r"[<>(]?[\d.,/%\-−+±]*\d[\d.,/%\-−+±]*\)?,?")


@cache
def shown(args: tuple[str, ...], columns: int) -> str:
    return run(*args, columns=columns).stdout


def figures(text: str) -> Counter[str]:
    return Counter(word for word in text.split() if FIGURE.fullmatch(word))


def percent(p: Fraction) -> str:
    """A share to hundredths of a percent as people read it, half to even (0 and 1 whole, ``<0.01%``)."""
    if p in (0, 1):
        return f"{int(p * 100)}%"
    x = round(p * 100, 2)
    return "<0.01%" if x == 0 else ">99.99%" if x == 100 else f"{float(x):.2f}%"


def assert_whole(args: tuple[str, ...], columns: int) -> str:
    """The answer at ``columns`` fits them, cuts nothing and holds the figures of the answer at 200 columns (and
    besides them only keys, whole numbers, repeated in a table after)."""
    narrow, wide = shown(args, columns), shown(args, 200)
    assert all(len(line) <= columns for line in narrow.splitlines()), narrow
    assert "…" not in narrow, narrow
    assert not figures(wide) - figures(narrow), (figures(wide) - figures(narrow), narrow)
    assert all(word.isdigit() for word in figures(narrow) - figures(wide)), figures(narrow) - figures(wide)
    return narrow


DUEL = ("duel", WHEATFIELD, "15th-alabama", "20th-maine", "--turns", "4")


@pytest.mark.parametrize("columns", WIDTHS)
@pytest.mark.parametrize("samples", [(), ("--samples", "400", "--seed", "3")], ids=["exact", "sampled"])
def test_every_table_of_the_duel_keeps_its_figures_whole(columns, samples):
    """How it ends, the turn of the end and what is left of each, with the Monte Carlo beside them or without:
    every share of the exact odds (each end, each turn, exactly and at least N left) is there whole."""
    narrow = assert_whole((*DUEL, *samples), columns)
    data = json.loads(run(*DUEL, "--json").stdout)
    expected = Counter(percent(Fraction(p)) for p in data["winner"].values())
    for dist in (data["turns"]["distribution"], data["left"]["a"]["distribution"],
                 data["left"]["b"]["distribution"]):
        tail = Fraction(1)
        for _, p in sorted(dist.items(), key=lambda kv: int(kv[0])):
            expected[percent(Fraction(p))] += 1
            expected[percent(tail)] += 1  # at least N
            tail -= Fraction(p)
    assert not expected - figures(narrow), expected - figures(narrow)
    if samples:  # each sampled share beside its interval, each whole
        intervals = [f"({lo:.1%}-{hi:.1%})" for lo, hi in json.loads(
            run(*DUEL, *samples, "--json").stdout)["monte_carlo"]["intervals"].values()]
        assert all(interval in narrow.split() for interval in intervals), intervals


@pytest.mark.parametrize("columns", WIDTHS)
def test_the_monte_carlo_alone_keeps_its_figures_whole(tmp_path_factory, columns):
    """A duel too large to answer exactly, answered by its Monte Carlo alone: its ends, their intervals and what
    is left of each, whole."""
    path = tmp_path_factory.getbasetemp() / "fifty.json"
    if not path.exists():
        path.write_text(json.dumps({"ruleset": "dress-on-the-colors", "units": [
            {"id": u, "side": side, "stands": 50, "weapon": "rifled-musket", "formation": "line",
             "position": [0, y], "facing": facing}
            for u, side, y, facing in (("F", "blue", 0, 0), ("T", "grey", 6, 180))]}))
    args = ("duel", str(path), "F", "T", "--turns", "2", "--samples", "300", "--seed", "4")
    narrow = assert_whole(args, columns)
    data = json.loads(run(*args, "--json").stdout)["monte_carlo"]
    intervals = [f"{lo:.1%}-{hi:.1%}" for lo, hi in data["intervals"].values()]
    assert all(interval in narrow.split() for interval in intervals), intervals
    assert "no exact odds" in narrow
