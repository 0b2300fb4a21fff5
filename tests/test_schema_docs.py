"""The docs name what the code names: every top-level key of each game's scenario in the README's scenario
format, and every error kind with its exit code in the command line's table (issue 23)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rangefire.cli.schema import error_kinds
from rangefire.core import RangefireError
from rangefire.rulesets import RULESETS

ROOT = Path(__file__).resolve().parents[1]


def _section(text: str, title: str) -> str:
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else None]


@pytest.mark.parametrize("ruleset", RULESETS, ids=lambda r: r.key)
def test_the_readme_names_every_top_level_key_of_a_scenario(ruleset):
    said = _section((ROOT / "README.md").read_text(), "Scenario files")
    for key in ruleset.battle_model.model_fields:
        assert f"`{key}`" in said or f"`{key}:" in said or f"\n{key}:" in said, key


def _exit_codes() -> dict[str, int]:
    """Each error kind's exit code, from the error classes (the modules that declare one loaded)."""
    error_kinds()
    codes: dict[str, int] = {"usage": 2}
    classes: list[type[RangefireError]] = [RangefireError]
    while classes:
        klass = classes.pop()
        if klass.__module__.startswith("rangefire.web."):
            continue  # the server's own errors, loaded here only when a server test ran first
        codes[klass.kind] = klass.exit_code
        classes += klass.__subclasses__()
    return codes


def test_the_error_table_lists_every_kind_with_its_exit_code():
    rows = re.findall(r"^\| `([a-z_-]+)` \| (\d+) \|", (ROOT / "docs" / "cli.md").read_text(), re.M)
    assert dict((kind, int(code)) for kind, code in rows) == _exit_codes()
    assert len(rows) == len(set(rows))


def test_no_kind_is_spelt_otherwise_outside_the_http_server():
    """A kind is written as the code writes it (``dice_needed``, not ``dice-needed``) in every doc and docstring
    (the HTTP server's own are its concern)."""
    kinds = set(error_kinds()) | {"dice_needed"}
    spelt = {kind.replace("_", "-") for kind in kinds if "_" in kind}
    paths = [*ROOT.glob("*.md"), *(ROOT / "docs").glob("*.md"), *(ROOT / "src" / "rangefire").rglob("*.py")]
    for path in paths:
        if "web" in path.relative_to(ROOT).parts:
            continue
        text = path.read_text()
        for wrong in spelt:
            assert f"`{wrong}`" not in text and f" {wrong} " not in text, (path, wrong)
