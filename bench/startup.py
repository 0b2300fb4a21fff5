"""Start-up of the command line (issue 13): a ``rangefire check`` and ``odds`` process, start to finish, on an
example, beside ``python -c pass``, the libraries alone (a check's floor: typer, PyYAML, Rich and pydantic
imported, one model built) and ``python -c "import rangefire.cli"``, in the same run.

Measured as a user's machine runs it: bytecode cached (``PYTHONDONTWRITEBYTECODE`` unset, one warm-up run
writes it), each process timed from spawn to exit, the fastest of several runs, with the processor time it
used (user and system: on a shared machine the steadier figure); peak memory is the process's own maximum
resident set, read by a small launcher that starts it (a process started straight from this one would report
this process's size: Linux keeps the high-water mark across fork and exec). Where valgrind is installed, the
instructions a run executes are counted too: a figure the rest of the machine cannot disturb. Run alone with
``python bench/startup.py``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "src" / "rangefire" / "examples" / "wheatfield.yaml"
#: The budget of design section 6: a check process start to finish.
BUDGET = 0.3


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | (extra or {})
    env["PYTHONPATH"] = str(ROOT / "src") + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["COLUMNS"] = "120"
    return env


def _once(argv: list[str], extra: dict[str, str] | None = None) -> tuple[float, float, int]:
    """Seconds from spawn to exit, processor seconds, and the peak resident memory in KiB, of one process."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_env(extra))
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} exited {proc.returncode}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


#: Starts the command from a process of its own, small, and prints the command's peak resident memory in KiB
#: (the launcher's own few MiB are a floor under it).
_LAUNCHER = ("import os, sys\npid = os.fork()\nif pid == 0:\n    os.execvpe(sys.argv[1], sys.argv[1:], os.environ)\n"
             "print(os.wait4(pid, 0)[2].ru_maxrss)")


def peak_kib(argv: list[str], extra: dict[str, str] | None = None) -> int:
    """The peak resident memory of one run of ``argv``, in KiB."""
    done = subprocess.run([sys.executable, "-c", _LAUNCHER, *argv], capture_output=True, text=True,
                          env=_env(extra), check=True)
    return int(done.stdout.strip().splitlines()[-1])


#: The libraries a check cannot start without, and nothing of rangefire's: the command line (typer), YAML,
#: Rich's console and tables, and pydantic with one model built and used (its first model loads the schema
#: machinery and looks for plugins). The floor under any check on this machine.
LIBRARIES = ("import typer, typer.main, yaml, rich.console, rich.table\n"
             "from pydantic import BaseModel\n"
             "class M(BaseModel):\n    x: int\n"
             "M(x=1)")


def measure_rows(rows: list[tuple[str, list[str], dict[str, str] | None]],
                 repeat: int) -> list[tuple[float, float, int]]:
    """For each row, the fastest of ``repeat`` runs (after a warm-up that writes the bytecode), the least
    processor time and the peak memory of a run of its own. The rows take turns, round after round, so that
    a busy spell of the machine falls on all of them alike rather than on whichever row it happens to meet."""
    for _, argv, extra in rows:
        _once(argv, extra)
    runs: list[list[tuple[float, float, int]]] = [[] for _ in rows]
    for _ in range(repeat):
        for i, (_, argv, extra) in enumerate(rows):
            runs[i].append(_once(argv, extra))
    return [(min(t for t, _, _ in r), min(c for _, c, _ in r), peak_kib(argv, extra))
            for r, (_, argv, extra) in zip(runs, rows, strict=True)]


def instructions(argv: list[str]) -> int | None:
    """The instructions one run of ``argv`` executes, counted by valgrind (the same count whatever else the
    machine is doing), or None where valgrind is not installed."""
    if shutil.which("valgrind") is None:
        return None
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
                          capture_output=True, text=True, env=_env())
    found = re.search(r"Collected : (\d+)", done.stderr)
    return int(found.group(1)) if found else None


#: Run as a check's own process (``python -c PROBE check ...``): the seconds spent defining rangefire's own
#: dataclasses (its typed results) and each of its pydantic models (the game's scenario and options), printed
#: on stderr as ``count seconds model model ...`` (the dataclasses' count and seconds, then each model's seconds).
#: The first model of any program also pays pydantic's one-time set-up, which the libraries row pays too, so
#: :func:`own_parts` leaves it out.
_PROBE = """
import dataclasses, runpy, sys, time
import pydantic._internal._model_construction as construction
classes, models = [], []
process, new = dataclasses._process_class, construction.ModelMetaclass.__new__
def timed_dataclass(cls, *args, **kwargs):
    start = time.perf_counter(); made = process(cls, *args, **kwargs)
    if cls.__module__.startswith("rangefire"): classes.append(time.perf_counter() - start)
    return made
def timed_model(mcs, name, bases, namespace, *args, **kwargs):
    start = time.perf_counter(); made = new(mcs, name, bases, namespace, *args, **kwargs)
    if namespace.get("__module__", "").startswith("rangefire"): models.append(time.perf_counter() - start)
    return made
dataclasses._process_class, construction.ModelMetaclass.__new__ = timed_dataclass, timed_model
sys.argv = ["rangefire", *sys.argv[1:]]
try:
    runpy.run_module("rangefire.cli", run_name="__main__")
except SystemExit:
    pass
print(len(classes), sum(classes), *models, file=sys.__stderr__)
"""


