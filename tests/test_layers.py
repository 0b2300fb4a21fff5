"""Imports flow one way (design section 1): core <- dice, geometry <- scenario, rulesets <- draw <- analysis <- cli,
web."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "rangefire"
#: What each layer may import from rangefire.
ALLOWED = {
    "core": {"core"},
    "dice": {"core", "dice"},
    "geometry": {"core", "geometry"},
    "scenario": {"core", "dice", "geometry", "scenario"},
    "rulesets": {"core", "dice", "geometry", "scenario", "rulesets"},
    "draw": {"core", "dice", "geometry", "scenario", "rulesets", "draw"},
    "record": {"core", "dice", "geometry", "scenario", "rulesets", "record"},
    "analysis": {"core", "dice", "geometry", "scenario", "rulesets", "draw", "record", "analysis"},
    "demo": {"core", "dice", "geometry", "scenario", "rulesets", "draw", "record", "analysis", "demo"},
    # the server: everything below the command line, never the command line
    "web": {"core", "dice", "geometry", "scenario", "rulesets", "draw", "record", "analysis", "demo", "web"},
}


def imported_layers(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("rangefire."):
            names.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            names.update(a.name.split(".")[1] for a in node.names if a.name.startswith("rangefire."))
    return names


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_layer_imports_only_below(layer):
    files = [SRC / f"{layer}.py"] if (SRC / f"{layer}.py").exists() else sorted((SRC / layer).rglob("*.py"))
    assert files
    for path in files:
        extra = imported_layers(path) - ALLOWED[layer]
        assert not extra, f"{path.relative_to(SRC)} imports {extra}"


def test_dice_and_geometry_never_name_a_game():
    for layer in ("dice", "geometry", "core"):
        for path in (SRC / layer).rglob("*.py"):
            text = path.read_text().lower()
            assert not re.search(r"dress on the colors|dress-on-the-colors|bushido|arcane|swerve", text), path
