"""One WebSocket as the hub sees it: a bounded send queue drained by its own
writer task, so a slow client never delays anyone else."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections import deque
from typing import Protocol

from .closecodes import CloseCode

log = logging.getLogger("dicecup.realtime")

_ids = itertools.count(1)


class Socket(Protocol):
    """What the hub needs of a WebSocket (Starlette's satisfies it)."""

    async def send_text(self, data: str) -> None: ...

    async def close(self, code: int = 1000, reason: str | None = None) -> None: ...


class Connection:
    """A client's socket in one room. Events pushed before :meth:`ready`
    (while the client's welcome is being read from the database) are held
    and flushed after it, skipping any the welcome already covered."""

    def __init__(
        self, socket: Socket, code: str, player_id: str | None, queue_size: int = 256, protocol: int = 1
    ) -> None:
        self.id = next(_ids)
        self.socket = socket
        self.code = code
        self.player_id = player_id
        self.protocol = protocol
        self.view_version = -1
        """Protocol 2: the version of the room this client holds (-1: unknown)."""
        self.last_version = 0
        self._ready = False
        self._early: list[tuple[int, str]] = []
        self.early_overflowed = False
        """More live events came before :meth:`ready` than the queue holds:
        they were dropped, and the socket's owner reads them from the log."""
        self._held: list[str] = []
        # A plain deque: only ever appended to and drained without waiting, and
        # much smaller than an asyncio.Queue (10,000 idle sockets add up).
        self._queue: deque[str | None] = deque()
        self._limit = queue_size
        self._writer: asyncio.Task[None] | None = None
        self._space: asyncio.Event | None = None
        self._space_mark = 0
        self.closed = asyncio.Event()
        self.close_code: int | None = None

    def start(self) -> None:
        """Ready to send. The writer task runs only while there is something to
        send, so an idle socket costs no task (10,000 idle sockets add up)."""

    def send(self, data: str) -> None:
        """Queue a message that is not a versioned event (ack, presence...); one
        that comes before :meth:`ready` waits until after the welcome."""
        if not self._ready:
            self._held.append(data)
            return
        self.send_now(data)

    def send_now(self, data: str) -> None:
        """Queue a message ahead of the gate: the welcome, and events replayed for ``after``."""
        if self.closed.is_set():
            return
        if len(self._queue) >= self._limit:
            log.info("closing socket %s of room %s: it fell too far behind", self.id, self.code)
            self.close(CloseCode.TRY_AGAIN_LATER, "too far behind; reconnect with after")
            return
        self._queue.append(data)
        self._wake_writer()

    def _wake_writer(self) -> None:
        if self._writer is None or self._writer.done():
            self._writer = asyncio.get_running_loop().create_task(self._write())

    def push_event(self, version: int, data: str) -> None:
        """Queue an event message, unless this client already has that version."""
        if not self._ready:
            if len(self._early) >= self._limit:
                self.early_overflowed = True
            else:
                self._early.append((version, data))
            return
        if version <= self.last_version:
            return
        self.last_version = version
        self.send_now(data)

    def forget_early(self) -> None:
        """Drop the live events held before :meth:`ready` (the owner reads
        them from the log instead)."""
        self._early = []
        self.early_overflowed = False

    async def wait_for_space(self, mark: int) -> None:
        """Wait until at most ``mark`` messages are queued (or the socket is
        closed): the back-pressure of a long replay, which sends no faster
        than the client reads and so never holds more than the queue."""
        while len(self._queue) > mark and not self.closed.is_set() and self.close_code is None:
            self._space_mark = mark
            self._space = asyncio.Event()
            await self._space.wait()

    def _made_space(self) -> None:
        if self._space is not None and (len(self._queue) <= self._space_mark or self.closed.is_set()):
            self._space.set()
            self._space = None

    @property
    def queued(self) -> int:
        return len(self._queue)

    @property
    def limit(self) -> int:
        return self._limit

    def ready(self, version: int) -> None:
        """The client has everything up to ``version``; flush what came meanwhile."""
        self.last_version = max(self.last_version, version)
        self._ready = True
        early, self._early = self._early, []
        for event_version, data in sorted(early, key=lambda item: item[0]):
            self.push_event(event_version, data)
        held, self._held = self._held, []
        for data in held:
            self.send_now(data)

    def close(self, code: int, reason: str = "") -> None:
        """Close after the messages already queued (or at once if the queue is full)."""
        if self.close_code is not None:
            return
        self.close_code = code
        self._reason = reason
        if len(self._queue) < self._limit:
            self._queue.append(None)
            self._wake_writer()
            return
        if self._writer is not None:  # too far behind to wait for the queue: close now
            self._writer.cancel()
        asyncio.get_running_loop().create_task(self._close_socket())

    async def _close_socket(self) -> None:
        with contextlib.suppress(Exception):
            await self.socket.close(self.close_code or 1000, getattr(self, "_reason", ""))
        self.closed.set()
        self._made_space()

    async def _write(self) -> None:
        try:
            while True:
                if not self._queue:
                    return  # nothing left to send: the task ends until the next message
                data = self._queue.popleft()
                if self._space is not None:
                    self._made_space()
                if data is None:
                    break
                await self.socket.send_text(data)
        except asyncio.CancelledError:
            return
        except Exception as error:  # the peer went away: nothing more to send
            log.debug("socket %s: send failed: %r", self.id, error)
            self.closed.set()
            self._made_space()
            return
        await self._close_socket()

    async def stop(self) -> None:
        """Stop the writer (the socket is gone)."""
        self.closed.set()
        self._made_space()
        if self._writer is not None:
            self._writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._writer

    def __repr__(self) -> str:
        return f"Connection({self.id}, room={self.code}, player={self.player_id})"
