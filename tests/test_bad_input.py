"""Every bad input a clean error: the corpus in ``tests/badinput`` run as the command a user runs.

Each entry must exit with its expected code (2 for bad input), print one message starting ``rangefire:`` that
holds the expected fragments (the file, the key path), show no traceback and no wording of the libraries
underneath, and answer within 10 s (a guard against hangs, not a benchmark). Names with markup or escapes must
show as text. Failures are collected and reported together, one line each, as a list of what is left to fix.

The manifest's entries run through the real command (Typer's ``main`` with the entry's arguments, exactly what
the ``rangefire`` script calls) in two worker processes, many entries each, so that the corpus runs in seconds;
files git cannot hold (a FIFO, a symlink to ``/dev/zero``, a file over the size limit) are made at run time;
the two that cannot be interrupted from within, and a sample of the manifest, run as ``python -m rangefire.cli``
in a process of their own each.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import resource
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rangefire.scenario import MAX_FILE_BYTES

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "badinput"
EXAMPLES = HERE.parent / "examples"
#: Seconds one command may take before it counts as hanging.
TIMEOUT = 10.0
#: Memory a command may take: a file that grows without end must fail here, not exhaust the machine.
MEMORY = 2 * 1024**3
#: Wording that is not the project's own: a traceback, or the validation library's phrases.
NOT_OURS = ("Traceback", "instance of", "valid dictionary", "after validation", "constrained-", "Input should",
            "Field required", "Extra inputs", "pydantic", "errors.pydantic.dev", "<unicode string>")
#: Raw control characters (ESC and the rest, but not tab or newline) must never reach the terminal.
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f\x9b]")

#: Runs many entries in one process: Typer's ``main`` with each entry's arguments, a wall-clock guard each.
DRIVER = r"""
import json, signal, sys, traceback
import typer.main, typer.testing
from typer.testing import CliRunner
from rangefire.cli import app

# The script builds the command from the app once per run; build it once for all the entries here.
command = typer.main.get_command(app)
typer.testing._get_command = lambda _app: command

class Hang(BaseException):
    pass

def alarm(signum, frame):
    raise Hang

signal.signal(signal.SIGALRM, alarm)
runner = CliRunner()
for line in sys.stdin:
    job = json.loads(line)
    result = {"id": job["id"], "code": None, "stdout": "", "stderr": "", "crash": ""}
    signal.setitimer(signal.ITIMER_REAL, float(sys.argv[1]))
    try:
        run = runner.invoke(app, job["args"], prog_name="rangefire")
        result.update(code=run.exit_code, stdout=run.stdout, stderr=run.stderr)
        if run.exception is not None and not isinstance(run.exception, SystemExit):
            frames = [f for f in traceback.extract_tb(run.exception.__traceback__) if "rangefire" in f.filename]
            at = f" at {frames[-1].filename.rsplit('/src/', 1)[-1]}:{frames[-1].lineno}" if frames else ""
            result["crash"] = f"{type(run.exception).__name__}: {str(run.exception)[:200]}{at}"
    except Hang:
        pass
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    print(json.dumps(result), flush=True)
"""


@dataclass(frozen=True)
class Run:
    """What one command did: its exit code (None when it did not answer in time), its output, any crash."""

    code: int | None
    stdout: str = ""
    stderr: str = ""
    crash: str = ""


def child_env() -> dict[str, str]:
    # Wide tables, so that a name is never wrapped across lines; no forced colour, so that any escape sequence
    # in the output came from the scenario.
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE")}
    return {**env, "COLUMNS": "250", "PYTHONIOENCODING": "utf-8"}


def limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def manifest() -> list[dict[str, Any]]:
    lines = (CORPUS / "manifest.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def arguments(entry: dict[str, Any], corpus: Path = CORPUS) -> list[str]:
    """The entry's command line with its placeholders filled in."""
    places = {"{here}": str(corpus), "{examples}": str(EXAMPLES)}
    if entry["file"]:
        places["{file}"] = str(corpus / entry["file"])
    out = []
    for arg in entry["args"]:
        for key, value in places.items():
            arg = arg.replace(key, value)
        out.append(arg)
    return out


