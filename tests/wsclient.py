"""A WebSocket client for the tests, speaking the protocol of docs/api.md.

Every message it sends or receives is checked against the protocol's JSON
Schema (``GET /api/protocol.json``): the client's against ``ClientMessage``,
the server's against ``ServerMessageV1`` or ``V2`` as the hello asked. With
protocol 2 it keeps the room by applying each event's patch (with the
``jsonpatch`` library, an implementation independent of the server's), and
puts back the ``data`` protocol 2 leaves out of ``turn_started``, ``kept``
and ``rolled`` from that room, checking that it is the room at the event's
version (the event as received is kept in ``raw``)."""

import asyncio
import json
from functools import cache
from typing import Any

import jsonpatch
import websockets
from jsonschema_rs import Draft202012Validator
from websockets.asyncio.client import ClientConnection

from app.api.protocol import protocol_document


@cache
def validator(kind: str) -> Draft202012Validator:
    document = protocol_document()
    return Draft202012Validator({**document, "anyOf": [{"$ref": f"#/$defs/{kind}"}]})


def check(kind: str, message: dict[str, Any]) -> None:
    errors = list(validator(kind).iter_errors(message))
    assert not errors, f"{kind} does not hold: {message}\n{errors[0].message}"


def with_data(event: dict[str, Any], room: dict[str, Any]) -> dict[str, Any]:
    """A protocol 2 event that left out its data, with the data read from
    ``room``, which must be the room at its version (docs/api.md "Protocol 2")."""
    assert event["type"] in ("turn_started", "kept", "rolled"), event
    assert room["version"] == event["version"], f"event {event} without data, but the room is at {room['version']}"
    game = room["game"]
    turn = game["turn"]
    data = {
        "turn_started": lambda: {"player_id": turn["player_id"], "round": game["round"], "deadline": game["deadline"]},
        "kept": lambda: {"kept": turn["kept"]},
        "rolled": lambda: {"dice": turn["dice"], "kept": turn["kept"], "rolls_left": turn["rolls_left"]},
    }[event["type"]]()
    return {**event, "data": data}


class Player:
    def __init__(
        self, ws: ClientConnection, welcome: dict[str, Any], after: int | None = None, protocol: int = 1
    ) -> None:
        self.ws = ws
        self.welcome = welcome
        self.protocol = protocol
        self.room: dict[str, Any] = welcome["room"]  # protocol 2: the room, kept by the patches
        # with `after`, the events after it follow the welcome
        self.base = welcome["room"]["version"] if after is None else after
        self.seen: list[dict[str, Any]] = []  # every event received, in order (protocol 2: data put back)
        self.raw: list[dict[str, Any]] = []  # every event message as received
        self.other: list[dict[str, Any]] = []  # acks, errors, presence, pongs

    @classmethod
    async def connect(
        cls, url: str, token: str | None = None, after: int | None = None, protocol: int | None = None
    ) -> "Player":
        ws = await websockets.connect(url, max_size=None, compression=None)
        hello: dict[str, Any] = {"type": "hello", "token": token}
        if after is not None:
            hello["after"] = after
        if protocol is not None:
            hello["protocol"] = protocol
        check("ClientMessage", hello)
        await ws.send(json.dumps(hello))
        welcome = json.loads(await asyncio.wait_for(ws.recv(), 5))
        assert welcome["type"] == "welcome", welcome
        assert welcome["protocol"] == (protocol or 1)
        check(f"ServerMessageV{protocol or 1}", welcome)
        return cls(ws, welcome, after, protocol or 1)

    @property
    def version(self) -> int:
        return self.seen[-1]["event"]["version"] if self.seen else self.base

    async def recv(self, timeout: float = 5.0) -> dict[str, Any]:
        message = json.loads(await asyncio.wait_for(self.ws.recv(), timeout))
        check(f"ServerMessageV{self.protocol}", message)
        if message["type"] == "event":
            self.raw.append(message)
        if message["type"] == "event" and self.protocol == 2:
            self.room = jsonpatch.apply_patch(self.room, message["patch"])
            if "data" not in message["event"]:
                message = {**message, "event": with_data(message["event"], self.room)}
        (self.seen if message["type"] == "event" else self.other).append(message)
        return message

    async def until_version(self, version: int, timeout: float = 10.0) -> None:
        async with asyncio.timeout(timeout):
            while self.version < version:
                await self.recv(timeout)

    async def until(self, kind: str, timeout: float = 5.0, **match: Any) -> dict[str, Any]:
        async with asyncio.timeout(timeout):
            while True:
                message = await self.recv(timeout)
                if message["type"] == kind and all(message.get(k) == v for k, v in match.items()):
                    return message

    async def send(self, message: dict[str, Any], valid: bool = True) -> None:
        """Send ``message``, checked against the schema unless the test sends a bad one on purpose."""
        if valid:
            check("ClientMessage", message)
        await self.ws.send(json.dumps(message))

    async def act(self, valid: bool = True, **action: Any) -> dict[str, Any]:
        """Send an action and wait for its ack or error."""
        await self.send({"type": "action", "action": action}, valid)
        async with asyncio.timeout(10):
            while True:
                message = await self.recv()
                if message["type"] in ("ack", "error"):
                    return message

    async def closed_with(self, timeout: float = 5.0) -> int:
        """Read until the server closes the socket; its close code."""
        try:
            async with asyncio.timeout(timeout):
                while True:
                    await self.recv(timeout)
        except websockets.ConnectionClosed as closed:
            assert closed.rcvd is not None
            return closed.rcvd.code
        raise AssertionError("unreachable")

    def versions(self) -> list[int]:
        return [m["event"]["version"] for m in self.seen]

    async def close(self) -> None:
        await self.ws.close()
