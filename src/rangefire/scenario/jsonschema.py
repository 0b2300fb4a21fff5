"""The JSON Schema of a game's scenario, from its pydantic model (``rangefire schema GAME``).

pydantic describes most fields itself; the scenario's own number types (an exact number, a point, a polygon:
:mod:`rangefire.scenario.models`) are read by functions it cannot see into, so they are described here, and
the bounds set on them (``Field(gt=0)``) are written as JSON Schema keywords.

>>> from pydantic import create_model
>>> from rangefire.scenario.models import XY, Model
>>> at = scenario_schema(create_model("Piece", __base__=Model, at=XY))["properties"]["at"]
>>> at["type"], at["minItems"], at["maxItems"], at["items"]["anyOf"][0]
('array', 2, 2, {'type': 'number'})
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

from rangefire.scenario import models

#: A number as a scenario writes it: a JSON number, or text holding a decimal or a fraction ("10.1", "1/3").
_DECIMAL = r"^\s*[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?\s*$"
_RATIO = r"^\s*[+-]?[0-9]+\s*/\s*[0-9]+\s*$"
EXACT: dict[str, Any] = {"anyOf": [{"type": "number"}, {"type": "string", "pattern": f"{_DECIMAL}|{_RATIO}"}],
                         "description": "a number, read exactly (10.1 is 101/10); text may hold a fraction, '1/3'"}
POINT: dict[str, Any] = {"type": "array", "items": EXACT, "minItems": 2, "maxItems": 2,
                         "description": "a point [x, y] in table units"}
POLYGON: dict[str, Any] = {"type": "array", "items": POINT, "minItems": 3,
                           "description": "a simple polygon of positive area: its corners [[x, y], ...] in order"}

#: pydantic's names for bounds it could not apply to a type of its own, and JSON Schema's.
_BOUNDS = {"gt": "exclusiveMinimum", "ge": "minimum", "lt": "exclusiveMaximum", "le": "maximum"}


class _ScenarioSchema(GenerateJsonSchema):
    def function_plain_schema(self, schema: core_schema.PlainValidatorFunctionSchema) -> JsonSchemaValue:
        function = schema["function"].get("function")
        known = {models._exact: EXACT, models._xy: POINT, models._polygon: POLYGON}
        if function in known:
            return dict(known[function])
        return super().function_plain_schema(schema)


def scenario_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a scenario model."""
    schema = _bounds(model.model_json_schema(schema_generator=_ScenarioSchema))
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


def _bounds(node: Any, names: bool = False) -> Any:
    """``gt``/``ge``/``lt``/``le`` as JSON Schema's keywords, wherever they stand for a bound: not in the
    mappings whose keys are names (``properties``, ``$defs``), where a key so named is a field."""
    if isinstance(node, list):
        return [_bounds(item) for item in node]
    if not isinstance(node, dict):
        return node
    if names:
        return {key: _bounds(value) for key, value in node.items()}
    return {_BOUNDS.get(key, key): _bounds(value, names=key in ("properties", "$defs", "patternProperties"))
            for key, value in node.items()}
