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


def percent(p: Fraction, places: int = 2) -> str:
    """A share to ``places`` decimals of a percent as people read it, half to even (0 and 1 whole, ``<0.01%``)."""
    if p in (0, 1):
        return f"{int(p * 100)}%"
    x, least = round(p * 100, places), f"{10 ** -places:.{places}f}"
    return f"<{least}%" if x == 0 else f">{100 - float(least):.{places}f}%" if x == 100 else f"{float(x):.{places}f}%"


def assert_whole(args: tuple[str, ...], columns: int, *, every: bool = True) -> str:
    """The answer at ``columns`` fits them, cuts nothing and holds the figures of the answer at 200 columns (and
    besides them only keys, whole numbers, repeated in a table after); with ``every`` false, some of them (a
    table that leaves columns to its files where the terminal has no room for them)."""
    narrow, wide = shown(args, columns), shown(args, 200)
    assert all(len(line) <= columns for line in narrow.splitlines()), narrow
    assert "…" not in narrow, narrow
    found, missing = figures(narrow), figures(wide) - figures(narrow)
    for fraction in [f for f in missing.elements() if "/" in f]:  # parted after its slash: its two parts whole
        numerator, denominator = fraction.split("/")
        assert found[f"{numerator}/"] and found[denominator], (fraction, narrow)
        found -= Counter([f"{numerator}/", denominator])
        missing -= Counter([fraction])
    assert not missing or not every, (missing, narrow)
    assert all(word.isdigit() for word in found - figures(wide)), found - figures(wide)
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


COMPARE = ("compare", WHEATFIELD, "-a", "15th-alabama", "--variant", "cover3:options.cover_save.heavy=3",
           "--variant", "light-wall:terrain.stone-wall.kind=light")
TABLE = ("table", WHEATFIELD, "-a", "15th-alabama", "--vary", "units.15th-alabama.stands=4,6,8",
         "--vary", "units.15th-alabama.position=[10,5],[10,12],[10,18]")
ODDS = ("odds", WHEATFIELD, "-a", "15th-alabama")


@pytest.mark.parametrize("columns", WIDTHS)
@pytest.mark.parametrize("args", [COMPARE, TABLE, ODDS], ids=["compare", "table", "odds"])
def test_the_designers_tables_keep_their_figures_whole(args, columns):
    """compare (each value beside its difference), table (the values varied as keys, means and shares) and odds
    (each share beside its exact fraction, a fraction parted after its slash at the narrowest)."""
    narrow = assert_whole(args, columns, every=args is not TABLE)
    if args is TABLE:  # the means and the events of every row, whole, whatever else the width leaves out
        rows = json.loads(run(*TABLE, "--json").stdout)["rows"]
        expected = Counter(f"{float(Fraction(outcome['mean'])):.3f}" for row in rows
                           for outcome in row["outcomes"].values())
        expected += Counter(percent(Fraction(p), 1) for row in rows for p in row["events"].values())
        assert not expected - figures(narrow), expected - figures(narrow)
    if args is ODDS:  # every exact fraction of the distributions there, whole or parted after its slash
        data = json.loads(run(*ODDS, "--json").stdout)
        words = narrow.split()
        for named in data["outcomes"].values():
            for fraction in named["distribution"].values():
                numerator, slash, denominator = fraction.partition("/")
                assert fraction in words or (slash and f"{numerator}/" in words and denominator in words), fraction
