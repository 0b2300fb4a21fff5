"""Shared by the API tests: an application over a fresh database, battles created through the API."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient

from rangefire.web import create_app
from tests.web.postgres import Cluster, bin_folder


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class Battle:
    """A battle created through the API, with its id and tokens, and requests made as one of its roles."""

    def __init__(self, client: TestClient, created: dict[str, Any]) -> None:
        self.client = client
        self.id: str = created["id"]
        self.created = created
        self.sides: dict[str, str] = created["tokens"]["sides"]
        self.spectator: str = created["tokens"]["spectator"]

    def url(self, rest: str = "") -> str:
        return f"/api/battles/{self.id}{rest}"

    def as_side(self, side: str) -> dict[str, str]:
        return bearer(self.sides[side])

    def get(self, rest: str = "", token: str | None = None, **kw: Any) -> Any:
        return self.client.get(self.url(rest), headers=bearer(token or self.spectator), **kw)

    def post(self, rest: str, side: str, body: dict[str, Any] | None = None) -> Any:
        return self.client.post(self.url(rest), headers=self.as_side(side), json=body if body is not None else {})

    def state(self) -> dict[str, Any]:
        response = self.get()
        assert response.status_code == 200, response.text
        data: dict[str, Any] = response.json()
        return data


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "battles.sqlite3"


@pytest.fixture
def client(db_path: Path | str, tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(db_path, static_dir=tmp_path / "static")
    try:
        with TestClient(app) as test_client:
            yield test_client
    finally:
        app.state.store.close()


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    """A PostgreSQL cluster of this test run (of this xdist worker), started once and stopped after: missing
    PostgreSQL skips the tests that need it, or fails them under CI=true (where it must be there)."""
    bindir = bin_folder()
    reason = None
    try:
        import psycopg  # noqa: F401
    except ImportError:
        reason = "psycopg 3 is not installed (pip install -e '.[postgres]')"
    if bindir is None:
        reason = ("PostgreSQL's server programs (initdb, pg_ctl) are not installed: `make system` installs "
                  "Debian's postgresql")
    if reason is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI runs the PostgreSQL tests: {reason}")
        pytest.skip(reason)
    assert bindir is not None
    cluster = Cluster(bindir)
    try:
        yield cluster
    finally:
        cluster.close()


@pytest.fixture
def pg_address(pg_cluster: Cluster) -> str:
    """A store of its own in the cluster (a fresh schema): its ``postgresql://`` address."""
    return pg_cluster.new_schema()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_address(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """Where a test's battles are kept, once in a SQLite file and once in PostgreSQL."""
    if request.param == "sqlite":
        return tmp_path / "battles.sqlite3"
    address: str = request.getfixturevalue("pg_address")
    return address


@pytest.fixture
def new_battle(client: TestClient) -> Any:
    def make(example: str = "wheatfield", **body: Any) -> Battle:
        payload = {"example": example, **body} if "scenario" not in body else body
        response = client.post("/api/battles", json=payload)
        assert response.status_code == 201, response.text
        return Battle(client, response.json())

    return make


def engine_answering(value_of: Callable[..., Any]) -> Callable[..., Any]:
    """A stand-in for ``Engine.ask`` answering ``value_of(job, seconds, instead)``, written as the routes ask
    (``written``: an answer's JSON) where they do."""
    def ask(self: Any, job: Any, seconds: float, instead: str, written: Callable[[Any], bytes] | None = None) -> Any:
        value = value_of(job, seconds, instead)
        return written(value) if written is not None else value

    return ask


def error_of(response: Any, status: int, kind: str) -> dict[str, Any]:
    """The error body of a response, checked: its status, its kind, the shape every error has."""
    assert response.status_code == status, response.text
    body = response.json()
    assert body["format"] == 1
    error: dict[str, Any] = body["error"]
    assert error["kind"] == kind, error
    assert {"kind", "message", "path", "clause"} <= set(error)
    assert error["message"] and "Traceback" not in error["message"]
    return error
