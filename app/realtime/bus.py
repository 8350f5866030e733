"""The fan-out bus: how one instance's committed events reach every instance.

In-process when there is one instance; Redis pub/sub (``redis_bus.py``)
across instances. A bus carries two kinds of message, as plain dicts:
``{"kind": "events", "code", "events", "room"}`` on the room's channel, and
``{"kind": "presence", "code", "player_id", "instance", "connected"}``.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Protocol

Message = dict[str, Any]
Handler = Callable[[Message], Awaitable[None]]


class BusListener(Protocol):
    """What a bus calls back (the hub)."""

    async def on_message(self, message: Message) -> None: ...

    def on_presence_snapshot(self, entries: Iterable[tuple[str, str, str]]) -> None:
        """Every live (code, player_id, instance) seat connection known to the bus."""

    async def on_reconnected(self) -> None:
        """The bus was down and is back: messages may have been lost meanwhile."""


class Bus(Protocol):
    instance_id: str

    async def start(self, listener: BusListener) -> None: ...

    async def publish(self, code: str, message: Message) -> None: ...

    async def subscribe(self, code: str) -> None:
        """Receive the room's messages from now on (returns once that holds)."""

    async def unsubscribe(self, code: str) -> None: ...

    async def announce_presence(self, code: str, player_id: str, connected: bool) -> None: ...

    async def close(self) -> None: ...


def presence_message(code: str, player_id: str, instance: str, connected: bool) -> Message:
    return {"kind": "presence", "code": code, "player_id": player_id, "instance": instance, "connected": connected}


def new_instance_id() -> str:
    return secrets.token_hex(4)


class InProcessBus:
    """One instance: a message goes straight to this instance's hub."""

    def __init__(self) -> None:
        self.instance_id = new_instance_id()
        self._listener: BusListener | None = None

    async def start(self, listener: BusListener) -> None:
        self._listener = listener

    async def publish(self, code: str, message: Message) -> None:
        if self._listener is not None:
            await self._listener.on_message(message)

    async def subscribe(self, code: str) -> None:
        return None

    async def unsubscribe(self, code: str) -> None:
        return None

    async def announce_presence(self, code: str, player_id: str, connected: bool) -> None:
        await self.publish(
            code,
            {
                "kind": "presence",
                "code": code,
                "player_id": player_id,
                "instance": self.instance_id,
                "connected": connected,
            },
        )

    async def close(self) -> None:
        self._listener = None
