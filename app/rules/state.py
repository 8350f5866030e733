"""The immutable state of one game, and the actions a player can take on it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypeAlias

from .dice import DICE_COUNT, Dice
from .ruleset import Options, Scorecard

PlayerId: TypeAlias = str
"""An opaque player id chosen by whoever hosts the game."""

NOTHING_KEPT: tuple[bool, ...] = (False,) * DICE_COUNT
ROLLS_PER_TURN = 3
KEEPS_PER_TURN = 40
"""Keep actions a turn may have (each is an event everyone receives and the
log keeps); past it ``too_many_keeps``. A roll's own ``keep`` is not one."""


@dataclass(frozen=True)
class RolloffEntry:
    """One player's roll in one round of the roll-off for the first player."""

    player_id: PlayerId
    dice: Dice

    @property
    def total(self) -> int:
        return sum(self.dice)


@dataclass(frozen=True)
class Turn:
    """Whose turn it is and where it stands. ``dice`` is ``None`` before the
    first roll; ``kept`` marks positions that the next roll leaves alone."""

    player_id: PlayerId
    dice: Dice | None = None
    kept: tuple[bool, ...] = NOTHING_KEPT
    rolls_left: int = ROLLS_PER_TURN
    keeps: int = 0
    """Keep actions so far this turn (at most :data:`KEEPS_PER_TURN`)."""


@dataclass(frozen=True)
class GameState:
    """Everything the rules need to go on with a game, and nothing secret:
    the fair-dice seed is not part of it, only its commitment.

    ``rolls_made`` counts the rolls so far (roll-off included); it is the
    number of the next roll, which is what :class:`~app.rules.DiceSource` is
    asked for.
    """

    ruleset: str
    options: Options
    players: tuple[PlayerId, ...]
    """Seat order."""
    order: tuple[PlayerId, ...]
    """Play order: seat order starting from the roll-off winner."""
    rolloff: tuple[tuple[RolloffEntry, ...], ...]
    scorecards: Mapping[PlayerId, Scorecard]
    turn: Turn | None
    """``None`` once the game is over."""
    round: int
    rolls_made: int
    number: int = 1
    commitment: str | None = None
    schema: int = field(default=1)

    @property
    def finished(self) -> bool:
        return self.turn is None

    @property
    def status(self) -> str:
        return "finished" if self.finished else "playing"


@dataclass(frozen=True)
class Roll:
    """Roll every die not kept. With ``keep``, first set the kept positions
    (the ``{"type": "roll", "keep": [...]}`` shorthand)."""

    player_id: PlayerId
    keep: tuple[int, ...] | None = None


@dataclass(frozen=True)
class Keep:
    """Set which positions (0-4) the next roll leaves alone; replaces the kept set."""

    player_id: PlayerId
    dice: tuple[int, ...]


@dataclass(frozen=True)
class Score:
    """End the turn by filling ``box`` with the current dice."""

    player_id: PlayerId
    box: str


Action: TypeAlias = Roll | Keep | Score
