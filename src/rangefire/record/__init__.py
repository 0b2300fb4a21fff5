"""A battle's record: the actions played, one JSON line each, and the battle rebuilt from them.

A battle is its scenario and the actions played on it since: each attack with its choices, the dice by stage,
the outcome and every log line; each end of turn (or of an activation), move, state set or cleared, and set-up
edit with its log lines; each undo with the line it takes back (:mod:`rangefire.record.actions`). ``append_action``
adds one action to a log file, ``read_log`` reads a log back whole, and ``replay`` plays the actions again on
the scenario, each attack with its recorded dice, checking that every step gives what was recorded.

One line of a log::

    {"format": 1, "action": "attack", "ruleset": "dress-on-the-colors", "attacker": "20th-maine",
     "target": "15th-alabama", "choices": {}, "dice": {"hit": [6, 4, 2]}, "outcome": {...},
     "log": [{"clause": "DC-3.1", "text": "..."}]}
    {"format": 1, "action": "end-turn", "activation": false, "log": [...]}
    {"format": 1, "action": "move", "ruleset": "dress-on-the-colors", "move": {"unit": "20th-maine",
     "by": [0, 3]}, "distance": 3, "log": [...]}
    {"format": 1, "action": "undo", "takes_back": 3, "what": "20th-maine's move"}

A line the command line writes also holds ``battle_before`` and ``battle_after``: the digests
(:func:`battle_digest`) of the battle the action was played on and of the battle after it. A command that reads
a battle with its log compares them with the battle it read (:func:`battle_positions`): a battle whose digest is
the last line's ``battle_before`` and not its ``battle_after`` is one the log has gone past (its action logged,
the battle after it never written there), which is said, never played on.

A line is appended by a single ``write`` on a file opened for appending, then synced: a writer that is
killed leaves at most an incomplete last line, with no newline, which ``read_log`` reports as such (it
never reads as a whole action).
"""

from rangefire.record.actions import (
    FORMAT,
    KINDS,
    LEFT_OUT,
    MAX_ACTIONS,
    MAX_LINE_BYTES,
    MAX_LOG_BYTES,
    Action,
    AttackAction,
    EditAction,
    EndTurnAction,
    Line,
    LogError,
    MarkAction,
    MoveAction,
    StartAction,
    UndoAction,
    action_line,
    attack_action,
    battle_digest,
    describe,
    edit_action,
    end_turn_action,
    mark_action,
    move_action,
    start_action,
)
from rangefire.record.log import (
    append_action,
    battle_positions,
    check_appendable,
    check_log_game,
    log_digests,
    read_log,
)
from rangefire.record.play import Step, play, replay, replay_steps, take_back

__all__ = ["FORMAT", "KINDS", "LEFT_OUT", "MAX_ACTIONS", "MAX_LINE_BYTES", "MAX_LOG_BYTES", "Action", "AttackAction",
           "EditAction", "EndTurnAction", "Line", "LogError", "MarkAction", "MoveAction", "StartAction", "Step",
           "UndoAction",
           "action_line", "append_action", "attack_action", "battle_digest", "battle_positions", "check_appendable",
           "check_log_game", "describe", "edit_action", "end_turn_action", "log_digests", "mark_action", "move_action",
           "play", "read_log", "replay", "replay_steps", "start_action", "take_back"]
