"""A scenario read from standard input (``-``): JSON or YAML, the limits of a file, clear errors, never a file
named ``-`` written (issue 11)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rangefire.core import LimitError, ScenarioError
from rangefire.demo import example_path
from rangefire.scenario.files import MAX_FILE_BYTES, read_scenario, read_stream

WHEATFIELD = example_path("wheatfield.yaml")


def run_in(*args: str, stdin: bytes | None = None, cwd: Path | None = None,
           stream: object = None) -> subprocess.CompletedProcess[bytes]:
    src = str(Path(__file__).resolve().parent.parent / "src")
    env = {**os.environ, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.run([sys.executable, "-m", "rangefire.cli", *args], input=stdin, stdin=stream,
                          capture_output=True, timeout=60, cwd=cwd, env=env)
    assert b"Traceback" not in proc.stderr
    return proc


def test_yaml_and_json_on_stdin_give_what_the_file_gives():
    from_file = run_in("odds", str(WHEATFIELD), "-a", "15th-alabama", "--json")
    as_yaml = run_in("odds", "-", "-a", "15th-alabama", "--json", stdin=WHEATFIELD.read_bytes())
    as_json = run_in("odds", "-", "-a", "15th-alabama", "--json",
                     stdin=json.dumps(read_scenario(WHEATFIELD)).encode())
    assert from_file.returncode == as_yaml.returncode == as_json.returncode == 0
    assert json.loads(from_file.stdout) == json.loads(as_yaml.stdout) == json.loads(as_json.stdout)


@pytest.mark.parametrize("given", [b"", b"  \n\n", b"\xef\xbb\xbf\n"])
def test_empty_input_is_an_error_of_its_own(given):
    proc = run_in("check", "-", "-a", "x", stdin=given)
    assert proc.returncode == 2
    assert proc.stderr.decode().strip() == ("rangefire: standard input: nothing was given; write the scenario there "
                                            "as JSON or YAML")


def test_oversize_input_is_refused_with_the_file_limit():
    proc = run_in("check", "-", "-a", "x", "--json", stdin=b"# " + b"x" * MAX_FILE_BYTES + b"\n")
    assert proc.returncode == 2
    error = json.loads(proc.stdout)["error"]
    assert error["kind"] == "too_large" and f"at most {MAX_FILE_BYTES} bytes" in error["message"]


def test_an_endless_input_is_cut_and_refused():
    with open("/dev/zero", "rb") as zero:
        proc = run_in("check", "-", "-a", "x", stream=zero)
    assert proc.returncode == 2 and b"standard input: more than" in proc.stderr


def test_problems_name_standard_input_and_their_path():
    proc = run_in("check", "-", "-a", "a", "--json",
                  stdin=b"ruleset: dress-on-the-colors\nunits:\n  - {id: a, side: b, stands: -3}\n")
    error = json.loads(proc.stdout)["error"]
    assert proc.returncode == 2
    assert error["source"] == "standard input" and error["path"] == "units[0].stands"


def test_the_battle_after_an_attack_read_from_stdin_goes_to_a_named_file_never_to_one_named_dash(tmp_path):
    refused = run_in("resolve", "-", "-a", "15th-alabama", "--seed", "4", "--out", "-", stdin=WHEATFIELD.read_bytes(),
                     cwd=tmp_path)
    assert refused.returncode == 2
    assert b"cannot write a battle to '-'" in refused.stderr
    assert list(tmp_path.iterdir()) == []  # nothing written, and no file named "-"
    after = tmp_path / "after.yaml"
    written = run_in("resolve", "-", "-a", "15th-alabama", "--seed", "4", "--out", str(after),
                     stdin=WHEATFIELD.read_bytes(), cwd=tmp_path)
    assert written.returncode == 0
    assert run_in("check", str(after), "-a", "47th-alabama").returncode == 0


def test_read_stream_in_the_library():
    assert read_stream(io.BytesIO(b'{"ruleset": "swerve"}')) == {"ruleset": "swerve"}
    assert read_stream(io.BytesIO(b"ruleset: swerve\n")) == {"ruleset": "swerve"}
    with pytest.raises(ScenarioError, match="line 1: not valid JSON"):
        read_stream(io.BytesIO(b"{ruleset"))
    with pytest.raises(LimitError):
        read_stream(io.BytesIO(b"{" + b" " * MAX_FILE_BYTES + b"}"))