@dataclass(frozen=True)
class OwnParts:
    """What a check process spends defining rangefire's own types (the least of several runs)."""

    classes: int  # rangefire's dataclasses defined: its typed results
    classes_seconds: float
    models: int  # its pydantic models after the first (the game's scenario and options)
    models_seconds: float


def own_parts(args: list[str], repeat: int = 5) -> OwnParts:
    """The dataclasses and pydantic models a check process (``rangefire ARGS``) defines, and the seconds
    spent on each kind (the first model left out: it pays pydantic's set-up, as the libraries row does)."""
    runs = []
    for _ in range(repeat):
        done = subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, env=_env())
        count, seconds, _, *models = done.stderr.split()
        runs.append(OwnParts(int(count), float(seconds), len(models), sum(float(m) for m in models)))
    return OwnParts(runs[0].classes, min(r.classes_seconds for r in runs), runs[0].models,
                    min(r.models_seconds for r in runs))


def run(repeat: int = 9) -> None:
    python = [sys.executable]
    cli = [*python, "-m", "rangefire.cli"]
    check = [*cli, "check", str(EXAMPLE), "-a", "20th-maine", "-t", "15th-alabama"]
    rows: list[tuple[str, list[str], dict[str, str] | None]] = [
        ("python -c pass", [*python, "-c", "pass"], None),
        ("the libraries alone (typer, PyYAML, Rich, pydantic)", [*python, "-c", LIBRARIES], None),
        ('python -c "import rangefire.cli"', [*python, "-c", "import rangefire.cli"], None),
        ("rangefire check (wheatfield)", [*cli, "check", str(EXAMPLE), "-a", "15th-alabama"], None),
        ("rangefire check -t (wheatfield)", check, None),
        # pydantic's documented switch: the same check without its search of every installed package's
        # metadata for plugins (the command line leaves it to the user: it would have to be set by importing the
        # command line, before the first model is built, for every program that imports it)
        ("  the same, PYDANTIC_DISABLE_PLUGINS=1", check, {"PYDANTIC_DISABLE_PLUGINS": "1"}),
        ("rangefire odds (wheatfield)", [*cli, "odds", str(EXAMPLE), "-a", "15th-alabama"], None),
        ("rangefire check --json (wheatfield)", [*cli, "check", str(EXAMPLE), "-a", "15th-alabama", "--json"], None),
    ]
    print("\nStart-up, a process start to finish with bytecode cached (fastest of "
          f"{repeat}, the rows taking turns; peak resident memory):")
    figures = measure_rows(rows, repeat)
    base = figures[0][0]
    for (name, _, _), (seconds, cpu, kib) in zip(rows, figures, strict=True):
        note = ""
        if name.lstrip().startswith(("rangefire", "the same")):
            note = f"  budget {BUDGET * 1e3:.0f} ms: {'met' if seconds < BUDGET else 'MISSED'}"
        print(f"  {name:52s} {seconds * 1e3:8.1f} ms  {seconds / base:5.1f}x python  cpu {cpu * 1e3:6.1f} ms  "
              f"{kib / 1024:6.1f} MiB{note}")
    libraries, checked = figures[1][0], figures[3][0]
    print(f"  rangefire's own part of a check: {(checked - libraries) * 1e3:.0f} ms "
          f"({(checked - libraries) / checked:.0%}); the libraries alone take {libraries / BUDGET:.0%} of the budget")
    own = own_parts(["check", str(EXAMPLE), "-a", "15th-alabama"])
    print(f"  the budget leaves {(BUDGET - libraries) * 1e3:.0f} ms beyond the libraries for rangefire's own part "
          f"({(checked - libraries) * 1e3:.0f} ms); of that, defining its typed results ({own.classes} dataclasses) "
          f"takes {own.classes_seconds * 1e3:.0f} ms and its game's scenario models ({own.models}) "
          f"{own.models_seconds * 1e3:.0f} ms")
    counted = [instructions(argv) for _, argv, _ in (rows[0], rows[1], rows[3])]
    if None in counted:
        print("  (valgrind is not installed: the instruction counts are left out)")
        return
    plain, floor, whole = (n or 0 for n in counted)
    print(f"  instructions executed (valgrind; the same on a busy machine): python {plain / 1e6:,.0f} M, "
          f"the libraries {floor / 1e6:,.0f} M, the check {whole / 1e6:,.0f} M: rangefire's own part "
          f"{(whole - floor) / whole:.0%}")


if __name__ == "__main__":
    run()
