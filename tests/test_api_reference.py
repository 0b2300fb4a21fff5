"""The API reference (``make docs``: mkdocs, strict) lists every public class, attribute and function with its type:
every name the library's packages export, each class's every public member, the games' own types and their
choices as data (issue 23)."""

from __future__ import annotations

import html
import importlib
import inspect
import re
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: The packages a program imports from, each with its ``__all__``.
PACKAGES = ("rangefire.core", "rangefire.rulesets", "rangefire.rulesets.dress_on_the_colors",
            "rangefire.rulesets.arcane_legions", "rangefire.rulesets.bushido", "rangefire.rulesets.swerve",
            "rangefire.rulesets.outputs", "rangefire.record")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The reference built as ``make docs`` builds it (``--strict``: a warning fails the build)."""
    folder = tmp_path_factory.mktemp("site")
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(folder)], cwd=ROOT,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return folder


def _inventory(site: Path) -> set[str]:
    data = (site / "objects.inv").read_bytes().split(b"\n", 4)[4]
    return {line.split(" ")[0] for line in zlib.decompress(data).decode().splitlines()}


def _public(package: str) -> list[tuple[str, list[str]]]:
    """Each exported name as the reference may write it (where it is exported, where it is defined), and, for a
    class, its public members: those it defines, and its fields."""
    module = importlib.import_module(package)
    found = []
    for name in module.__all__:
        assert hasattr(module, name), f"{package}.__all__ names {name}, which it does not hold"
        obj = getattr(module, name)
        paths = [f"{package}.{name}"]
        if inspect.isclass(obj) or inspect.isfunction(obj):
            paths.append(f"{obj.__module__}.{obj.__qualname__}")
        found.append((name, paths))
    return found


@pytest.mark.parametrize("package", PACKAGES)
def test_every_public_name_and_member_is_in_the_reference(site, package):
    listed = _inventory(site)
    module = importlib.import_module(package)
    missing = []
    for name, paths in _public(package):
        documented = [p for p in paths if p in listed]
        if not documented:
            missing.append(paths[0])
            continue
        obj = getattr(module, name)
        if inspect.isclass(obj):
            members = {m for m in [*vars(obj), *getattr(obj, "__annotations__", {})] if not m.startswith("_")}
            members -= {"model_config", "model_fields", "model_computed_fields"}
            missing += [f"{documented[0]}.{m}" for m in sorted(members)
                        if not any(f"{p}.{m}" in listed for p in documented)]
    assert not missing


def _said(site: Path, page: str, anchor: str) -> str:
    """The text of one entry of a page of the reference, as a reader sees it (without its spaces)."""
    text = (site / page / "index.html").read_text()
    start = text.index(">", text.index(f'id="{anchor}"')) + 1
    end = text.find('class="doc doc-heading"', start)
    return "".join(html.unescape(re.sub(r"<[^>]+>", " ", text[start:end])).split())


def test_the_names_and_choices_are_given_with_their_types_and_values(site):
    """``outcome_names``, ``event_names`` and the choices, with their types on the base class and each game's
    values as data."""
    assert "outcome_names:tuple[str,...]" in _said(site, "ruleset", "rangefire.core.ruleset.Ruleset.outcome_names")
    assert "event_names:tuple[str,...]" in _said(site, "ruleset", "rangefire.core.ruleset.Ruleset.event_names")
    assert "choices:tuple[Choice,...]" in _said(site, "ruleset", "rangefire.core.ruleset.Ruleset.choices")
    from rangefire.rulesets import RULESETS

    games = {"dress-on-the-colors": "dress_on_the_colors.DressOnTheColors", "arcane-legions":
             "arcane_legions.ArcaneLegions", "bushido": "bushido.Bushido", "swerve": "swerve.Swerve"}
    for ruleset in RULESETS:
        where = f"rangefire.rulesets.{games[ruleset.key]}"
        names = _said(site, "api-games", f"{where}.outcome_names")
        assert all(f"'{name}'" in names for name in ruleset.outcome_names), names
        events = _said(site, "api-games", f"{where}.event_names")
        assert all(f"'{name}'" in events for name in ruleset.event_names), events
        if ruleset.choices:
            choices = _said(site, "api-games", f"{where}.choices")
            assert all(f"\"{choice.name}\"" in choices and choice.clause in choices for choice in ruleset.choices)
