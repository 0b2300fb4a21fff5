"""The README's command transcripts are the program's real output.

Every ```text block of the README holds commands (``$ rangefire ...``, a trailing backslash continues a line)
each followed by the output it shows. The test runs each command as a user would, in a terminal 110 columns
wide, and checks that the shown lines appear in the output in order: a ``...`` line stands for any number of
lines left out, and without one at the start or end the shown output must start or end where the program's does.
(The ```python blocks are doctests, run by pytest's ``--doctest-glob``.)
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
WIDTH = 110


@dataclass(frozen=True)
class Transcript:
    line: int
    command: str
    shown: tuple[str, ...]


def blocks(text: str) -> list[list[Transcript]]:
    """The ```text blocks, each as its commands in order with the lines each shows."""
    found: list[list[Transcript]] = []
    for block in re.finditer(r"^```text\n(.*?)^```", text, flags=re.S | re.M):
        first = text.count("\n", 0, block.start(1)) + 1
        found.append(_commands(block.group(1).splitlines(), first))
    return found


def _commands(lines: list[str], first: int) -> list[Transcript]:
    """``$ `` lines are commands (a trailing backslash continues one); the lines after each, what it shows."""
    found: list[Transcript] = []
    i = 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            raise AssertionError(f"README line {first + i}: output before any command: {lines[i]!r}")
        start = i
        command = lines[i][2:]
        while command.endswith("\\"):
            i += 1
            command = command[:-1] + " " + lines[i].strip()
        i += 1
        shown = []
        while i < len(lines) and not lines[i].startswith("$ "):
            shown.append(lines[i].rstrip())
            i += 1
        found.append(Transcript(first + start, command, tuple(shown)))
    return found


def same(shown: str, printed: str) -> bool:
    """A shown line is the printed one; ``...`` inside a line stands for any text, as in a doctest."""
    if "..." not in shown:
        return shown == printed
    return re.fullmatch(".*?".join(re.escape(part) for part in shown.split("...")), printed) is not None


def matches(shown: tuple[str, ...], output: list[str]) -> str | None:
    """None when ``shown`` (with ``...`` gaps) is the output; else a sentence saying where they part."""
    segments: list[list[str]] = [[]]
    for line in shown:
        if line.strip() == "...":
            segments.append([])
        else:
            segments[-1].append(line)
    anchored_start = bool(segments[0])
    anchored_end = bool(segments[-1])
    pos = 0
    for n, segment in enumerate(segments):
        if not segment:
            continue
        starts = [0] if n == 0 and anchored_start else range(pos, len(output) - len(segment) + 1)
        at = next((k for k in starts if _run_at(segment, output, k)), -1)
        if at < 0:
            return _first_difference(segment, output, list(starts))
        pos = at + len(segment)
    if anchored_end and pos != len(output):
        return f"the output goes on after the shown lines: {output[pos]!r}"
    return None


def _run_at(segment: list[str], output: list[str], at: int) -> bool:
    return len(output) - at >= len(segment) and all(same(s, o) for s, o in zip(segment, output[at:], strict=False))


def _first_difference(segment: list[str], output: list[str], starts: list[int]) -> str:
    """Where a run of shown lines parts from the output, at the start where it holds longest."""
    def held(k: int) -> int:
        return next((j for j, shown in enumerate(segment) if k + j >= len(output) or not same(shown, output[k + j])),
                    len(segment))

    if not starts:
        return f"not found in order: {segment[0]!r}"
    k = max(starts, key=held)
    j = held(k)
    printed = output[k + j] if k + j < len(output) else "(the end of the output)"
    return f"differs at the shown line {segment[j]!r}: the program printed {printed!r}"


def _rangefire() -> list[str]:
    script = Path(sys.executable).with_name("rangefire")
    return [str(script)] if script.exists() else [sys.executable, "-m", "rangefire.cli"]


BLOCKS = blocks(README.read_text(encoding="utf-8"))


def test_the_readme_has_transcripts() -> None:
    assert sum(len(b) for b in BLOCKS) >= 5, "the README's ```text blocks hold the worked commands"


@pytest.mark.parametrize("block", BLOCKS, ids=[f"line{b[0].line}" for b in BLOCKS])
def test_readme_transcript(block: list[Transcript], tmp_path: Path) -> None:
    """A block's commands run in order, in a folder of their own holding the examples, as a reader would
    type them: a walkthrough's files (``--out``, ``--log``) are the next command's input, never the checkout's."""
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    env = {**os.environ, "COLUMNS": str(WIDTH), "LINES": "50", "NO_COLOR": "1", "TERM": "dumb"}
    for case in block:
        argv = shlex.split(case.command)
        assert argv[0] == "rangefire", f"README line {case.line}: transcripts run rangefire, not {argv[0]!r}"
        run = subprocess.run([*_rangefire(), *argv[1:]], cwd=tmp_path, env=env, capture_output=True, text=True,
                             timeout=60, stdin=subprocess.DEVNULL)
        output = [line.rstrip() for line in (run.stdout + run.stderr).splitlines()]
        problem = matches(case.shown, output)
        assert problem is None, (f"README line {case.line}: `{case.command}` {problem}\n--- the program printed:\n"
                                 + "\n".join(output))


def test_matches_reads_gaps_and_anchors() -> None:
    out = ["a", "b", "c", "d"]
    assert matches(("a", "...", "c", "d"), out) is None
    assert matches(("...", "b", "c", "..."), out) is None
    assert matches(("b", "...", "d"), out) is not None  # anchored at the start
    assert matches(("a", "...", "c"), out) is not None  # anchored at the end
    assert matches(("...", "c", "b", "..."), out) is not None  # order
    assert same("from x (the engine's choice: ...)", "from x (the engine's choice: most dice)")
    assert not same("from x (...)", "from y (most dice)")
