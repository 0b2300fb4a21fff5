"""Scenario files: reading (YAML, TOML, JSON), validating whole, writing back."""

from rangefire.scenario.files import MAX_FILE_BYTES, read_scenario, write_scenario
from rangefire.scenario.models import XY, Exact, Id, Model, PolygonField, Table, duplicate_ids, find_by_id
from rangefire.scenario.parsing import format_path, parse_scenario
from rangefire.scenario.validation import format_error, validate

__all__ = [
    "MAX_FILE_BYTES",
    "XY",
    "Exact",
    "Id",
    "Model",
    "PolygonField",
    "Table",
    "duplicate_ids",
    "find_by_id",
    "format_error",
    "format_path",
    "parse_scenario",
    "read_scenario",
    "validate",
    "write_scenario",
]
