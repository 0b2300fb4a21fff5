"""Dress on the Colors duels where the rules choose a third unit as a duellist's target [DC-2.3]: that unit does not
fire in the duel, and the duel's answer says so with the clause, for people and in the JSON.

Blue F at the origin facing +y, grey T 5 in up the table facing back, and grey pickets P 3 in up, nearer F: F must
fire at P [DC-2.3], which takes no part in the duel, so only T fires.
"""

from __future__ import annotations

import json

import pytest
import yaml

from rangefire.analysis.duel import duel
from tests.commands import run
from tests.conftest import dc_battle, unit

UNITS = (unit("F", "blue", (0, 0), 0, stands=2), unit("T", "grey", (0, 5), 180, stands=2),
         unit("P", "grey", (2, 3), 180, stands=1, formation="skirmish"))
NOTE = ("F does not fire in this duel: the rules choose its target, and choose P, not T; P takes no part and "
        "nothing moves (only its own losses could change the rules' choice)")


def test_a_firer_whose_target_is_a_third_unit_does_not_fire_and_is_told_dc_2_3(doc):
    """DC-2.3: F's rules' target is P, so F never fires at T: T is never hit, F never wins; the note says why."""
    result = duel(doc, dc_battle(*UNITS), "F", "T", turns=3)
    assert [(n.clause, n.text) for n in result.notes["a"]] == [("DC-2.3", NOTE)]
    assert result.notes.get("b", ()) == ()  # T's only enemy is F: it fires
    assert [r.clause for r in result.refusals["a"]] == ["DC-2.3"]
    assert result.winner["a"] == 0 and result.left["b"] == {2: 1}
    assert result.to_dict()["notes"] == {"a": [{"clause": "DC-2.3", "text": NOTE}], "b": []}


def test_no_note_where_the_rules_choose_the_other_duellist_dc_2_3(doc):
    """DC-2.3: without the pickets F fires at T, and nothing is noted."""
    result = duel(doc, dc_battle(*UNITS[:2]), "F", "T", turns=2)
    assert result.to_dict()["notes"] == {"a": [], "b": []} and result.winner["a"] > 0


def test_a_refusal_of_another_kind_is_not_noted_dc_2_4(doc):
    """DC-2.4: out of range, F cannot fire at T, but the rules choose no third unit: a refusal, no note."""
    result = duel(doc, dc_battle(unit("F", "blue", (0, 0), 0), unit("T", "grey", (0, 25), 180)), "F", "T", turns=1)
    assert [r.clause for r in result.refusals["a"]] == ["DC-2.4"] and result.to_dict()["notes"]["a"] == []


@pytest.mark.parametrize("columns", [60, 120])
def test_the_duel_command_says_it_for_people_and_in_json_dc_2_3(tmp_path, columns):
    """DC-2.3: ``duel`` prints the note with its clause (at a narrow terminal too) and ``--json`` carries it."""
    scenario = tmp_path / "pickets.yaml"
    scenario.write_text(yaml.safe_dump({"ruleset": "dress-on-the-colors", "units": list(UNITS)}))
    shown = run("duel", str(scenario), "F", "T", "--turns", "2", columns=columns).stdout
    assert all(len(line) <= columns for line in shown.splitlines())
    assert "DC-2.3" in shown and NOTE in " ".join(shown.split())
    data = json.loads(run("duel", str(scenario), "F", "T", "--turns", "2", "--json").stdout)
    assert data["notes"]["a"] == [{"clause": "DC-2.3", "text": NOTE}]
