"""The one place the server's socket messages are encoded (their types and
JSON Schema are in :mod:`app.api.protocol`). Each returns the text frame."""

from __future__ import annotations

from typing import Any

import orjson

from .patch import Op

JSON = dict[str, Any]

PONG = '{"type":"pong"}'


def _text(payload: JSON) -> str:
    return orjson.dumps(payload).decode()


def welcome(protocol: int, you: JSON | None, room: JSON) -> str:
    return _text({"type": "welcome", "protocol": protocol, "you": you, "room": room})


def ack(action_id: str | None, version: int) -> str:
    return _text({"type": "ack", "id": action_id, "version": version})


def error(code: str, detail: str, action_id: str | None = None) -> str:
    return _text({"type": "error", "id": action_id, "code": code, "detail": detail})


def presence(player_id: str, connected: bool) -> str:
    return _text({"type": "presence", "player_id": player_id, "connected": connected})


def event_v1(event: JSON, room: JSON | None) -> tuple[str, bytes | None]:
    """Protocol 1's ``event``, and the room in it encoded on its own (the hub
    keeps it for welcomes); the room is encoded once for every socket."""
    if room is None:
        return _text({"type": "event", "event": event, "room": None}), None
    encoded = orjson.dumps(room)
    return (b'{"type":"event","event":' + orjson.dumps(event) + b',"room":' + encoded + b"}").decode(), encoded


COMPACT_EVENTS = frozenset({"turn_started", "kept", "rolled"})
"""Protocol 2 leaves these events' ``data`` out when the client's room, once
patched, is the room at the event's version: it is then all in the room
(``game.round``, ``game.turn``; docs/api.md "Protocol 2")."""


def event_v2(event: JSON, patch: list[Op], room_at_event: bool = False) -> str:
    """Protocol 2's ``event``: a JSON Patch instead of the room. ``room_at_event``:
    the room the client holds after ``patch`` is the room at this event's version,
    so the ``data`` of :data:`COMPACT_EVENTS` is left out."""
    if room_at_event and event["type"] in COMPACT_EVENTS:
        event = {key: value for key, value in event.items() if key != "data"}
    return _text({"type": "event", "event": event, "patch": patch})
