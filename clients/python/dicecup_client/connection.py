"""A room's WebSocket (docs/api.md "WebSocket"): hello, resume, reconnect,
actions with ids, and the room kept in a :class:`RoomStore`."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import uuid
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Any, cast

import websockets
from websockets.asyncio.client import ClientConnection, connect

from .errors import FATAL_CLOSE_CODES, ConnectionStopped, DicecupError, StopReason
from .rest import socket_url
from .store import EventCallback, PresenceCallback, RoomStore
from .types import Action, Event, EventV2, Player, Room

if TYPE_CHECKING:
    from .rest import DicecupClient

log = logging.getLogger("dicecup_client")

__all__ = ["Backoff", "RoomConnection"]


@dataclass(frozen=True)
class Backoff:
    """Delays between reconnect attempts: exponential (``initial`` times
    ``factor`` to the attempt, at most ``maximum``) with jitter (a random
    part of ``jitter`` of each delay), so that the clients of a restarted
    server do not all come back at the same instant."""

    initial: float = 0.25
    factor: float = 2.0
    maximum: float = 10.0
    jitter: float = 0.5
    rng: random.Random = field(default_factory=random.Random, compare=False)

    def delay(self, attempt: int) -> float:
        """Seconds to wait before reconnect attempt ``attempt`` (0, 1, 2, ...)."""
        cap = min(self.maximum, self.initial * self.factor ** min(attempt, 64))
        return cap * (1 - self.jitter) + self.rng.uniform(0, cap * self.jitter)


@dataclass
class _Pending:
    message: str
    future: asyncio.Future[int]


class RoomConnection:
    """A live view of one room over its WebSocket.

    ``token`` is a seat token (``None``: watch as a spectator). The
    connection says ``hello`` with ``protocol`` (2 by default: events carry
    JSON Patches of the room), keeps the room in :attr:`store`, and after a
    dropped socket, a server restart (1012), a too-slow reader (1013) or a
    keepalive timeout (1011) reconnects with exponential backoff and jitter,
    resuming with ``after``: subscribers see every event once, in order.
    A close with one of :data:`~dicecup_client.errors.FATAL_CLOSE_CODES`
    stops it; :attr:`stopped` then says why.

    Actions get a client id; one sent when the socket dropped is sent again
    with the same id after the reconnect, so the server applies it at most
    once (for an id it knows it answers from memory).

    Use it as ``async with client.connect(code, token) as conn:`` or call
    :meth:`start` and :meth:`close`.
    """

    def __init__(
        self,
        base_url: str,
        code: str,
        token: str | None = None,
        *,
        protocol: int = 2,
        after: int | None = None,
        backoff: Backoff | None = None,
        max_retries: int | None = None,
        open_timeout: float = 10.0,
        action_timeout: float = 30.0,
        rest: DicecupClient | None = None,
        url: str | None = None,
    ) -> None:
        if protocol not in (1, 2):
            raise ValueError("protocol is 1 or 2")
        self.base_url = base_url.rstrip("/")
        self.code = code
        self.token = token
        self.protocol = protocol
        self.url = url or socket_url(self.base_url, code)
        self.backoff = backoff or Backoff()
        self.max_retries = max_retries
        self.open_timeout = open_timeout
        self.action_timeout = action_timeout
        self.store = RoomStore()
        self.you: Player | None = None
        self.stopped: StopReason | None = None
        self.reconnects = 0
        """How many times a socket was opened again after the first."""
        self._after = after
        self._rest = rest
        self._own_rest: DicecupClient | None = None
        self._ws: ClientConnection | None = None
        self._task: asyncio.Task[None] | None = None
        self._welcomed: asyncio.Future[None] | None = None
        self._stopped_event = asyncio.Event()
        self._pending: dict[str, _Pending] = {}
        self._closing = False
        self._last_error: DicecupError | None = None
        self._replay_until = 0
        self._refresh: asyncio.Task[None] | None = None

    # -- life cycle -------------------------------------------------------------------------

    async def start(self) -> RoomConnection:
        """Connect and wait for the ``welcome``. Raises :class:`ConnectionStopped`
        if the server refuses (e.g. 4404 unknown room, 4401 bad token) or the
        first connection cannot be made."""
        if self._task is None:
            self._welcomed = asyncio.get_running_loop().create_future()
            self._task = asyncio.create_task(self._run(), name=f"dicecup-room-{self.code}")
        assert self._welcomed is not None
        await asyncio.shield(self._welcomed)
        return self

    async def __aenter__(self) -> RoomConnection:
        return await self.start()

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the socket and stop (no reconnect). Pending actions fail."""
        self._closing = True
        if self._ws is not None:
            with contextlib.suppress(Exception):
                await self._ws.close()
        if self._task is not None and not self._task.done():
            try:
                await asyncio.wait_for(asyncio.shield(self._task), 5)
            except TimeoutError:
                self._task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._task
        self._stop(StopReason("closed", detail="closed by the client"))
        if self._refresh is not None:
            self._refresh.cancel()
        if self._own_rest is not None:
            await self._own_rest.aclose()

    async def wait_stopped(self) -> StopReason:
        """Wait until the connection stops for good; why."""
        await self._stopped_event.wait()
        assert self.stopped is not None
        return self.stopped

    # -- state ------------------------------------------------------------------------------

    @property
    def room(self) -> Room:
        """The room as it stands (after the welcome)."""
        if self.store.room is None:
            raise RuntimeError("no room yet: start the connection first")
        return self.store.room

    @property
    def version(self) -> int:
        """The version of the last event delivered."""
        return self.store.last_event

    @property
    def websocket(self) -> ClientConnection | None:
        """The socket in use, while one is open and welcomed (for diagnostics and tests)."""
        return self._ws

    @property
    def connected(self) -> bool:
        return self._ws is not None

    def subscribe(self, callback: EventCallback) -> Callable[[], None]:
        """``callback(event, room)`` for each new event; returns an unsubscribe function."""
        return self.store.subscribe(callback)

    def subscribe_presence(self, callback: PresenceCallback) -> Callable[[], None]:
        return self.store.subscribe_presence(callback)

    def events(self) -> AsyncIterator[tuple[Event, Room]]:
        """``async for event, room in conn.events():`` each new event with the
        room after it, until the connection stops."""
        return self.store.events()

    async def wait_for(self, predicate: Callable[[Room], bool], timeout: float | None = None) -> Room:  # noqa: ASYNC109
        """The room as soon as ``predicate(room)`` holds. Raises
        :class:`ConnectionStopped` if the connection stops first."""
        try:
            return await self.store.wait_for(predicate, timeout)
        except EOFError:
            assert self.stopped is not None
            raise ConnectionStopped(self.stopped) from None

    # -- actions ----------------------------------------------------------------------------

    async def act(self, action: Action | Mapping[str, Any], timeout: float | None = None) -> int:  # noqa: ASYNC109
        """Send an action and wait for its answer: the room's version after
        it (the store holds that room by the time this returns). Raises
        :class:`DicecupError` for a refusal, :class:`ConnectionStopped` if
        the connection stops before the answer. Without an ``id`` the
        action gets one, and keeps it if it must be sent again after a
        reconnect."""
        if self.stopped is not None:
            raise ConnectionStopped(self.stopped)
        body = dict(action)
        if not body.get("id"):
            body["id"] = uuid.uuid4().hex
        action_id = str(body["id"])
        message = json.dumps({"type": "action", "action": body}, separators=(",", ":"))
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._pending[action_id] = _Pending(message, future)
        deadline = self.action_timeout if timeout is None else timeout
        try:
            if self._ws is not None:
                with contextlib.suppress(websockets.ConnectionClosed):
                    await self._ws.send(message)  # else: sent again after the reconnect
            async with asyncio.timeout(deadline):
                version = await future
                await self.wait_for(lambda room: room["version"] >= version)
            return version
        finally:
            if self._pending.get(action_id) is not None and self._pending[action_id].future is future:
                del self._pending[action_id]

    async def roll(self, keep: list[int] | None = None) -> int:
        """Roll every die not kept (``keep``: set the kept positions first)."""
        action: dict[str, Any] = {"type": "roll"}
        if keep is not None:
            action["keep"] = keep
        return await self.act(action)

    async def keep(self, dice: list[int]) -> int:
        """Keep the dice at ``dice`` (positions 0-4), releasing the others."""
        return await self.act({"type": "keep", "dice": dice})

    async def score(self, box: str) -> int:
        return await self.act({"type": "score", "box": box})

    # -- the socket -------------------------------------------------------------------------

    async def _run(self) -> None:
        attempt = 0
        while not self._closing:
            try:
                ws = await connect(
                    self.url, open_timeout=self.open_timeout, max_size=2**24, ping_interval=20, ping_timeout=20
                )
            except (OSError, TimeoutError, websockets.InvalidHandshake, websockets.InvalidURI) as error:
                if self._welcomed is not None and not self._welcomed.done():
                    self._stop(StopReason("connect_failed", detail=f"{type(error).__name__}: {error}"))
                    return
                log.info("room %s: connecting failed (%r)", self.code, error)
            else:
                try:
                    await self._session(ws)
                except websockets.ConnectionClosed as closed:
                    code = closed.rcvd.code if closed.rcvd is not None else None
                    reason = closed.rcvd.reason if closed.rcvd is not None else ""
                    if self._closing:
                        break
                    if code in FATAL_CLOSE_CODES:
                        detail = reason or (self._last_error.detail if self._last_error else "")
                        self._stop(StopReason("fatal", code, detail, self._last_error))
                        return
                    log.info("room %s: socket closed (%s %s); reconnecting", self.code, code, reason)
                except (OSError, TimeoutError) as error:
                    log.info("room %s: socket lost (%r); reconnecting", self.code, error)
                except Exception as error:  # a bug or a message we cannot read: stop rather than spin
                    log.exception("room %s: the connection failed", self.code)
                    self._stop(StopReason("fatal", None, f"{type(error).__name__}: {error}"))
                    with contextlib.suppress(Exception):
                        await ws.close()
                    return
                finally:
                    if self._ws is not None:
                        attempt = 0  # it had been welcomed: the backoff starts over
                    self._ws = None
            if self._closing:
                break
            if self.max_retries is not None and attempt >= self.max_retries:
                self._stop(StopReason("gave_up", detail=f"{attempt} reconnect attempts failed"))
                return
            await asyncio.sleep(self.backoff.delay(attempt))
            attempt += 1
            self.reconnects += 1
        self._stop(StopReason("closed", detail="closed by the client"))

    async def _session(self, ws: ClientConnection) -> None:
        self._last_error = None
        first = self.store.room is None
        hello: dict[str, Any] = {"type": "hello", "token": self.token, "protocol": self.protocol}
        after = self._after if first else self.store.last_event
        if after is not None:
            hello["after"] = after
        await ws.send(json.dumps(hello))
        async with asyncio.timeout(self.open_timeout):
            while True:
                message = json.loads(await ws.recv())
                if message.get("type") == "welcome":
                    break
                if message.get("type") == "error":
                    self._last_error = DicecupError(message["code"], message["detail"])
        self.you = message.get("you")
        room = cast(Room, message["room"])
        self.store.reset(room, after)
        self._replay_until = room["version"]
        resend = list(self._pending.values())
        self._ws = ws
        if self._welcomed is not None and not self._welcomed.done():
            self._welcomed.set_result(None)
        for pending in resend:
            if not pending.future.done():
                await ws.send(pending.message)
        while True:
            self._dispatch(json.loads(await ws.recv()))

    def _dispatch(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "event":
            if self.protocol == 2:
                self.store.apply(cast(EventV2, message["event"]), patch=message.get("patch", []))
            else:
                event = cast(Event, message["event"])
                room = message.get("room")
                self.store.apply(event, room=room)
                if room is None and event["version"] > self._replay_until:
                    self._refresh_room()  # read back from the log after a hiccup: ask REST
        elif kind == "presence":
            self.store.presence(message["player_id"], message["connected"])
        elif kind == "ack":
            pending = self._pending.get(message.get("id") or "")
            if pending is not None and not pending.future.done():
                pending.future.set_result(int(message["version"]))
        elif kind == "error":
            error = DicecupError(message["code"], message["detail"])
            pending = self._pending.get(message.get("id") or "")
            if pending is not None and not pending.future.done():
                pending.future.set_exception(error)
            else:
                self._last_error = error
                log.info("room %s: %s", self.code, error)

    def _refresh_room(self) -> None:
        if self._refresh is not None and not self._refresh.done():
            return

        async def refresh() -> None:
            if self._rest is None:
                from .rest import DicecupClient

                self._own_rest = self._rest = DicecupClient(self.base_url)
            try:
                self.store.replace(await self._rest.get_room(self.code))
            except Exception:
                log.exception("room %s: reading the room failed", self.code)

        self._refresh = asyncio.create_task(refresh())

    def _stop(self, reason: StopReason) -> None:
        if self.stopped is not None:
            return
        self.stopped = reason
        error = ConnectionStopped(reason)
        if self._welcomed is not None and not self._welcomed.done():
            self._welcomed.set_exception(error)
        for pending in self._pending.values():
            if not pending.future.done():
                pending.future.set_exception(error)
        self.store.close()
        self._stopped_event.set()
