"""Scenario files: reading (YAML, TOML, JSON), validating whole, writing back."""

from rangefire.scenario.files import (
    MAX_FILE_BYTES,
    parse_scenario,
    read_scenario,
    validate,
    write_scenario,
)
from rangefire.scenario.models import XY, Exact, Id, Model, PolygonField, duplicate_ids, find_by_id

__all__ = [
    "MAX_FILE_BYTES",
    "XY",
    "Exact",
    "Id",
    "Model",
    "PolygonField",
    "duplicate_ids",
    "find_by_id",
    "parse_scenario",
    "read_scenario",
    "validate",
    "write_scenario",
]
