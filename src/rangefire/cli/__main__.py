"""``python -m rangefire.cli``: the same as the ``rangefire`` command."""

from rangefire.cli import main

main()
