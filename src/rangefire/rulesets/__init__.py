"""The registry of games: ``RULESETS`` and :func:`find_ruleset`, and loading a scenario into its game.

A game's modules are imported when the game is first used (a scenario of it read, ``RULESETS`` walked), not
when this package is: a command on a Dress on the Colors battle never loads the other three games (nor what
they need, numpy among it). The table below names each game's key, aliases and player's choices without
loading it (the command line makes its options from the choices before it knows which game it will read); a
test holds it to the classes' own declarations.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, overload

from pydantic import BaseModel

from rangefire.core import Ruleset, ScenarioError, UnknownRulesetError
from rangefire.core.options import option_path_problem
from rangefire.core.types import Choice
from rangefire.scenario import read_scenario, validate
from rangefire.scenario.files import source_name
from rangefire.scenario.paths import Setting, apply_settings

if TYPE_CHECKING:
    from rangefire.rulesets import arcane_legions, bushido, dress_on_the_colors, swerve
    from rangefire.rulesets.arcane_legions import ArcaneLegions
    from rangefire.rulesets.bushido import Bushido
    from rangefire.rulesets.dress_on_the_colors import DressOnTheColors
    from rangefire.rulesets.swerve import Swerve

#: The names of each game, as ``game=`` of :func:`load_battle` and :func:`find_ruleset` take them: its key and
#: aliases. Given one of these, the loaders are typed with the game's own classes.
DressKey = Literal["dress-on-the-colors", "doc", "dress"]
ArcaneKey = Literal["arcane-legions", "al", "arcane"]
BushidoKey = Literal["bushido", "bu"]
SwerveKey = Literal["swerve", "swerve-card-game"]
#: Any built-in game's key or alias.
GameKey = Literal[DressKey, ArcaneKey, BushidoKey, SwerveKey]


@dataclass(frozen=True)
class Game:
    """A built-in game as the registry knows it before loading it: its key, aliases, class and the choices its
    class declares (``Ruleset.choices``)."""

    key: str
    aliases: tuple[str, ...]
    module: str
    name: str
    choices: tuple[Choice, ...] = ()


_SIDES = ("front", "right", "back", "left")


#: The built-in games, in the order they are listed.
GAMES: tuple[Game, ...] = (
    Game("dress-on-the-colors", ("doc", "dress"), "rangefire.rulesets.dress_on_the_colors", "DressOnTheColors"),
    Game("arcane-legions", ("al", "arcane"), "rangefire.rulesets.arcane_legions", "ArcaneLegions", (
        Choice("order", "enum", ("ranged", "close"), "the order given: ranged (the default) or close combat",
               "AL-8.1"),
        Choice("from_side", "side", _SIDES, "the attacker's side to use (the engine chooses where none is given)",
               "AL-3.1"),
        Choice("to_side", "side", _SIDES, "the target's side to attack (the engine chooses where none is given)",
               "AL-3.1"))),
    Game("bushido", ("bu",), "rangefire.rulesets.bushido", "Bushido", (
        Choice("redirect_to", "unit", (), "the model the target's player nominates instead", "BU-4.2"),)),
    Game("swerve", ("swerve-card-game",), "rangefire.rulesets.swerve", "Swerve", (
        Choice("actions", "actions", (), "the line of play, e.g. attacker:pass,defender:swerve-target (both sides "
               "then play their best)", "SW-3.1"),)),
)
_LOADED: dict[str, Ruleset[Any, Any]] = {}


def _load(game: Game) -> Ruleset[Any, Any]:
    ruleset = _LOADED.get(game.key)
    if ruleset is None:
        ruleset = _LOADED[game.key] = getattr(importlib.import_module(game.module), game.name)()
    return ruleset


class Registry(Sequence[Ruleset[Any, Any]]):
    """Every built-in game, one instance each, in a fixed order; each game loaded when first used.

    >>> RULESETS.keys()
    ('dress-on-the-colors', 'arcane-legions', 'bushido', 'swerve')
    >>> RULESETS[2]
    Bushido()
    """

    def __len__(self) -> int:
        return len(GAMES)

    @overload
    def __getitem__(self, index: int) -> Ruleset[Any, Any]: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Ruleset[Any, Any], ...]: ...
    def __getitem__(self, index: int | slice) -> Ruleset[Any, Any] | tuple[Ruleset[Any, Any], ...]:
        if isinstance(index, slice):
            return tuple(_load(game) for game in GAMES[index])
        return _load(GAMES[index])

    def __iter__(self) -> Iterator[Ruleset[Any, Any]]:
        return (_load(game) for game in GAMES)

    def __repr__(self) -> str:
        return f"RULESETS({', '.join(self.keys())})"

    def keys(self) -> tuple[str, ...]:
        """The games' keys, without loading any."""
        return tuple(game.key for game in GAMES)


