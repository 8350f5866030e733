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

from app.realtime import CloseCode
from app.rooms import ErrorCode

from .events import Event, EventOnV2
from .schemas import ActionBody, ChatText, ClientId, PlayerOut, Reaction, RoomOut, SocketError

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

# -- events and their data: app/api/events.py ----------------------------------------------------

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
