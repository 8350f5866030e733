"""What happened: the events ``apply`` returns, as ``docs/api.md``'s event table names them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypeAlias

from .dice import Dice
from .state import PlayerId, RolloffEntry


def rolloff_data(rolloff: tuple[tuple[RolloffEntry, ...], ...]) -> list[list[dict[str, Any]]]:
    return [[{"player_id": e.player_id, "dice": list(e.dice), "total": e.total} for e in round_] for round_ in rolloff]


@dataclass(frozen=True)
class GameStarted:
    type: ClassVar[str] = "game_started"
    number: int
    order: tuple[PlayerId, ...]
    rolloff: tuple[tuple[RolloffEntry, ...], ...]
    commitment: str | None
    player_id: PlayerId | None = None

    def data(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "order": list(self.order),
            "rolloff": rolloff_data(self.rolloff),
            "commitment": self.commitment,
        }


@dataclass(frozen=True)
class TurnStarted:
    type: ClassVar[str] = "turn_started"
    player_id: PlayerId
    round: int

    def data(self) -> dict[str, Any]:
        return {"player_id": self.player_id, "round": self.round}


@dataclass(frozen=True)
class Kept:
    type: ClassVar[str] = "kept"
    player_id: PlayerId
    kept: tuple[bool, ...]

    def data(self) -> dict[str, Any]:
        return {"kept": list(self.kept)}


@dataclass(frozen=True)
class Rolled:
    type: ClassVar[str] = "rolled"
    player_id: PlayerId
    dice: Dice
    kept: tuple[bool, ...]
    rolls_left: int

    def data(self) -> dict[str, Any]:
        return {"dice": list(self.dice), "kept": list(self.kept), "rolls_left": self.rolls_left}


@dataclass(frozen=True)
class Scored:
    """``upper_bonus`` is 35 when this score is the one that earned the
    upper bonus, else 0; ``total`` is the player's grand total after it."""

    type: ClassVar[str] = "scored"
    player_id: PlayerId
    box: str
    points: int
    yahtzee_bonus: int
    upper_bonus: int
    total: int

    def data(self) -> dict[str, Any]:
        return {
            "box": self.box,
            "points": self.points,
            "yahtzee_bonus": self.yahtzee_bonus,
            "upper_bonus": self.upper_bonus,
            "total": self.total,
        }


@dataclass(frozen=True)
class GameFinished:
    """``seed`` is the revealed fair-dice seed (``None`` for dice that made no commitment)."""

    type: ClassVar[str] = "game_finished"
    totals: Mapping[PlayerId, int]
    winners: tuple[PlayerId, ...]
    seed: str | None
    player_id: PlayerId | None = None

    def data(self) -> dict[str, Any]:
        return {"totals": dict(self.totals), "winners": list(self.winners), "seed": self.seed}


Event: TypeAlias = GameStarted | TurnStarted | Kept | Rolled | Scored | GameFinished
