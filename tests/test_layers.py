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


#: The server's modules in the order a request's work goes through them, from the routes down: each imports only
#: from the layers below its own, so that no module the service uses calls back into it, nor into its peers. The
#: server's helpers (``WEB_BELOW``: the store, errors, bodies, answers...) import none of these.
WEB_LAYERS = [
    {"app"},
    {"gate"},
    {"service", "engine"},
    {"attacks", "moves", "undo", "events"},
    {"questions", "ledger"},
    {"pending"},
    {"loaded", "games"},
]
WEB_BELOW = {"answer", "bodies", "contract", "docs", "dumps", "errors", "estimate", "guard", "kept", "migrations",
             "protocol", "relay", "store", "store_pg", "tally"}


def imported_web(path: Path) -> set[str]:
    """The server's modules a module of it imports (at its top, in a function, or for its types alike)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module == "rangefire.web":
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("rangefire.web."):
            names.add(node.module.split(".")[2])
    return names


def test_a_request_goes_one_way_through_the_server():
    layer = {name: i for i, names in enumerate(WEB_LAYERS) for name in names}
    files = {path.stem: path for path in (SRC / "web").glob("*.py") if path.stem != "__init__"}
    assert set(files) == set(layer) | WEB_BELOW, "place each module of the server in WEB_LAYERS or WEB_BELOW"
    for name, path in files.items():
        imported = imported_web(path) - {name}
        if name in WEB_BELOW:
            assert not imported & set(layer), f"web/{name}.py imports {imported & set(layer)}"
            continue
        upward = {other for other in imported if other in layer and layer[other] <= layer[name]}
        assert not upward, f"web/{name}.py imports {upward}: from its own layer or above"


def test_dice_and_geometry_never_name_a_game():
    for layer in ("dice", "geometry", "core"):
        for path in (SRC / layer).rglob("*.py"):
            text = path.read_text().lower()
            assert not re.search(r"dress on the colors|dress-on-the-colors|bushido|arcane|swerve", text), path
