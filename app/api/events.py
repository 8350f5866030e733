"""The room socket's events as types: every event's ``data`` and the event
messages of both protocol versions (``Event``, ``EventOnV2``), part of the
JSON Schema :mod:`app.api.protocol` serves at ``GET /api/protocol.json``."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from .schemas import Dice, PlayerOut, Reaction, RolloffEntryOut


class _Data(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PlayerData(_Data):
    player: PlayerOut


class RoomClosedData(_Data):
    reason: Literal["no_players"]


class GameStartedData(_Data):
    number: int
    order: list[str]
    rolloff: list[list[RolloffEntryOut]]
    commitment: str


class TurnStartedData(_Data):
    player_id: str
    round: int
    deadline: str | None = Field(
        json_schema_extra={"format": "date-time"}, description="when the turn times out; null: untimed"
    )


class SeatData(_Data):
    """The seat an event is about (turn_timed_out, player_away, player_back, player_resigned, player_muted,
    player_unmuted)."""

    player_id: str


class AbsentData(_Data):
    """A seat whose person has gone, on its turn in an untimed room (player_absent)."""

    player_id: str
    deadline: str = Field(
        json_schema_extra={"format": "date-time"},
        description="when the seat becomes away (the autopilot plays) unless its person comes back",
    )


class HintUsedData(_Data):
    """The roll a seat asked a hint about (never the advice itself)."""

    player_id: str
    round: int = Field(ge=1)
    rolls_left: Annotated[int, Field(ge=0, le=2)]


class ChatTextData(_Data):
    text: str = Field(description="normalized: 1-200 grapheme clusters; user content, to be shown as text")


class ChatReactionData(_Data):
    reaction: Reaction


Kept = Annotated[list[bool], Field(min_length=5, max_length=5)]


class KeptData(_Data):
    kept: Kept


class RolledData(_Data):
    dice: Dice
    kept: Kept
    rolls_left: Annotated[int, Field(ge=0, le=2)]


class ScoredData(_Data):
    box: str
    points: int
    yahtzee_bonus: int
    upper_bonus: int
    total: int


class GameFinishedData(_Data):
    totals: dict[str, int]
    winners: list[str]
    seed: str
    reason: Literal["completed", "resigned"] = Field(
        "completed",
        description="completed: every card filled; resigned: every other person had resigned, so the game ended "
        "at once with the one still playing as its winner (absent from games finished before it was kept)",
    )


class RematchData(_Data):
    game: int
    ready: list[str]
    waiting: list[str]


class _Event(BaseModel):
    version: int = Field(ge=1)
    player_id: str | None
    at: str = Field(json_schema_extra={"format": "date-time"})


class PlayerJoined(_Event):
    type: Literal["player_joined"]
    data: PlayerData


class PlayerLeft(_Event):
    type: Literal["player_left"]
    data: PlayerData


class SeatTokenRotated(_Event):
    """A seat was taken back by its profile (a new seat token): the old token
    no longer works and the seat's sockets are closed (4403) after this event."""

    type: Literal["seat_token_rotated"]
    data: PlayerData


class RoomClosed(_Event):
    type: Literal["room_closed"]
    data: RoomClosedData


class GameStarted(_Event):
    type: Literal["game_started"]
    data: GameStartedData


class TurnStarted(_Event):
    type: Literal["turn_started"]
    data: TurnStartedData


class KeptEvent(_Event):
    type: Literal["kept"]
    data: KeptData


class Rolled(_Event):
    type: Literal["rolled"]
    data: RolledData


class Scored(_Event):
    type: Literal["scored"]
    data: ScoredData


class GameFinished(_Event):
    type: Literal["game_finished"]
    data: GameFinishedData


class TurnTimedOut(_Event):
    """The turn clock ran out: the autopilot plays the turn (its rolled and scored events follow)."""

    type: Literal["turn_timed_out"]
    data: SeatData


class PlayerAway(_Event):
    """Two timeouts in a row: the autopilot plays the seat's turns at once until it acts or reconnects."""

    type: Literal["player_away"]
    data: SeatData


