"""``rangefire show``: the battle drawn to a file from the command line; bad input refused cleanly (exit 2).

What is drawn is drawn through the command's entry point in this process (``run_here``: a fresh interpreter and its
imports cost more than most drawings); the refusals run in a process of their own, as a user meets them."""

from __future__ import annotations

from pathlib import Path

import pytest

from rangefire.demo import example_path
from tests.commands import run, run_here

#: One example of each game, with an attacker and a target its drawing can mark.
GAMES = [("wheatfield.yaml", "15th-alabama", "20th-maine"), ("ford.yaml", "archers", "orc-band"),
         ("temple.yaml", "yoichi", "takeda"), ("ambush.yaml", "rail-gun", "dune-buggy")]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"




@pytest.mark.parametrize("name, attacker, target", GAMES)
def test_show_writes_svg_and_png_for_each_game(tmp_path: Path, name, attacker, target):
    svg, png = tmp_path / "map.svg", tmp_path / "map.png"
    proc = run_here("show", str(example_path(name)), "--out", str(svg))
    assert f"drawing written to {svg}" in proc.stdout
    assert svg.read_text().lstrip().startswith(("<svg", "<?xml")) and "</svg>" in svg.read_text()
    run_here("show", str(example_path(name)), "-a", attacker, "-t", target, "--out", str(png))
    assert png.read_bytes().startswith(PNG_MAGIC)


def test_show_is_draw_battle_written(tmp_path: Path):
    """The file holds exactly what the library draws for the same attacker and target."""
    from rangefire.draw import draw_battle
    from rangefire.rulesets import load_battle

    out = tmp_path / "w.svg"
    run_here("show", str(example_path("wheatfield.yaml")), "--attacker", "15th-alabama", "--target", "20th-maine",
        "--out", str(out))
    ruleset, battle = load_battle(example_path("wheatfield.yaml"))
    assert out.read_text() == draw_battle(ruleset, battle, "15th-alabama", "20th-maine")
    assert 'class="line-of-fire hindered' in out.read_text()


def test_show_with_an_attacker_marks_its_refused_targets_DC_2_3(tmp_path: Path):
    out = tmp_path / "w.svg"
    run_here("show", str(example_path("wheatfield.yaml")), "-a", "15th-alabama", "--out", str(out))
    assert "DC-2.3" in out.read_text()


def test_show_refuses_a_txt_file_and_writes_nothing(tmp_path: Path):
    out = tmp_path / "map.txt"
    proc = run("show", str(example_path("wheatfield.yaml")), "--out", str(out), ok=2)
    assert ".svg or .png" in proc.stderr and str(out) in proc.stderr
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_show_refuses_an_unknown_attacker(tmp_path: Path):
    out = tmp_path / "map.svg"
    proc = run("show", str(example_path("wheatfield.yaml")), "-a", "nobody", "--out", str(out), ok=2)
    assert "attacker 'nobody' is not in this battle" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and not out.exists()


def test_show_refuses_an_unknown_target(tmp_path: Path):
    out = tmp_path / "map.svg"
    proc = run("show", str(example_path("wheatfield.yaml")), "-a", "15th-alabama", "-t", "nobody", "--out",
               str(out), ok=2)
    assert "target 'nobody' is not in this battle" in proc.stderr and not out.exists()


def test_show_refuses_a_target_without_an_attacker(tmp_path: Path):
    out = tmp_path / "map.svg"
    proc = run("show", str(example_path("wheatfield.yaml")), "-t", "20th-maine", "--out", str(out), ok=2)
    assert "--target needs --attacker" in proc.stderr and not out.exists()


def test_show_into_a_missing_folder_is_a_clean_error(tmp_path: Path):
    proc = run("show", str(example_path("wheatfield.yaml")), "--out", str(tmp_path / "no" / "map.svg"), ok=2)
    assert "cannot write" in proc.stderr


