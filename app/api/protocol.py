"""The WebSocket protocol as types: every message a client sends and every
message the server sends, in both protocol versions, and every event's
``data``. ``GET /api/protocol.json`` serves :func:`protocol_document`, a
JSON Schema (2020-12) generated from these models; the test suite checks
every message it sends or receives against it.

The hot path does not build these models (the hub encodes each event once,
with orjson, for every socket that gets it); the server's output is held to
them by the tests. Client messages are parsed with them.
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from pydantic.json_schema import SkipJsonSchema

from app.realtime import CloseCode
from app.rooms import ErrorCode

from .schemas import ActionBody, ChatText, ClientId, Dice, PlayerOut, Reaction, RolloffEntryOut, RoomOut, SocketError

PROTOCOLS = (1, 2)
"""The protocol versions the server speaks (``hello``'s ``protocol``; 1 when absent)."""
LATEST = max(PROTOCOLS)

# -- what a client sends ----------------------------------------------------------------------


class _In(BaseModel):
    model_config = ConfigDict(extra="ignore")


class Hello(_In):
    """The first message: who this socket is, and where to resume."""

    type: Literal["hello"]
    token: Annotated[str, Field(max_length=128)] | None = Field(None, description="a seat token; null: a spectator")
    after: Annotated[int, Field(ge=0)] | None = Field(None, description="the last event version the client holds")
    protocol: Literal[1, 2] = Field(1, description="1: each event carries the room; 2: a JSON Patch of it")


class Ping(_In):
    type: Literal["ping"]


class ActionMessage(_In):
    type: Literal["action"]
    action: ActionBody


class ChatMessage(_In):
    """Say something or react (a seat): exactly one of ``text`` and ``reaction``.
    Answered with an ``ack`` (the chat event's version) or an ``error`` carrying ``id``."""

    type: Literal["chat"]
    text: ChatText | None = None
    reaction: Reaction | None = None
    id: ClientId | None = None


class MuteMessage(_In):
    """The host mutes (``muted``: true) or unmutes a seat's chat; answered with an ``ack`` or an ``error``."""

    type: Literal["mute"]
    player_id: Annotated[str, Field(max_length=32)]
    muted: bool
    id: ClientId | None = None


ClientMessage = Annotated[Hello | Ping | ActionMessage | ChatMessage | MuteMessage, Field(discriminator="type")]
CLIENT_MESSAGE: TypeAdapter[Hello | Ping | ActionMessage | ChatMessage | MuteMessage] = TypeAdapter(ClientMessage)

# -- events and their data --------------------------------------------------------------------


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


class PlayerBack(_Event):
    """An away seat acted or reconnected."""

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

# -- what the server sends ---------------------------------------------------------------------


class Welcome(BaseModel):
    type: Literal["welcome"]
    protocol: Literal[1, 2] = Field(description="the version the server speaks on this socket")
    you: PlayerOut | None = Field(description="the seat of the hello's token; null for a spectator")
    room: RoomOut


class EventV1(BaseModel):
    """Protocol 1: the event and the room after it (null on replayed events but the last)."""

    type: Literal["event"]
    event: Event
    room: RoomOut | None


class PatchOp(BaseModel):
    """One RFC 6902 operation; ``value`` is absent from ``remove``."""

    op: Literal["add", "remove", "replace"]
    path: str = Field(description="an RFC 6901 pointer into the room; '' is the whole room")
    value: Any = None


class EventV2(BaseModel):
    """Protocol 2: the event and an RFC 6902 patch from the room the client
    holds to the room after the event (often empty). ``turn_started``,
    ``kept`` and ``rolled`` leave out ``data`` that room holds."""

    type: Literal["event"]
    event: EventOnV2
    patch: list[PatchOp]


class Presence(BaseModel):
    type: Literal["presence"]
    player_id: str
    connected: bool


class Ack(BaseModel):
    type: Literal["ack"]
    id: str | None
    version: int


class Pong(BaseModel):
    type: Literal["pong"]


ServerMessageV1 = Annotated[Welcome | EventV1 | Presence | Ack | SocketError | Pong, Field(discriminator="type")]
ServerMessageV2 = Annotated[Welcome | EventV2 | Presence | Ack | SocketError | Pong, Field(discriminator="type")]


class _Document(BaseModel):
    client: ClientMessage
    server_v1: ServerMessageV1
    server_v2: ServerMessageV2


@cache
def protocol_document() -> dict[str, Any]:
    """The JSON Schema of the protocol: ``ClientMessage``, ``ServerMessageV1``
    and ``ServerMessageV2`` (and everything they use) under ``$defs``."""
    schema = _Document.model_json_schema(ref_template="#/$defs/{model}")
    defs: dict[str, Any] = schema.pop("$defs")
    for name, prop in schema["properties"].items():
        title = {"client": "ClientMessage", "server_v1": "ServerMessageV1", "server_v2": "ServerMessageV2"}[name]
        defs[title] = {key: value for key, value in prop.items() if key != "title"} | {"title": title}
    defs["CloseCode"] = {
        "title": "CloseCode",
        "description": "the codes a room socket closes with (1011 also: keepalive timeout)",
        "type": "integer",
        "enum": [int(code) for code in CloseCode],
        "x-meanings": {str(int(code)): code.meaning for code in CloseCode},
        # each code's name, as generators of client types name enum members (make sdk-types)
        "x-enum-varnames": [code.name for code in CloseCode],
    }
    defs["ErrorCode"]["enum"] = [code.value for code in ErrorCode]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Dicecup room socket protocol",
        "description": "Messages of GET /api/rooms/{code}/ws (docs/api.md). A client sends ClientMessage; "
        "the server sends ServerMessageV1 or ServerMessageV2, as the hello's protocol asked.",
        "x-protocols": list(PROTOCOLS),
        "anyOf": [
            {"$ref": "#/$defs/ClientMessage"},
            {"$ref": "#/$defs/ServerMessageV1"},
            {"$ref": "#/$defs/ServerMessageV2"},
        ],
        "$defs": defs,
    }