#: Every built-in game, one instance each.
RULESETS = Registry()


@overload
def find_ruleset(name: DressKey) -> DressOnTheColors: ...
@overload
def find_ruleset(name: ArcaneKey) -> ArcaneLegions: ...
@overload
def find_ruleset(name: BushidoKey) -> Bushido: ...
@overload
def find_ruleset(name: SwerveKey) -> Swerve: ...
@overload
def find_ruleset(name: str) -> Ruleset[Any, Any, Any]: ...
def find_ruleset(name: str) -> Ruleset[Any, Any, Any]:
    """The ruleset whose key or alias is ``name`` (only that game is loaded); named by a literal key or alias,
    typed as that game's class (``find_ruleset("bushido")`` is a :class:`Bushido`).

    >>> find_ruleset("dress-on-the-colors")
    DressOnTheColors()
    >>> find_ruleset("chess")
    Traceback (most recent call last):
    ...
    rangefire.core.errors.UnknownRulesetError: unknown ruleset 'chess'; known: dress-on-the-colors (doc, dress), ...
    """
    for game in GAMES:
        if name == game.key or name in game.aliases:
            return _load(game)
    known = ", ".join(f"{g.key} ({', '.join(g.aliases)})" if g.aliases else g.key for g in GAMES)
    raise UnknownRulesetError(f"unknown ruleset {name!r}; known: {known}")


def __getattr__(name: str) -> Any:
    """The games' classes, loaded when asked for (``from rangefire.rulesets import Bushido``)."""
    for game in GAMES:
        if name == game.name:
            return type(_load(game))
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@overload
def battle_from_mapping(data: dict[str, Any], source: str = ..., settings: Iterable[Setting] = ..., *,
                        game: DressKey) -> tuple[DressOnTheColors, dress_on_the_colors.Battle]: ...
@overload
def battle_from_mapping(data: dict[str, Any], source: str = ..., settings: Iterable[Setting] = ..., *,
                        game: ArcaneKey) -> tuple[ArcaneLegions, arcane_legions.Battle]: ...
@overload
def battle_from_mapping(data: dict[str, Any], source: str = ..., settings: Iterable[Setting] = ..., *,
                        game: BushidoKey) -> tuple[Bushido, bushido.Battle]: ...
@overload
def battle_from_mapping(data: dict[str, Any], source: str = ..., settings: Iterable[Setting] = ..., *,
                        game: SwerveKey) -> tuple[Swerve, swerve.Battle]: ...
@overload
def battle_from_mapping(data: dict[str, Any], source: str = ..., settings: Iterable[Setting] = ..., *,
                        game: str | None = None) -> tuple[Ruleset[Any, Any], BaseModel]: ...
