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


def event_v2(event: JSON, patch: list[Op]) -> str:
    """Protocol 2's ``event``: a JSON Patch instead of the room."""
    return _text({"type": "event", "event": event, "patch": patch})