class PlayerAbsent(_Event):
    """Untimed room: the person whose turn it is has had no socket open for a few seconds; the seat becomes
    away at ``data.deadline`` unless they come back (``player_back``)."""

    type: Literal["player_absent"]
    data: AbsentData


class PlayerBack(_Event):
    """An away seat, or an absent one, acted or reconnected."""

    type: Literal["player_back"]
    data: SeatData


class PlayerResigned(_Event):
    """The seat resigned (or its host removed it while away): the autopilot finishes its scorecard; it cannot win."""

    type: Literal["player_resigned"]
    data: SeatData


class RematchAccepted(_Event):
    """The seat accepted to play again after game ``game``; once ``waiting`` is empty the next game starts
    (its ``game_started`` follows in the same commit)."""

    type: Literal["rematch_accepted"]
    data: RematchData


class HintUsed(_Event):
    """The seat asked a hint about its current roll (the first time for that roll)."""

    type: Literal["hint_used"]
    data: HintUsedData


class ChatEvent(_Event):
    """A seat said something (``text``) or reacted (``reaction``); ``player_id`` is the seat."""

    type: Literal["chat"]
    data: ChatTextData | ChatReactionData


class PlayerMuted(_Event):
    """The host (``player_id``) muted the seat ``data.player_id``'s chat."""

    type: Literal["player_muted"]
    data: SeatData


class PlayerUnmuted(_Event):
    """The host (``player_id``) unmuted the seat ``data.player_id``'s chat."""

    type: Literal["player_unmuted"]
    data: SeatData


# The events both protocols send alike; only turn_started, kept and rolled differ.
# A new event goes into one of these two, and so into both unions below.
_EventsBefore = PlayerJoined | PlayerLeft | SeatTokenRotated | RoomClosed | GameStarted
_EventsAfter = (
    Scored
    | GameFinished
    | TurnTimedOut
    | PlayerAbsent
    | PlayerAway
    | PlayerBack
    | PlayerResigned
    | RematchAccepted
    | HintUsed
    | ChatEvent
    | PlayerMuted
    | PlayerUnmuted
)

Event = Annotated[
    _EventsBefore | TurnStarted | KeptEvent | Rolled | _EventsAfter,
    Field(discriminator="type"),
]

# Protocol 2 leaves out the data of these three when the room the client
# holds once the message's patch is applied is the room at the event's
# version (app/realtime/messages.py, COMPACT_EVENTS): the data is in the room.
_IN_THE_ROOM = (
    "absent when the room the client holds after this message's patch is at the event's version "
    "(the data is then in the room: {where}); present otherwise (events replayed for after, "
    "but for the last one, and events read back from the log)"
)


def _no_default(schema: dict[str, Any]) -> None:
    schema.pop("default", None)  # absent, not null


class TurnStartedV2(_Event):
    """Protocol 2's ``turn_started``."""

    type: Literal["turn_started"]
    data: TurnStartedData | SkipJsonSchema[None] = Field(
        None,
        description=_IN_THE_ROOM.format(
            where="player_id = game.turn.player_id, round = game.round, deadline = game.deadline"
        ),
        json_schema_extra=_no_default,
    )


class KeptEventV2(_Event):
    """Protocol 2's ``kept``."""

    type: Literal["kept"]
    data: KeptData | SkipJsonSchema[None] = Field(
        None, description=_IN_THE_ROOM.format(where="kept = game.turn.kept"), json_schema_extra=_no_default
    )


class RolledV2(_Event):
    """Protocol 2's ``rolled``."""

    type: Literal["rolled"]
    data: RolledData | SkipJsonSchema[None] = Field(
        None,
        description=_IN_THE_ROOM.format(where="dice, kept and rolls_left of game.turn"),
        json_schema_extra=_no_default,
    )


EventOnV2 = Annotated[
    _EventsBefore | TurnStartedV2 | KeptEventV2 | RolledV2 | _EventsAfter,
    Field(discriminator="type"),
]
