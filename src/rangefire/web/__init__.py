"""The table in a browser and the HTTP API: battles kept in SQLite, played by secret links per side.

Needs the optional extra ``rangefire[web]`` (FastAPI and uvicorn). :func:`create_app` makes the application
over one database file; ``rangefire serve`` runs it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fastapi import FastAPI


def create_app(db_path: Any, **options: Any) -> FastAPI:
    """The FastAPI application over the battles of ``db_path`` (see :func:`rangefire.web.app.create_app`)."""
    from rangefire.web.app import create_app as make

    return make(db_path, **options)


__all__ = ["create_app"]
