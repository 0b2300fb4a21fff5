"""The API's answers in JSON, written as FastAPI writes the value a route returns (compact, UTF-8 as it is, no NaN),
but straight from the value.

FastAPI would first walk every value of an answer (``jsonable_encoder``: about a millisecond for a battle's state
or an attack's odds, as much as the rest of the request), which the service's answers, made of JSON's own values
already, do not need. A value JSON has no way to write (a model, a date) is written as that walk writes it; nothing
is left out (the walk drops every key that starts with ``_sa``, as a side's name may). What each route answers is
declared by its ``responses`` (``/openapi.json``).
"""

from __future__ import annotations

import json
from typing import Any

from fastapi.encoders import jsonable_encoder
from starlette.responses import Response


def json_bytes(value: Any) -> bytes:
    """An answer's JSON, as FastAPI writes the value a route returns."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":"),
                      default=jsonable_encoder).encode("utf-8")


class JsonAnswer(Response):
    """A route's answer in JSON (:func:`json_bytes`); given bytes, the answer written already (one the engine
    keeps: :meth:`rangefire.web.engine.Engine.ask`)."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return content if isinstance(content, bytes) else json_bytes(content)
