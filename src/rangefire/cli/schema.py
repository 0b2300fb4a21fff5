"""``rangefire schema``: the JSON Schema of a game's scenario, or of a command's ``--json`` output.

The schemas are the library's (:mod:`rangefire.scenario.jsonschema`, :mod:`rangefire.core.schemas`, each game's
part in :mod:`rangefire.rulesets.outputs`); this maps the arguments. A schema is printed as the JSON Schema
document it is, without the ``format`` key of the other outputs (``format`` is a keyword of JSON Schema): the
output schemas pin their own ``format`` instead.
"""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any, Optional

import typer

from rangefire.cli.common import app, user_errors
from rangefire.core import RangefireError

#: The commands whose ``--json`` output has a schema, and the error every command gives.
OUTPUT_NAMES = ("check", "odds", "resolve", "targets", "advise", "compare", "table", "duel", "replay", "error")


def error_kinds() -> tuple[str, ...]:
    """Every ``kind`` an error of the command line may have: each error class's (the modules that declare one
    loaded first), and ``usage`` (the command line itself misused), sorted."""
    import rangefire.analysis.duel
    import rangefire.analysis.sweep
    import rangefire.cli.sweep
    import rangefire.cli.writing
    import rangefire.core.moves
    import rangefire.core.ruleset
    import rangefire.record  # noqa: F401  # each declares an error class of its own

    found = {"usage"}
    classes: list[type[RangefireError]] = [RangefireError]
    while classes:
        klass = classes.pop()
        if klass.__module__.startswith("rangefire.web."):
            continue  # the server's own (a store, a conflict of two requests): never the command line's, whether
            # or not the server happens to be loaded in this process
        found.add(klass.kind)
        classes += klass.__subclasses__()
    return tuple(sorted(found))


def output_document(output: str, game: str | None = None) -> dict[str, Any]:
    """The JSON Schema of ``output`` (a command's ``--json``, or ``error``): of one game's where ``game`` (a key
    or alias) is given; otherwise the model common to every game, with each game's under ``oneOf``."""
    from rangefire.core.schemas import error_output, output_schema

    if output not in OUTPUT_NAMES:
        raise RangefireError(f"--output {output!r}: must be one of {', '.join(OUTPUT_NAMES)}")
    if output == "error":
        return {"$schema": "https://json-schema.org/draft/2020-12/schema",
                **error_output(error_kinds()).model_json_schema()}
    from rangefire.rulesets import find_ruleset
    from rangefire.rulesets.outputs import game_models

    games = game_models(output)
    if game is None:
        return output_schema(output, games=games)
    key = find_ruleset(game).key
    model = games.get(key)
    if model is None:  # an output that names no game: the same for every game
        return output_schema(output)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **model.model_json_schema()}


@app.command()
def schema(
    game: Annotated[Optional[str], typer.Argument(help="a game's key or alias: the schema of its scenario (with --output, of its output)", show_default=False)] = None,  # noqa: UP045, E501
    output: Annotated[Optional[str], typer.Option("--output", metavar="|".join(OUTPUT_NAMES), help="the schema of this command's --json output instead (error: of every command's error)")] = None,  # noqa: UP045, E501
    as_json: Annotated[bool, typer.Option("--json", help="errors as JSON (the schema is JSON either way)")] = False,
) -> None:
    """Print the JSON Schema of GAME's scenario, or with --output that of a command's --json output: check, odds,
    resolve, targets, advise, compare, table, duel, replay, or the error of any. With GAME too, that game's (its
    plan and a resolution's outcome typed as the game writes them); without, every game's under oneOf, told
    apart by ruleset."""
    from rangefire.rulesets import find_ruleset

    with user_errors(as_json):
        if game is None and output is None:
            raise RangefireError("name a game (rangefire schema GAME) or an output (rangefire schema --output "
                                 f"{'|'.join(OUTPUT_NAMES)}), or both")
        if output is not None:
            document = output_document(output, game)
        else:
            from rangefire.scenario.jsonschema import scenario_schema

            assert game is not None
            document = scenario_schema(find_ruleset(game).battle_model)
    sys.stdout.write(json.dumps(document, indent=2) + "\n")
