"""What the rooms layer hands in and out: a seat, an action request, an
action's outcome, and the two things the service is given to talk to the
realtime layer (a publisher and presence)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from app.rules import Action, GameState, Keep, Roll, Score

from .views import JSON


class Publisher(Protocol):
    """Receives each action's committed events, with the room as it stands after them."""

    async def publish(self, code: str, events: Sequence[JSON], room: JSON) -> None: ...


class Presence(Protocol):
    """Which seats of a room have a live connection."""

    def connected(self, code: str) -> Collection[str]: ...


@dataclass(frozen=True)
class Seat:
    """An authenticated seat token."""

    player_id: str
    room_code: str


@dataclass(frozen=True)
class ActionRequest:
    """One action, as a client sends it over REST or WebSocket."""

    type: Literal["roll", "keep", "score"]
    dice: tuple[int, ...] | None = None
    keep: tuple[int, ...] | None = None
    box: str | None = None
    expected_version: int | None = None
    id: str | None = None
    autopilot: bool = False
    """Played for the seat by the server (a timed-out, away or resigned seat's
    turn; ``app.lifecycle``): it does not count as the player being back."""

    def canonical(self) -> JSON:
        """The action itself, without its id or version check: what a reused id is compared by."""
        data: JSON = {"type": self.type}
        for name in ("dice", "keep", "box"):
            value = getattr(self, name)
            if value is not None:
                data[name] = list(value) if isinstance(value, tuple) else value
        return data

    def for_engine(self, player_id: str) -> Action:
        if self.type == "roll":
            return Roll(player_id, self.keep)
        if self.type == "keep":
            return Keep(player_id, self.dice or ())
        return Score(player_id, self.box or "")


@dataclass(frozen=True)
class BotTurn:
    """A turn a bot is to play: the room at ``version``, and the bot's seat and level."""

    code: str
    version: int
    state: GameState
    player_id: str
    level: str


@dataclass(frozen=True)
class Outcome:
    """What an applied action answers: the room's version after it, its events, the room."""

    version: int
    events: list[JSON]
    room: JSON
    replayed: bool = False
