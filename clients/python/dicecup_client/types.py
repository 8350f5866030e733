"""The shapes of docs/api.md, ``GET /api/protocol.json`` and ``/openapi.json``
as TypedDicts, under the names this SDK uses.

The shapes are generated from the server's own documents (``make sdk-types``):
:mod:`.generated.protocol` (the socket's), :mod:`.generated.rest` (the REST
API's) and :mod:`.generated.constants`. This module names them and narrows the
few the documents leave loose. Rooms arrive as JSON and protocol 2 keeps them by
applying JSON Patches, so they stay plain dicts: these types describe them for a
type checker without copying them into objects. Events are a union
discriminated by ``type``::

    if event["type"] == "rolled":
        event["data"]["dice"]  # narrowed to RolledData
"""

from typing import Any, Literal, NotRequired, TypeAlias, TypedDict, cast

from .generated import protocol as p
from .generated import rest as r
from .generated.constants import (
    BOT_LEVELS,
    COMPACT_EVENT_TYPES,
    EVENT_TYPES,
    REACTIONS,
    RULESETS,
    BotLevel,
    BotSpeed,
    EventType,
    Language,
    Reaction,
    RoomStatus,
    Ruleset,
)

__all__ = [
    "BOT_LEVELS",
    "COMPACT_EVENT_TYPES",
    "EVENT_TYPES",
    "REACTIONS",
    "RULESETS",
    "BotLevel",
    "BotSpeed",
    "EventType",
    "Language",
    "Reaction",
    "RoomStatus",
    "Ruleset",
]

# -- rooms ------------------------------------------------------------------------------------

Player: TypeAlias = p.PlayerOut
Turn: TypeAlias = p.TurnOut
Scorecard: TypeAlias = p.ScorecardOut
RolloffEntry: TypeAlias = p.RolloffEntryOut
Fairness: TypeAlias = p.FairnessOut
Game: TypeAlias = p.GameOut
GameSummary: TypeAlias = p.GameSummary
SeriesLine: TypeAlias = p.SeriesLine
Rematch: TypeAlias = p.RematchOut
RoomOptions: TypeAlias = p.RoomOptions
Room: TypeAlias = p.RoomOut

# -- actions ----------------------------------------------------------------------------------

RollAction: TypeAlias = p.RollAction
KeepAction: TypeAlias = p.KeepAction
ScoreAction: TypeAlias = p.ScoreAction
Action: TypeAlias = RollAction | KeepAction | ScoreAction

# -- events -----------------------------------------------------------------------------------

PlayerData: TypeAlias = p.PlayerData
RoomClosedData: TypeAlias = p.RoomClosedData
GameStartedData: TypeAlias = p.GameStartedData
TurnStartedData: TypeAlias = p.TurnStartedData
SeatData: TypeAlias = p.SeatData
KeptData: TypeAlias = p.KeptData
RolledData: TypeAlias = p.RolledData
ScoredData: TypeAlias = p.ScoredData
GameFinishedData: TypeAlias = p.GameFinishedData
RematchData: TypeAlias = p.RematchData
HintUsedData: TypeAlias = p.HintUsedData

PlayerJoined: TypeAlias = p.PlayerJoined
PlayerLeft: TypeAlias = p.PlayerLeft
SeatTokenRotated: TypeAlias = p.SeatTokenRotated
RoomClosed: TypeAlias = p.RoomClosed
GameStarted: TypeAlias = p.GameStarted
TurnStarted: TypeAlias = p.TurnStarted
Kept: TypeAlias = p.KeptEvent
Rolled: TypeAlias = p.Rolled
Scored: TypeAlias = p.Scored
GameFinished: TypeAlias = p.GameFinished
TurnTimedOut: TypeAlias = p.TurnTimedOut
PlayerAway: TypeAlias = p.PlayerAway
PlayerBack: TypeAlias = p.PlayerBack
PlayerResigned: TypeAlias = p.PlayerResigned
RematchAccepted: TypeAlias = p.RematchAccepted
HintUsed: TypeAlias = p.HintUsed
Chat: TypeAlias = p.ChatEvent
PlayerMuted: TypeAlias = p.PlayerMuted
PlayerUnmuted: TypeAlias = p.PlayerUnmuted

