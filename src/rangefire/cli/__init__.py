"""The command line: ``rangefire rulesets | check | odds | resolve | demo`` (design section 5).

Every command takes ``--json``. Without it the output is for people: Rich tables, every modifier with its
clause. Errors go to stderr on one line with a non-zero exit (2 bad input, 1 an attack the rules refuse).
The library knows nothing of this package: each command reads its flags into the library's own values.
"""

from __future__ import annotations

from rangefire.cli import commands, table, turns  # noqa: F401  (register the commands on the app)
from rangefire.cli.common import app


def main() -> None:
    """Console-script entry point."""
    app()


__all__ = ["app", "main"]