def run_batch(jobs: list[tuple[str, list[str]]], cwd: Path | None = None) -> dict[str, Run]:
    """Run many entries in one worker process; an entry the worker never answered is a hang."""
    payload = "".join(json.dumps({"id": i, "args": a}) + "\n" for i, a in jobs)
    proc = subprocess.Popen([sys.executable, "-c", DRIVER, str(TIMEOUT)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=child_env(), cwd=cwd,
                            preexec_fn=limit_memory)
    try:
        out, err = proc.communicate(payload.encode(), timeout=TIMEOUT * len(jobs) + 60)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    runs = {}
    for line in out.decode("utf-8", "replace").splitlines():
        data = json.loads(line)
        runs[data["id"]] = Run(data["code"], data["stdout"], data["stderr"], data["crash"])
    for i, _ in jobs:
        if i not in runs:
            runs[i] = Run(None, crash="the worker process died: " + err.decode("utf-8", "replace")[-300:])
    return runs


def run_process(args: list[str], cwd: Path | None = None) -> Run:
    """One command as ``python -m rangefire.cli ARGS`` in a process of its own."""
    try:
        proc = subprocess.run([sys.executable, "-m", "rangefire.cli", *args], capture_output=True,
                              stdin=subprocess.DEVNULL, timeout=TIMEOUT, env=child_env(), cwd=cwd,
                              preexec_fn=limit_memory)
    except subprocess.TimeoutExpired:
        return Run(None)
    return Run(proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace"))


# -- judging one run --------------------------------------------------------------------------------------------------
def holds(text: str, fragment: str | list[str]) -> bool:
    options = [fragment] if isinstance(fragment, str) else fragment
    return any(option.lower() in text.lower() for option in options)


def problems(entry: dict[str, Any], run: Run) -> list[str]:
    """What is wrong with one run of an entry (nothing when it behaved as the entry says)."""
    if run.code is None:
        return [run.crash or f"no answer within {TIMEOUT:.0f} s"]
    found = []
    both = run.stdout + run.stderr
    if run.crash:
        found.append(f"crashed: {run.crash}")
    elif "Traceback" in both:
        found.append("a traceback: " + run.stderr.strip().splitlines()[-1][:160])
    if run.code not in entry["exit"]:
        found.append(f"exit {run.code}, expected {' or '.join(map(str, entry['exit']))}")
    # a usage error is the option parser's own message (a box under "Usage:"), so its form is not judged here
    if entry.get("category") != "usage" and (run.code == 2 or (run.stderr.strip() and run.code != 0)):
        lines = run.stderr.rstrip("\n").split("\n")
        if not lines[0].startswith("rangefire: "):
            found.append("stderr does not begin 'rangefire: '")
        elif len(lines) > 1 and (not re.search(r"\b\d+ (errors|problems)$", lines[0])
                                 or any(line and not line[0].isspace() for line in lines[1:])):
            found.append("more than one line, and not a list of the problems under their count")
    if run.code == 2:
        for fragment in entry["stderr"]:
            if not holds(run.stderr, fragment):
                found.append(f"message lacks {fragment!r}")
    for fragment in entry["shown"]:
        if not holds(both, fragment):
            found.append(f"output does not show {fragment!r} as text")
    for fragment in entry["absent"]:
        if fragment.lower() in both.lower():
            found.append(f"output holds {fragment!r}")
    for fragment in NOT_OURS:
        if fragment.lower() in run.stderr.lower() and fragment != "Traceback":
            found.append(f"not our own words: {fragment!r}")
    if CONTROL.search(both) and "\x1b" not in entry["absent"]:
        found.append("raw control characters in the output")
    if found and run.code != 0 and run.stderr.strip():
        lines = run.stderr.strip().splitlines()
        said = lines[0]
        if entry.get("category") == "usage":  # the first line inside the parser's box under "Error"
            said = next((b for a, b in itertools.pairwise(lines) if "Error" in a), said)
        found.append("said: " + said.strip("│╭╮─ ").replace(str(CORPUS) + "/", "")[:200])
    return found


def shown(args: list[str]) -> str:
    args = [re.sub(r"\S*/pytest-of-[^/]+/pytest-\d+/[^/]+/", "tmp/", a) for a in args]
    args = [a.replace(str(CORPUS) + "/", "").replace(str(EXAMPLES) + "/", "examples/") for a in args]
    return " ".join(a if len(a) <= 80 else a[:20] + f"...({len(a)} characters)" for a in args)


def report(results: list[tuple[str, list[str], list[str]]], total: int) -> str:
    failed = [(i, a, p) for i, a, p in results if p]
    lines = [f"{len(failed)} of {total} bad inputs not handled as they must be:"]
    lines += [f"- {i}: rangefire {shown(a)}\n    " + "; ".join(p) for i, a, p in failed]
    return "\n".join(lines)


# -- the tests --------------------------------------------------------------------------------------------------------
def test_corpus_holds_at_least_300_refusals_across_the_four_games():
    entries = manifest()
    refused = Counter(e["id"][:2] for e in entries if e["exit"] == [2])
    assert sum(refused.values()) >= 300 and all(refused[g] >= 50 for g in ("dc", "al", "bu", "sw")), refused
    assert len({e["id"] for e in entries}) == len(entries)
    missing = [e["file"] for e in entries if e["file"] and not (CORPUS / e["file"]).is_file()]
    assert not missing, f"corpus files missing (run python tests/badinput/generate.py): {missing[:5]}"


def test_every_corpus_entry_is_refused_cleanly_or_shown_as_text():
    """Every manifest entry: the expected exit code, one message naming the problem, no traceback, no hang."""
    entries = [e for e in manifest() if not e.get("process")]
    jobs = [(e["id"], arguments(e)) for e in entries]
    with ThreadPoolExecutor(2) as pool:
        batches = list(pool.map(run_batch, [jobs[0::2], jobs[1::2]]))
    runs = {**batches[0], **batches[1]}
    results = [(e["id"], arguments(e), problems(e, runs[e["id"]])) for e in entries]
    assert not any(p for _, _, p in results), report(results, len(entries))


def test_entries_that_may_run_long_answer_within_the_timeout_in_a_process_of_their_own():
    """Positions too large to answer exactly: refused or estimated within seconds, never left running."""
    entries = [e for e in manifest() if e.get("process")]
    with ThreadPoolExecutor(2) as pool:
        runs = list(pool.map(lambda e: run_process(arguments(e)), entries))
    results = [(e["id"], arguments(e), problems(e, run)) for e, run in zip(entries, runs, strict=True)]
    assert not any(p for _, _, p in results), report(results, len(entries))


#: Kinds of entry sampled in a process of their own: a refusal on reading, on the command line, and a name shown.
SAMPLED = ("type", "malformed", "dice", "choice", "markup")


def test_a_sample_behaves_the_same_as_its_own_process():
    """The first entry of a few kinds, run as ``python -m rangefire.cli``: the worker processes hide nothing."""
    firsts: dict[str, dict[str, Any]] = {}
    for entry in manifest():
        if entry["category"] in SAMPLED:
            firsts.setdefault(entry["category"], entry)
    entries = list(firsts.values())
    with ThreadPoolExecutor(2) as pool:
        runs = list(pool.map(lambda e: run_process(arguments(e)), entries))
    results = [(e["id"], arguments(e), problems(e, run)) for e, run in zip(entries, runs, strict=True)]
    assert not any(p for _, _, p in results), report(results, len(entries))


# -- files git cannot hold, made here ---------------------------------------------------------------------------------
WHEATFIELD = EXAMPLES / "wheatfield.yaml"
ATTACK = ["-a", "15th-alabama"]
#: A file without end and one that blocks on opening: each run in a process of its own, which a timeout can kill.
OWN_PROCESS = ("zero.yaml", "fifo.yaml")


def special_files(tmp: Path) -> list[tuple[str, list[str], dict[str, Any]]]:
    """(name, arguments, expectation) for inputs made at run time: special files and writes that cannot be made."""
    text = WHEATFIELD.read_text(encoding="utf-8")
    cases: list[tuple[str, list[str], dict[str, Any]]] = []

    def make(name: str, build: Callable[[Path], object], exit: tuple[int, ...] = (2,), verb: str = "check",
             fragments: tuple[str, ...] | None = None) -> None:
        path = tmp / name
        build(path)
        cases.append((name, [verb, str(path), *ATTACK],
                      {"exit": list(exit), "stderr": list(fragments if fragments is not None else (name,)),
                       "shown": [], "absent": []}))

    make("zero.yaml", lambda p: p.symlink_to("/dev/zero"))
    make("fifo.yaml", lambda p: os.mkfifo(p))
    make("folder.yaml", lambda p: p.mkdir())
    make("dangling.yaml", lambda p: p.symlink_to(tmp / "nowhere.yaml"))
    make("loop.yaml", lambda p: p.symlink_to(p))
    make("null.yaml", lambda p: p.symlink_to("/dev/null"))
    make("oversize.yaml", lambda p: p.write_text(text + "#" * (MAX_FILE_BYTES + 1 - len(text.encode())),
                                                 encoding="utf-8"))
    make("oversize.json", lambda p: p.write_bytes(b" " * MAX_FILE_BYTES + b"{}"))
    # A flow list of a million characters: refused (too many values, or too large) in seconds, not minutes.
    make("flow-list.yaml", lambda p: p.write_text("ruleset: dress-on-the-colors\nunits: [" + "1, " * 340_000
                                                  + "1]\n", encoding="utf-8"))
    # A valid scenario padded to 1.5 MB with comments: accepted quickly, or refused by a size limit.
    make("padded.yaml", lambda p: p.write_text(text + ("# " + "x" * 97 + "\n") * 15_000, encoding="utf-8"),
         exit=(0, 2), fragments=())
    make("linked.yaml", lambda p: p.symlink_to(WHEATFIELD), exit=(0,), fragments=())
    # --out: a write that cannot be made is bad input; the battle is not written anywhere else.
    (tmp / "a-folder.yaml").mkdir()
    (tmp / "plain.yaml").write_text(text, encoding="utf-8")
    (tmp / "read-only.yaml").write_text(text, encoding="utf-8")
    (tmp / "read-only.yaml").chmod(0o444)
    for name, target in (("missing-folder", tmp / "no-such-folder" / "after.yaml"),
                         ("onto-folder", tmp / "a-folder.yaml"),
                         ("onto-read-only-file", tmp / "read-only.yaml"),
                         ("under-a-file", tmp / "plain.yaml" / "after.yaml"),
                         ("unknown-type", tmp / "after.txt")):
        cases.append((f"out-{name}", ["resolve", str(WHEATFIELD), *ATTACK, "--seed", "1", "--out", str(target)],
                      {"exit": [2], "stderr": [target.name if name != "under-a-file" else "plain.yaml"],
                       "shown": [], "absent": []}))
    if os.geteuid() != 0:  # the superuser reads and writes through any mode
        locked = tmp / "locked"
        locked.mkdir()
        (locked / "x.yaml").write_text(text, encoding="utf-8")
        (locked / "x.yaml").chmod(0)
        cases.append(("unreadable", ["check", str(locked / "x.yaml"), *ATTACK],
                      {"exit": [2], "stderr": ["x.yaml"], "shown": [], "absent": []}))
        locked.chmod(0o500)
        cases.append(("out-read-only-folder", ["resolve", str(WHEATFIELD), *ATTACK, "--seed", "1", "--out",
                                               str(locked / "after.yaml")],
                      {"exit": [2], "stderr": ["after.yaml"], "shown": [], "absent": []}))
    return cases


def test_special_files_and_impossible_writes_are_refused_within_the_timeout(tmp_path):
    """A FIFO, a symlink to /dev/zero, a folder named .yaml, a file over the size limit, a million-character flow
    list, and --out where nothing can be written: each refused in one line (exit 2) within 10 s, no traceback."""
    cases = special_files(tmp_path)
    alone = [c for c in cases if c[0] in OWN_PROCESS]
    with ThreadPoolExecutor(2) as pool:
        futures = {name: pool.submit(run_process, args, tmp_path) for name, args, _ in alone}
        runs = run_batch([(name, args) for name, args, _ in cases if name not in futures], cwd=tmp_path)
        runs.update({name: future.result() for name, future in futures.items()})
    results = [(name, args, problems(expect, runs[name])) for name, args, expect in cases]
    leftovers = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("."))
    results.append(("no-temporary-files", ["(after the writes above)"],
                    [f"left behind: {leftovers}"] if leftovers else []))
    kept = WHEATFIELD.read_text(encoding="utf-8")
    changed = [n for n in ("plain.yaml", "read-only.yaml") if (tmp_path / n).read_text(encoding="utf-8") != kept]
    results.append(("files-untouched", ["(after the writes above)"], [f"changed: {changed}"] if changed else []))
    assert not any(p for _, _, p in results), report(results, len(cases))