def battle_from_mapping(data: dict[str, Any], source: str = "scenario", settings: Iterable[Setting] = (), *,
                        game: str | None = None) -> tuple[Ruleset[Any, Any, Any], BaseModel]:
    """Validate a scenario mapping: its ``ruleset`` key picks the game, whose model checks the rest.

    ``settings`` change values by path first (house rules, what-ifs); the battle is then checked whole, so a
    setting is held to every rule a file is, and an error names the settings beside the source.

    ``game`` (a key or alias) says which game the scenario must be: one of another is refused
    (:class:`ScenarioError` at ``ruleset``), and the game and battle are typed as that game's own (see
    :func:`load_battle`).
    """
    settings = list(settings)
    if settings:
        data = apply_settings(data, settings, source=source)
        source = f"{source} with {', '.join(map(str, settings))}"
    key = data.get("ruleset")
    if not isinstance(key, str):
        raise ScenarioError([f"ruleset: is required, one of {', '.join(RULESETS.keys())}"], source=source)
    try:
        ruleset = find_ruleset(key)
    except UnknownRulesetError as exc:
        raise ScenarioError([f"ruleset: {exc}"], source=source) from None
    if game is not None and find_ruleset(game) is not ruleset:
        raise ScenarioError([f"ruleset: must be {find_ruleset(game).key} (the game asked for), got {ruleset.key}"],
                            source=source)
    # a setting's path among the game's options is checked against them: a step past a single value or a
    # misspelt name is said as such, not as the mapping the table's model would find where a value belongs
    wrong = [p for p in (option_path_problem(ruleset.options_model, s.path, value=s.value) for s in settings
                         if s.path.split(".")[0] == "options") if p]
    if wrong:
        raise ScenarioError(wrong, source=source)
    try:
        raw = ruleset.raw_problems(data)
        crash: Exception | None = None
    except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
        # A check on the raw mapping that trips over a value of the wrong kind: the field validation below
        # names that value; only when it finds nothing is this a fault of ours, and raised as such.
        raw, crash = [], exc
    battle = validate(ruleset.battle_model, {**data, "ruleset": ruleset.key}, source=source, extra_problems=raw)
    if crash is not None:
        raise crash
    return ruleset, battle


@overload
def load_battle(path: str | Path, settings: Iterable[Setting] = ..., *,
                game: DressKey) -> tuple[DressOnTheColors, dress_on_the_colors.Battle]: ...
@overload
def load_battle(path: str | Path, settings: Iterable[Setting] = ..., *,
                game: ArcaneKey) -> tuple[ArcaneLegions, arcane_legions.Battle]: ...
@overload
def load_battle(path: str | Path, settings: Iterable[Setting] = ..., *,
                game: BushidoKey) -> tuple[Bushido, bushido.Battle]: ...
@overload
def load_battle(path: str | Path, settings: Iterable[Setting] = ..., *,
                game: SwerveKey) -> tuple[Swerve, swerve.Battle]: ...
@overload
def load_battle(path: str | Path, settings: Iterable[Setting] = ..., *,
                game: str | None = None) -> tuple[Ruleset[Any, Any], BaseModel]: ...
def load_battle(path: str | Path, settings: Iterable[Setting] = (), *,
                game: str | None = None) -> tuple[Ruleset[Any, Any, Any], BaseModel]:
    """Read and validate a scenario file (YAML, TOML or JSON; ``-`` reads standard input, JSON or YAML) into its
    game and battle, with ``settings`` made first (see :func:`battle_from_mapping`).

    Name the game (``game="bushido"``, a key or alias) and the two come typed as that game's own: the
    :class:`Bushido` ruleset and its ``Battle``, so that its plans, odds and outcomes are typed through
    (``plan(...)`` a ``BushidoPlan``, ``odds(plan)`` an ``Odds[BushidoPlan]``, a resolution's ``outcome`` a
    ``BushidoOutcome``); a file of another game is then refused. Without ``game`` any game's file is read,
    typed as a ruleset and battle of any game.

    >>> from rangefire.demo import example_path
    >>> bushido, temple = load_battle(example_path("temple.yaml"), game="bushido")
    >>> bushido, type(temple).__module__
    (Bushido(), 'rangefire.rulesets.bushido.scenario')
    >>> load_battle(example_path("temple.yaml"), game="doc")
    Traceback (most recent call last):
    ...
    rangefire.core.errors.ScenarioError: ...temple.yaml: ruleset: must be dress-on-the-colors (the game asked for), ...
    """
    return battle_from_mapping(read_scenario(path), source=source_name(path), settings=settings, game=game)


__all__ = ["GAMES", "RULESETS", "ArcaneKey", "ArcaneLegions", "Bushido", "BushidoKey", "DressKey",
           "DressOnTheColors", "Game", "GameKey", "Registry", "Swerve", "SwerveKey", "battle_from_mapping",
           "find_ruleset", "load_battle"]
