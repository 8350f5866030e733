"""The room a client holds, kept by events, patches and presence, with subscriptions."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from typing import Any, cast

from .patch import apply_patch
from .types import Event, EventV2, Room, fill_data

log = logging.getLogger("dicecup_client")

EventCallback = Callable[[Event, Room], None]
PresenceCallback = Callable[[str, bool, Room], None]
_END = object()


class RoomStore:
    """The room as the server has it, and the events that led there.

    ``room`` is replaced, never changed in place (patches copy only the
    path they touch), so a room handed to a subscriber stays as it was.
    ``last_event`` is the version of the last event delivered to
    subscribers: each event is delivered once, in version order, however
    often the connection resumes. Events replayed on a resume (``after``)
    come with the room as it stands at the end of the replay, which is what
    the server's ``welcome`` carries.
    """

    def __init__(self) -> None:
        self.room: Room | None = None
        self.last_event: int = 0
        self._callbacks: list[EventCallback] = []
        self._presence: list[PresenceCallback] = []
        self._queues: list[asyncio.Queue[Any]] = []
        self._waiters: list[tuple[Callable[[Room], bool], asyncio.Future[Room]]] = []
        self._closed = False

    @property
    def version(self) -> int:
        """The version of the room held (0 before the first welcome)."""
        return self.room["version"] if self.room is not None else 0

    # -- changes ----------------------------------------------------------------------------

    def reset(self, room: Room, after: int | None = None) -> None:
        """A whole room (a ``welcome``): events up to ``after`` (default: the
        room's version) count as delivered; later ones will come as events."""
        self.room = room
        self.last_event = room["version"] if after is None else min(after, room["version"])
        self._changed()

    def apply(
        self, event: Event | EventV2, *, patch: Iterable[Mapping[str, Any]] | None = None, room: Room | None = None
    ) -> bool:
        """An ``event`` message: protocol 2's ``patch`` is applied to the room
        held; protocol 1's ``room`` (when not null) replaces it. The event
        goes to subscribers unless it was delivered already, with its ``data``
        (protocol 2 leaves out what the patched room holds: it is read back
        from the room, see :func:`~dicecup_client.types.fill_data`). True if it did."""
        if patch is not None and self.room is not None:
            self.room = cast(Room, apply_patch(self.room, patch))
        elif room is not None:
            self.room = room
        fresh = event["version"] > self.last_event
        if fresh:
            assert self.room is not None
            event = fill_data(event, self.room)
            self.last_event = event["version"]
            for callback in list(self._callbacks):
                try:
                    callback(event, self.room)
                except Exception:
                    log.exception("an event callback failed")
            for queue in self._queues:
                queue.put_nowait((event, self.room))
        self._changed()
        return fresh

    def replace(self, room: Room) -> None:
        """A room read over REST (protocol 1's answer to an event without a room)."""
        if self.room is None or room["version"] >= self.room["version"]:
            self.room = room
            self._changed()

    def presence(self, player_id: str, connected: bool) -> None:
        """A ``presence`` message: the player's ``connected`` flag."""
        if self.room is None:
            return
        players = self.room["players"]
        for index, player in enumerate(players):
            if player["id"] == player_id and player["connected"] != connected:
                updated = list(players)
                updated[index] = {**player, "connected": connected}
                self.room = {**self.room, "players": updated}
                break
        for callback in list(self._presence):
            try:
                callback(player_id, connected, self.room)
            except Exception:
                log.exception("a presence callback failed")
        self._changed()

    def close(self) -> None:
        """No more changes: iterators end, waiters get :class:`EOFError`
        (the connection replaces it with its own reason)."""
        self._closed = True
        for queue in self._queues:
            queue.put_nowait(_END)
        for _, future in self._waiters:
            if not future.done():
                future.set_exception(EOFError("the room store was closed"))
        self._waiters.clear()

    def _changed(self) -> None:
        if self.room is None or not self._waiters:
            return
        room = self.room
        keep = []
        for predicate, future in self._waiters:
            if future.done():
                continue
            try:
                if predicate(room):
                    future.set_result(room)
                    continue
            except Exception as error:
                future.set_exception(error)
                continue
            keep.append((predicate, future))
        self._waiters = keep

    # -- subscriptions ----------------------------------------------------------------------

    def subscribe(self, callback: EventCallback) -> Callable[[], None]:
        """Call ``callback(event, room)`` for each new event, ``room`` being the
        room after it. Returns a function that unsubscribes."""
        self._callbacks.append(callback)
        return lambda: self._callbacks.remove(callback) if callback in self._callbacks else None

    def subscribe_presence(self, callback: PresenceCallback) -> Callable[[], None]:
        """Call ``callback(player_id, connected, room)`` for each presence message."""
        self._presence.append(callback)
        return lambda: self._presence.remove(callback) if callback in self._presence else None

    async def events(self) -> AsyncIterator[tuple[Event, Room]]:
        """Each new event with the room after it, from now until the store
        closes (the connection stopped)."""
        queue: asyncio.Queue[Any] = asyncio.Queue()
        if self._closed:
            return
        self._queues.append(queue)
        try:
            while True:
                item = await queue.get()
                if item is _END:
                    return
                yield cast(tuple[Event, Room], item)
        finally:
            self._queues.remove(queue)

    async def wait_for(self, predicate: Callable[[Room], bool], timeout: float | None = None) -> Room:  # noqa: ASYNC109
        """The room, as soon as ``predicate(room)`` holds (now, or after a change)."""
        if self.room is not None and predicate(self.room):
            return self.room
        if self._closed:
            raise EOFError("the room store was closed")
        future: asyncio.Future[Room] = asyncio.get_running_loop().create_future()
        self._waiters.append((predicate, future))
        try:
            return await asyncio.wait_for(future, timeout)
        finally:
            if not future.done():
                future.cancel()
