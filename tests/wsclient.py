"""A WebSocket client for the tests, speaking the protocol of API.md."""

import asyncio
import json
from typing import Any

import websockets
from websockets.asyncio.client import ClientConnection


class Player:
    def __init__(self, ws: ClientConnection, welcome: dict[str, Any], after: int | None = None) -> None:
        self.ws = ws
        self.welcome = welcome
        # with `after`, the events after it follow the welcome
        self.base = welcome["room"]["version"] if after is None else after
        self.seen: list[dict[str, Any]] = []  # every event received, in order
        self.other: list[dict[str, Any]] = []  # acks, errors, presence, pongs

    @classmethod
    async def connect(cls, url: str, token: str | None = None, after: int | None = None) -> "Player":
        ws = await websockets.connect(url, max_size=None, compression=None)
        hello: dict[str, Any] = {"type": "hello", "token": token}
        if after is not None:
            hello["after"] = after
        await ws.send(json.dumps(hello))
        welcome = json.loads(await asyncio.wait_for(ws.recv(), 5))
        assert welcome["type"] == "welcome", welcome
        return cls(ws, welcome, after)

    @property
    def version(self) -> int:
        return self.seen[-1]["event"]["version"] if self.seen else self.base

    async def recv(self, timeout: float = 5.0) -> dict[str, Any]:
        message = json.loads(await asyncio.wait_for(self.ws.recv(), timeout))
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

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(message))

    async def act(self, **action: Any) -> dict[str, Any]:
        """Send an action and wait for its ack or error."""
        await self.send({"type": "action", "action": action})
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