Event: TypeAlias = p.Event
"""Every event, as protocol 1 and the REST API carry it."""

# Protocol 2 leaves out the data of turn_started, kept and rolled when the room,
# once patched, is the room at the event's version (it is all in the room): the
# store puts it back (see fill_data), so subscribers always get an Event.
TurnStartedV2: TypeAlias = p.TurnStartedV2
KeptV2: TypeAlias = p.KeptEventV2
RolledV2: TypeAlias = p.RolledV2
EventV2: TypeAlias = p.EventOnV2
"""An event as protocol 2's ``event`` message carries it."""


def fill_data(event: EventV2 | Event, room: Room) -> Event:
    """``event`` with its ``data``: as it came, or (a protocol 2 event that left
    it out) read from ``room``, which must be the room at the event's version.
    Raises ``ValueError`` when the data is missing and cannot be read there."""
    if "data" in event:
        return cast(Event, event)
    game = room["game"]
    turn = game["turn"] if game is not None else None
    if event["type"] not in COMPACT_EVENT_TYPES or room["version"] != event["version"] or turn is None:
        raise ValueError(f"event {event['version']} ({event['type']}) has no data, and room {room['version']} lacks it")
    assert game is not None
    data: dict[str, Any]
    if event["type"] == "turn_started":
        data = {"player_id": turn["player_id"], "round": game["round"], "deadline": game["deadline"]}
    elif event["type"] == "kept":
        data = {"kept": list(turn["kept"])}
    else:
        if turn["dice"] is None:
            raise ValueError(f"event {event['version']} (rolled) has no data, and the room's turn no dice")
        data = {"dice": list(turn["dice"]), "kept": list(turn["kept"]), "rolls_left": turn["rolls_left"]}
    return cast(Event, {**event, "data": data})


# -- socket messages (server to client) -------------------------------------------------------

PatchOp = TypedDict(
    "PatchOp",
    {
        "op": Literal["add", "remove", "replace", "move", "copy", "test"],
        "path": str,
        "value": NotRequired[Any],
        "from": NotRequired[str],
    },
)
"""One RFC 6902 operation: the server sends ``add``, ``remove`` and ``replace``
(:class:`.generated.protocol.PatchOp`); the client's applier takes all six."""

Welcome: TypeAlias = p.Welcome
EventMessageV1: TypeAlias = p.EventV1
EventMessageV2: TypeAlias = p.EventV2
Presence: TypeAlias = p.Presence
Ack: TypeAlias = p.Ack
SocketError: TypeAlias = p.SocketError
Pong: TypeAlias = p.Pong

# -- REST answers -----------------------------------------------------------------------------

Created: TypeAlias = r.Created
Joined: TypeAlias = r.Joined
QuickPlayed: TypeAlias = r.QuickPlayed
PublicRoom: TypeAlias = r.PublicRoomOut
PublicRooms: TypeAlias = r.PublicRoomsOut
Box: TypeAlias = r.BoxOut
RulesetOption: TypeAlias = r.OptionOut
RulesetInfo: TypeAlias = r.RulesetOut
KeepHint: TypeAlias = r.KeepHint
BoxHint: TypeAlias = r.BoxHint
Hint: TypeAlias = r.HintOut
PushKeys: TypeAlias = r.PushKeys
PushSubscription: TypeAlias = r.PushSubscription


# The REST document types events loosely (``EventOut``: any type, any data);
# these two answers are the same with the events as the protocol types them
# (tests/clients/test_python_types.py holds them to the document's keys).


class ActionResult(TypedDict):
    """``POST /api/rooms/{code}/actions`` (``ActionOut``)."""

    version: int
    events: list[Event]
    room: Room


class EventsPage(TypedDict):
    """``GET /api/rooms/{code}/events`` (``EventsOut``)."""

    events: list[Event]
    version: int
    more: bool
