"""The web table's exact fractions (static/frac.js) print a probability as the command line does: the same
``percent`` text for every fraction, run in Node against rangefire.core.numbers.percent."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest

from rangefire.core.numbers import percent

FRAC_JS = Path(__file__).resolve().parents[2] / "src" / "rangefire" / "web" / "static" / "frac.js"
NODE = shutil.which("node")

_PROGRAM = """
import { frac, percent } from %s;
const pairs = JSON.parse(process.argv[2]);
console.log(JSON.stringify(pairs.map(([n, d]) => percent(frac(BigInt(n), BigInt(d))))));
"""


@pytest.mark.skipif(NODE is None, reason="Node.js runs the page's modules here; it is not on this machine")
def test_the_pages_percent_is_the_command_lines(tmp_path):
    rng = random.Random(7)
    cases = [Fraction(0), Fraction(1), Fraction(1, 3), Fraction(1, 2000), Fraction(1999, 2000), Fraction(3, 2000),
             Fraction(1, 400), Fraction(1, 1999), Fraction(1998, 1999), Fraction(1, 10**30),
             Fraction(10**30 - 1, 10**30)]
    cases += [Fraction(rng.randint(0, d), d) for d in (rng.randint(1, 10**rng.randint(1, 25)) for _ in range(400))]
    program = tmp_path / "percent.mjs"
    program.write_text(_PROGRAM % json.dumps(FRAC_JS.as_uri()))
    pairs = [[str(f.numerator), str(f.denominator)] for f in cases]
    done = subprocess.run([NODE, str(program), json.dumps(pairs)], capture_output=True, text=True, timeout=60,
                          check=True)
    assert json.loads(done.stdout) == [percent(f) for f in cases]
