"""Packaging as the ecosystem expects (issue 11): metadata with an SPDX license and no deprecation warnings when
building; a wheel that installs into a fresh virtual environment and runs from a folder outside the checkout.

The wheel test builds from a copy of the checkout (a build leaves ``build/`` and ``*.egg-info`` behind); pip
takes the build backend and the dependencies from its cache or the package registry."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import rangefire

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
LEFT_OUT = shutil.ignore_patterns(".git", ".venv", "__pycache__", "build", "dist", "*.egg-info", "site", ".*_cache",
                                  ".hypothesis", "out")


def test_the_metadata_says_its_license_as_spdx():
    project = PYPROJECT["project"]
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"] and (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert not any("License ::" in c for c in project.get("classifiers", []))  # the expression says it alone
    assert "setuptools>=77" in PYPROJECT["build-system"]["requires"]  # the first to read license expressions
    assert project["dynamic"] == ["version"]  # one version, rangefire.__version__


def _clean_env() -> dict[str, str]:
    """The environment without this checkout on the path, and with bytecode written as a user's would be."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "VIRTUAL_ENV")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def test_the_wheel_installs_into_a_fresh_environment_and_runs_outside_the_checkout(tmp_path):
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=LEFT_OUT)
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "-w", str(tmp_path / "dist"),
                            str(source)], capture_output=True, text=True, timeout=300, env=_clean_env())
    log = build.stdout + build.stderr
    assert build.returncode == 0, log[-3000:]
    assert not re.search(r"deprecat", log, re.IGNORECASE), [ln for ln in log.splitlines() if "eprecat" in ln]
    (wheel,) = (tmp_path / "dist").glob("rangefire-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = archive.read(f"rangefire-{rangefire.__version__}.dist-info/METADATA").decode()
    assert "License-Expression: MIT" in metadata and "License-File: LICENSE" in metadata
    assert f"Version: {rangefire.__version__}" in metadata
    assert "rangefire/examples/wheatfield.yaml" in names and "rangefire/py.typed" in names
    assert not any(name.startswith("tests/") for name in names)
    page = sorted(f"rangefire/web/static/{f.name}" for f in (ROOT / "src/rangefire/web/static").iterdir())
    assert page and set(page) <= set(names), sorted(set(page) - set(names))  # the served page travels with the wheel

    # a fresh environment without a pip of its own (copying one in is a quarter of the test's time): this pip
    # installs the wheel and its dependencies into it
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120,
                   env=_clean_env())
    python = venv / "bin" / "python"
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
                              "--no-compile", str(wheel)], capture_output=True, text=True, timeout=600,
                             env=_clean_env())
    assert install.returncode == 0, install.stderr[-3000:]

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    script = str(venv / "bin" / "rangefire")
    where = subprocess.run([str(python), "-c", "import rangefire; print(rangefire.__file__)"], cwd=elsewhere,
                           capture_output=True, text=True, check=True, env=_clean_env()).stdout
    assert where.startswith(str(venv)), where
    version = subprocess.run([script, "--version"], cwd=elsewhere, capture_output=True, text=True, timeout=60,
                             env=_clean_env())
    assert version.returncode == 0 and version.stdout.strip() == f"rangefire {rangefire.__version__}"
    demo = subprocess.run([script, "demo"], cwd=elsewhere, capture_output=True, text=True, timeout=120,
                          env={**_clean_env(), "COLUMNS": "120"})
    assert demo.returncode == 0, demo.stderr
    assert "Traceback" not in demo.stderr and "attack 1" in demo.stdout