def test_show_of_a_bad_scenario_is_a_clean_error(tmp_path: Path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("ruleset: dress-on-the-colors\nunits: [{id: a}]\n")
    proc = run("show", str(bad), "--out", str(tmp_path / "map.svg"), ok=2)
    assert "bad.yaml" in proc.stderr and not (tmp_path / "map.svg").exists()


def test_show_keeps_an_old_picture_whole_when_refused(tmp_path: Path):
    out = tmp_path / "map.svg"
    out.write_text("<svg>old</svg>")
    run("show", str(example_path("wheatfield.yaml")), "-a", "nobody", "--out", str(out), ok=2)
    assert out.read_text() == "<svg>old</svg>"


@pytest.mark.parametrize(("args", "says"), [
    (("--from-side", "right"), "--from-side: a choice is made for an attack: name the attacker too"),
    (("-a", "archers", "--from-side", "right"), "--from-side: a choice is made for an attack on a target: name the "
                                                "target too"),
    (("-a", "archers", "-t", "orc-band", "--from-side", "up"), "--from-side: 'up' is not one of front, right"),
])
def test_show_refuses_a_choice_it_cannot_draw_naming_its_option_AL_3_1(tmp_path: Path, args, says):
    out = tmp_path / "ford.svg"
    proc = run("show", str(example_path("ford.yaml")), "--out", str(out), *args, ok=2)
    assert says in proc.stderr and len(proc.stderr.strip().splitlines()) == 1 and not out.exists()


def test_show_marks_the_chosen_target_as_the_attack_chosen_is_checked_AL_3_1(tmp_path: Path):
    """From the right side the archers' line to the orc band runs into the crag: the line is drawn blocked and
    the orc band marked refused, as `check --from-side right` says; unchosen, both say it is legal."""
    ford = str(example_path("ford.yaml"))
    run_here("show", ford, "--out", str(tmp_path / "right.svg"), "-a", "archers", "-t", "orc-band", "--from-side",
             "right")
    run_here("show", ford, "--out", str(tmp_path / "plain.svg"), "-a", "archers", "-t", "orc-band")
    right, plain = (tmp_path / "right.svg").read_text(), (tmp_path / "plain.svg").read_text()
    assert 'refused-target refused side-1" data-id="orc-band"' in right and 'line-of-fire blocked' in right
    assert 'legal-target legal side-1" data-id="orc-band"' in plain and 'line-of-fire blocked' not in plain
    assert run_here("check", ford, "-a", "archers", "-t", "orc-band", "--from-side", "right", ok=1).stdout


@pytest.mark.parametrize("name, attacker, target", GAMES)
def test_the_legend_sends_a_reader_to_the_reasons_written_below(name, attacker, target):
    """A PNG has no tooltips: the legend says a refused target's reason is written below the table, and it is,
    every reason of every refused target with its clause."""
    from html import escape

    from rangefire.analysis.targets import targets
    from rangefire.draw import draw_battle
    from rangefire.rulesets import load_battle

    ruleset, battle = load_battle(example_path(name))
    svg = draw_battle(ruleset, battle, attacker)
    refused = [row for row in targets(ruleset, battle, attacker=attacker) if not row.legal]
    if refused:
        assert "refused: the clause beside it, the reason below" in svg and "hovering" not in svg
    for row in refused:
        assert escape(f"{row.target} refused: ", quote=False) in svg
        for refusal in row.refusals:
            assert escape(f"{refusal.reason} [{refusal.clause}]", quote=False) in svg, (row.target, refusal)


def test_a_picture_too_long_and_thin_for_a_png_is_refused_in_our_words(tmp_path: Path):
    """The ford's archers a million steps off: 80,000,347 by 973 pixels at the game's scale, less than a pixel
    tall once fitted into a PNG; cairosvg raised ValueError ('The SVG size is undefined') and the message named
    it. Now it says the picture's size and the way out, and nothing is written."""
    png = tmp_path / "far.png"
    proc = run("show", str(example_path("ford.yaml")), "-a", "archers", "-t", "orc-band", "--out", str(png),
               "--set", "units.archers.position=[1000000, 0.5]", ok=2)
    assert "the picture is 80,000,347 x 973 pixels at the game's scale: too long and thin for a PNG" in proc.stderr
    assert "write .svg instead" in proc.stderr and "ValueError" not in proc.stderr
    assert not png.exists()



def test_a_unit_far_off_is_drawn_as_png_at_most_4000_pixels_a_side(tmp_path: Path):
    """The Wheatfield with a regiment a million inches off: fitted into 4,000 pixels a side (8,000 took 5 s to
    compress, most of it white)."""
    png = tmp_path / "far.png"
    run_here("show", str(example_path("wheatfield.yaml")), "--out", str(png),
        "--set", "units.15th-alabama.position=[1000000, 1000000]")
    head = png.read_bytes()[:24]
    assert head.startswith(PNG_MAGIC)
    assert max(int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")) == 4000


def test_show_takes_json_like_every_command(tmp_path: Path):
    """``show --json`` was 'No such option' (exit 2, click's words): now the drawing written is said as JSON,
    and an error is JSON on standard output with its exit code."""
    import json

    svg = tmp_path / "map.svg"
    proc = run_here("show", str(example_path("wheatfield.yaml")), "-a", "15th-alabama", "--out", str(svg), "--json")
    data = json.loads(proc.stdout)
    assert data == {"format": 1, "ruleset": "dress-on-the-colors", "drawing": str(svg)} and svg.exists()
    bad = run_here("show", str(example_path("wheatfield.yaml")), "--out", str(tmp_path / "map.gif"), "--json", ok=2)
    error = json.loads(bad.stdout)["error"]
    assert error["kind"] == "invalid_input" and "a drawing is written as .svg or .png, not .gif" in error["message"]
    assert bad.stderr == ""
    nobody = run_here("show", str(example_path("wheatfield.yaml")), "-a", "nobody", "--out", str(svg), "--json", ok=2)
    assert json.loads(nobody.stdout)["error"]["kind"] == "unknown_unit"


def test_show_draws_a_move_made_with_the_library_DC_6_1_DC_10_1(tmp_path: Path):
    """A battle after a move, written and drawn from the command line: the SVG holds the unit's trail, where it
    stood and its 'moved' badge, the terrain's names and the title escaped; the PNG is not the unmoved one's."""
    from fractions import Fraction

    from rangefire.core.moves import Move
    from rangefire.rulesets import battle_from_mapping, load_battle
    from rangefire.scenario.files import write_scenario

    ruleset, battle = load_battle(example_path("wheatfield.yaml"))
    data = ruleset.dump(battle)
    data.update(turn={"number": 1, "side": "union"}, name="The <b>Wheatfield</b> & after")
    ruleset, battle = battle_from_mapping(data)
    battle, _ = ruleset.move(battle, Move("20th-maine", by=(Fraction(0), Fraction(3))))
    moved = tmp_path / "moved.yaml"
    write_scenario(moved, ruleset.dump(battle))
    run_here("show", str(moved), "--out", str(tmp_path / "moved.svg"))
    svg = (tmp_path / "moved.svg").read_text()
    assert 'class="trail side-0" data-id="20th-maine"' in svg and 'class="ghost side-0" data-id="20th-maine"' in svg
    assert 'data-mark="moved"' in svg and ">moved</text>" in svg
    assert all(f'class="label terrain-name" data-for="{t}"' in svg for t in ("stone-wall", "rose-woods", "old-smoke"))
    assert "<title>The &lt;b&gt;Wheatfield&lt;/b&gt; &amp; after</title>" in svg
    run_here("show", str(moved), "--out", str(tmp_path / "moved.png"))
    run_here("show", str(example_path("wheatfield.yaml")), "--out", str(tmp_path / "plain.png"))
    after, before = (tmp_path / "moved.png").read_bytes(), (tmp_path / "plain.png").read_bytes()
    assert after.startswith(PNG_MAGIC) and after != before


@pytest.mark.parametrize(("name", "uid", "by", "clauses"), [
    ("wheatfield.yaml", "20th-maine", "0,3", "[DC-10.1]"),
    ("ford.yaml", "spearmen", "2,-1", "[AL-10.1, AL-10.2]"),
    ("temple.yaml", "yoichi", "1,4", "[BU-9.1, BU-9.2]"),
])
def test_a_unit_moved_at_the_command_line_is_shown_with_its_trail_until_the_turn_ends(tmp_path: Path, name, uid,
                                                                                       by, clauses):
    """Each game: ``move`` writes the battle, ``show`` draws the unit's trail from where it stood at the start of
    its turn to where it stands (SVG: the trail's line, from the start to the unit, with its clauses; PNG: not the
    unmoved battle's picture); after ``end-turn`` the trail is gone."""
    import xml.etree.ElementTree as ET

    moved, ended = tmp_path / "moved.yaml", tmp_path / "ended.yaml"
    run_here("move", str(example_path(name)), uid, "--by", by, "--out", str(moved))
    run_here("show", str(moved), "--out", str(tmp_path / "moved.svg"))
    root = ET.fromstring((tmp_path / "moved.svg").read_bytes())
    svg = "{http://www.w3.org/2000/svg}"
    lines = [el for el in root.iter(svg + "line") if "trail" in el.get("class", "").split()
             and el.get("data-id") == uid]
    assert len(lines) == 1
    (start, end) = ((float(lines[0].get("x1", 0)), float(lines[0].get("y1", 0))),
                    (float(lines[0].get("x2", 0)), float(lines[0].get("y2", 0))))
    dx, dy = (float(v) for v in by.split(","))
    assert (end[0] - start[0]) * dx > 0 or (dx == 0 and abs(end[0] - start[0]) < 0.5)
    assert (end[1] - start[1]) * -dy > 0  # y runs down the picture, up the table
    assert clauses in lines[0].findtext(svg + "title", "")
    run_here("show", str(moved), "--out", str(tmp_path / "moved.png"))
    run_here("show", str(example_path(name)), "--out", str(tmp_path / "plain.png"))
    assert (tmp_path / "moved.png").read_bytes().startswith(PNG_MAGIC)
    assert (tmp_path / "moved.png").read_bytes() != (tmp_path / "plain.png").read_bytes()
    run_here("end-turn", str(moved), "--out", str(ended))
    run_here("show", str(ended), "--out", str(tmp_path / "ended.svg"))
    assert 'class="trail' not in (tmp_path / "ended.svg").read_text()
