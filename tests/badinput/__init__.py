"""The bad-input corpus: scenario files and command lines that must be refused cleanly (exit 2, one message
starting ``rangefire:`` that names the problem, never a traceback), names that must show as text, and inputs
that must be accepted.

``generate.py`` writes every file under ``dc/``, ``al/``, ``bu/``, ``sw/`` and ``misc/`` and one line per
entry in ``manifest.jsonl`` (the command, the exit codes allowed, the fragments the output must hold);
``python tests/badinput/generate.py`` rewrites them all. Files git cannot hold (a FIFO, a symlink to
``/dev/zero``, a folder named ``x.yaml``, a file over the size limit) are made at run time by
``tests/test_bad_input.py``.
"""
