"""A representative set of the API's tests run again on a PostgreSQL store (their own modules run them on SQLite):
creating, reading, acting, a stale write refused, a text no battle keeps refused, undo, attacks waiting for
another side's answer, a battle set up from empty (its sides ready at one moment, a side's Ready said twice at
once), a whole game, and streams resumed. Skipped where PostgreSQL is not installed (failed under CI=true)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from rangefire.web import create_app
from tests.web.test_api import (  # noqa: F401  (collected here again, on PostgreSQL)
    test_a_refused_attack_records_nothing,
    test_a_write_on_a_stale_state_is_a_conflict,
    test_create_gives_one_secret_link_per_side_and_one_for_spectators,
    test_each_token_knows_its_role,
    test_end_turn_passes_the_turn,
    test_no_token_or_a_guessed_one_gets_401,
    test_resolve_records_the_action_and_the_state_follows,
    test_the_state_is_the_command_lines_replay,
    test_undo_takes_back_the_last_action_of_its_own_side,
    test_unknown_battle_is_404,
)
from tests.web.test_api_fuzz import (  # noqa: F401
    test_a_text_no_battle_keeps_is_refused_naming_its_place,
)
from tests.web.test_events_resume import (  # noqa: F401
    test_a_reopened_stream_is_sent_each_action_it_missed,
    test_a_stream_reopened_while_an_attack_waits_is_told_whose_answer_it_waits_for,
)
from tests.web.test_moves_api import (  # noqa: F401
    test_a_battle_set_up_from_empty_is_started_when_both_sides_are_ready_and_played,
    test_a_move_is_recorded_the_state_follows_and_replays,
    test_a_side_saying_ready_twice_at_one_moment_starts_the_battle_once_dc_10_4,
    test_an_edit_takes_back_every_sides_readiness_dc_10_4,
    test_two_sides_ready_at_the_same_moment_start_the_battle_dc_10_4,
)
from tests.web.test_pending import (  # noqa: F401
    test_a_nomination_answered_by_the_target_s_side_bu_4_2,
    test_a_swerve_exchange_played_by_the_two_tokens_sw_3_1,
    test_an_answer_naming_its_step_never_lands_on_another_attack_bu_4_2,
    test_an_answer_read_before_a_withdrawal_never_plays_the_attack_withdrawn,
    test_the_attacker_withdraws_before_any_answer,
)
from tests.web.test_whole_game_api import (  # noqa: F401
    test_arcane_legions_three_turns_server_dice_al_10_1_al_10_2,
)


@pytest.fixture
def db_path(pg_address: str) -> str:
    """The battles of these tests kept in PostgreSQL (a schema of their own) rather than a SQLite file."""
    return pg_address


@pytest.fixture
def short(pg_address: str, tmp_path: Path) -> Iterator[TestClient]:
    """Streams that end after a fifth of a second (as test_events_resume's own), on PostgreSQL."""
    app = create_app(pg_address, stream_seconds=0.2, keepalive=0.05, static_dir=tmp_path / "static")
    try:
        with TestClient(app) as client:
            yield client
    finally:
        app.state.store.close()
