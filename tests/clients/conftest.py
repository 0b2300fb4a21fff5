"""Shared by the generated clients' tests: a live server, its ``/openapi.json``, and Node's packages.

Node.js and npm come from Debian (``make system`` installs them where missing); the npm packages are those pinned by
``tests/clients/ts/package-lock.json``, installed once per lock file into ``build/clients/npm-<hash>/`` (git-ignored,
kept between runs), so that a run after the first installs nothing."""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from rangefire.web import create_app
from tests.web.live_server import serving

#: The user program is run by its test, against a client generated on the way: never imported by pytest.
collect_ignore = ["python_program.py"]

ROOT = Path(__file__).resolve().parents[2]
TS = Path(__file__).resolve().parent / "ts"
#: The npm packages, one folder per lock file (its hash), kept between runs.
NPM_CACHE = ROOT / "build" / "clients"
#: Node's oldest version with fetch built in, which the program and openapi-fetch use.
NODE_MAJOR = 18


@pytest.fixture(scope="session")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real server (uvicorn, as ``rangefire serve`` runs it) over a fresh database: its address."""
    folder = tmp_path_factory.mktemp("server")
    with serving(create_app(folder / "battles.sqlite3")) as address:
        yield address


@pytest.fixture(scope="session")
def openapi_file(live: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The OpenAPI document as the live server serves it, written to a file."""
    response = httpx.get(f"{live}/openapi.json", timeout=30)
    assert response.status_code == 200, response.text
    path = tmp_path_factory.mktemp("contract") / "openapi.json"
    path.write_bytes(response.content)
    return path


def required_tool(name: str) -> str:
    """The tool's path; where it is missing, the test is skipped on a developer's machine and fails under CI."""
    found = shutil.which(name)
    if found is None:
        reason = (f"{name} is not installed: `make system` (run by `make test`) installs Debian's nodejs and npm; "
                  "these tests need them")
        if os.environ.get("CI"):
            pytest.fail(f"{reason} (CI is set, so a missing tool fails)")
        pytest.skip(reason)
    return found


def node() -> str:
    """Node.js, at least version 18."""
    path = required_tool("node")
    version = subprocess.run([path, "--version"], capture_output=True, text=True, check=True).stdout.strip()
    major = re.match(r"v(\d+)\.", version)
    assert major and int(major.group(1)) >= NODE_MAJOR, f"Node.js {version} is too old: {NODE_MAJOR} or later needed"
    return path


def node_modules() -> Path:
    """The pinned npm packages installed by ``npm ci`` from the committed lock file, once per lock file."""
    npm = required_tool("npm")
    node()
    lock = (TS / "package-lock.json").read_bytes()
    manifest = (TS / "package.json").read_bytes()
    digest = hashlib.sha256(manifest + b"\0" + lock).hexdigest()[:16]
    folder = NPM_CACHE / f"npm-{digest}"
    done = folder / "installed"
    if done.exists():
        return folder / "node_modules"
    NPM_CACHE.mkdir(parents=True, exist_ok=True)
    with (NPM_CACHE / "install.lock").open("w") as lock_file:
        fcntl.flock(lock_file, fcntl.LOCK_EX)  # another test process may be installing the same packages
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            (folder / "package.json").write_bytes(manifest)
            (folder / "package-lock.json").write_bytes(lock)
            installed = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=folder,
                                       capture_output=True, text=True, timeout=600)
            assert installed.returncode == 0, f"npm ci failed (is the npm registry reachable?):\n{installed.stderr}"
            done.write_text("npm ci from the lock file of this folder's name\n")
    return folder / "node_modules"


def npx(work: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """A tool of the pinned packages (``npx --no``: never fetched on the way), run in ``work``."""
    return subprocess.run([required_tool("npx"), "--no", "--", *args], cwd=work, capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="session")
def typescript_types(openapi_file: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the pinned packages (linked) and ``openapi.d.ts``, the types openapi-typescript generates
    from the served document."""
    modules = node_modules()
    work = tmp_path_factory.mktemp("typescript")
    (work / "node_modules").symlink_to(modules, target_is_directory=True)
    (work / "package.json").write_text('{"private": true, "type": "module"}\n')
    # a body's key with a default may be left out: optional in the types (openapi-typescript's default, true,
    # would make it required)
    made = npx(work, "openapi-typescript", str(openapi_file), "--output", "openapi.d.ts",
               "--default-non-nullable", "false")
    assert made.returncode == 0, f"openapi-typescript refused the served /openapi.json:\n{made.stdout}{made.stderr}"
    (work / "openapi-typescript.log").write_text(made.stdout + made.stderr)
    return work


def spectator_get(live: str, battle: str, token: str, rest: str = "") -> dict[str, Any]:
    response = httpx.get(f"{live}/api/battles/{battle}{rest}", headers={"Authorization": f"Bearer {token}"},
                         timeout=30)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


#: What the programs play: the temple yard, prefecture's yoichi at ito's takeda, ito nominating yojimbo [BU-4.2].
ATTACKING, ANSWERING = "prefecture", "ito"


def check_played(live: str, summary: dict[str, Any]) -> None:
    """A program's account of its battle against the server's own record of it, read with its spectator token:
    one attack by prefecture, kept waiting for ito's nomination [BU-4.2], played at the nominated model, then the
    end of the turn [BU-8.2]."""
    battle, token = summary["battle"], summary["spectator"]
    assert summary["ruleset"] == "bushido" and summary["attacker_side"] == ATTACKING
    assert summary["waiting"]["status"] == 202 and summary["waiting"]["side"] == ANSWERING
    assert summary["waiting"]["clause"] == "BU-4.2" and summary["answer"] == "nominate yojimbo"
    attack, end = spectator_get(live, battle, token, "/actions")["actions"]
    assert (attack["action"], attack["by"], attack["attacker"], attack["choices"]) == (
        "attack", ATTACKING, "yoichi", {"redirect_to": "yojimbo"})
    assert summary["played"] == {"action": attack["number"], "attacker": "yoichi", "target": "yojimbo"}
    assert summary["outcome"] == {k: attack["outcome"][k] for k in ("hit", "success_level", "wounds")}
    assert (end["action"], end["by"], end["number"]) == ("end-turn", ATTACKING, summary["ended"]["action"])
    state = spectator_get(live, battle, token)
    assert state["actions"] == 2 and state["pending"] is None
    assert summary["ended"]["turn"] == state["turn"]["number"] == 2
    assert summary["ended"]["side_to_act"] == state["side_to_act"]
