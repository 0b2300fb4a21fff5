"""``rangefire schema``: the JSON Schema of a game's scenario, or of a command's ``--json`` output.

The schemas are the library's (:mod:`rangefire.scenario.jsonschema`, :mod:`rangefire.core.schemas`); this maps
the arguments. A schema is printed as the JSON Schema document it is, without the ``format`` key of the other
outputs (``format`` is a keyword of JSON Schema): the output schemas pin their own ``format`` instead.
"""

from __future__ import annotations

import json
import sys
from typing import Annotated, Optional

import typer

from rangefire.cli.common import app, user_errors
from rangefire.core import RangefireError

OUTPUT_NAMES = ("check", "odds", "resolve")


@app.command()
def schema(
    game: Annotated[Optional[str], typer.Argument(help="a game's key or alias: the schema of its scenario (with --output, of its output)", show_default=False)] = None,  # noqa: UP045, E501
    output: Annotated[Optional[str], typer.Option("--output", metavar="|".join(OUTPUT_NAMES), help="the schema of this command's --json output instead")] = None,  # noqa: UP045, E501
    as_json: Annotated[bool, typer.Option("--json", help="errors as JSON (the schema is JSON either way)")] = False,
) -> None:
    """Print the JSON Schema of GAME's scenario, or with --output that of check, odds or resolve --json (with
    GAME too, that game's: resolve's outcome as the game reports it)."""
    from rangefire.rulesets import find_ruleset

    with user_errors(as_json):
        if game is None and output is None:
            raise RangefireError("name a game (rangefire schema GAME) or an output (rangefire schema --output "
                                 f"{'|'.join(OUTPUT_NAMES)}), or both")
        ruleset = find_ruleset(game) if game is not None else None
        if output is not None:
            from rangefire.core.schemas import output_schema

            if output not in OUTPUT_NAMES:
                raise RangefireError(f"--output {output!r}: must be one of {', '.join(OUTPUT_NAMES)}")
            document = output_schema(output, type(ruleset) if ruleset is not None else None)
        else:
            from rangefire.scenario.jsonschema import scenario_schema

            assert ruleset is not None
            document = scenario_schema(ruleset.battle_model)
    sys.stdout.write(json.dumps(document, indent=2) + "\n")
