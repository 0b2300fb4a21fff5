"""The API reference (issue 11): ``mkdocs build --strict`` passes (every reference resolves, every page is in
the navigation), the pages hold the library's API, and the command line's JSON errors are all documented.
The Python examples in docs/*.md are doctests (pytest's ``--doctest-glob``), as are the README's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

from rangefire.core import errors

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def _nav_files(nav: list[object]) -> list[str]:
    found: list[str] = []
    for item in nav:
        for value in (item.values() if isinstance(item, dict) else [item]):
            found.extend(_nav_files(value) if isinstance(value, list) else [str(value)])
    return found


def test_the_docs_build_strictly(tmp_path):
    site = tmp_path / "site"
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"),
                           "-d", str(site)], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "WARNING" not in proc.stderr
    core = (site / "core" / "index.html").read_text(encoding="utf-8")
    for name in ("error_data", "ScenarioError", "Odds", "Resolution", "OddsOutput", "check_output"):
        assert name in core, name
    assert "language-pycon" in core  # the docstrings' doctests shown as code, not as Markdown quotations
    for page, names in {"ruleset": ("Ruleset", "Choice", "allowed_values"), "rulesets": ("find_ruleset", "RULESETS"),
                        "dice": ("SeededSource", "EnteredSource"), "record": ("replay", "append_action")}.items():
        html = (site / page / "index.html").read_text(encoding="utf-8")
        assert all(name in html for name in names), page
    assert not list(ROOT.glob("site"))  # built where told, not into the checkout


def test_every_page_is_in_the_navigation_and_exists():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    listed = _nav_files(config["nav"])
    pages = sorted(p.name for p in DOCS.glob("*.md"))
    assert sorted(listed) == pages


def test_every_error_kind_is_documented():
    kinds = {"usage"} | {cls.kind for cls in vars(errors).values()
                         if isinstance(cls, type) and issubclass(cls, errors.RangefireError)}
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    assert len(kinds) >= 9
    assert [k for k in sorted(kinds) if f"| `{k}` |" not in text] == []
