"""Lobby rooms that someone opens stay (docs/api.md, "Room lifetime").

The sweeper deletes a lobby room that never started a game once nobody has
opened it for ``DICECUP_LOBBY_TTL_HOURS``. Opening is reading the room
(``GET /api/rooms/{code}``), a socket's welcome, or keeping a socket open:
each moves the room's ``updated_at`` (what the sweeper reads) to now, so a
host who waits in the lobby with the page open keeps the room however long
nobody joins.

A read must not become a write each time: each instance writes a room's
visit at most once per ``every`` seconds (a bounded table of the rooms it
wrote lately), in the background (the reader never waits on the database's
write lock), and every ``every`` seconds it writes the visits of the rooms
with a socket open on it in one statement per batch. Each write is a
conditional ``UPDATE`` that touches only rooms still in their first lobby."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from sqlalchemy import update

from app.db import Database, Room
from app.db.models import utcnow

log = logging.getLogger("dicecup.sweeper")

REMEMBERED = 10_000
"""Rooms whose last visit an instance remembers at most (the oldest are forgotten first)."""
PENDING = 100
"""Visits being written at once at most; more are dropped (a later read writes again)."""
BATCH = 500
"""Rooms per statement when the open sockets' visits are written."""


class LobbyVisits:
    def __init__(
        self,
        db: Database,
        *,
        every: float,
        watched: Callable[[], Iterable[str]] = list,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.db = db
        self.every = every
        self.watched = watched
        """The rooms with a socket open on this instance (the hub's)."""
        self.clock = clock
        self._written: dict[str, float] = {}  # code -> when this instance last wrote its visit, oldest first
        self._pending: set[asyncio.Task[None]] = set()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="lobby-visits")

    def opened(self, code: str, room: Mapping[str, Any]) -> None:
        """``room`` (its view) was just read by a client: a lobby room that
        never started a game counts as opened now."""
        if room.get("status") != "lobby" or room.get("games"):
            return
        if not self._due(code) or len(self._pending) >= PENDING:
            return
        self._mark(code)
        task = asyncio.create_task(self._write([code]), name="lobby-visit")
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    def _due(self, code: str) -> bool:
        last = self._written.get(code)
        return last is None or self.clock() - last >= self.every

    def _mark(self, code: str) -> None:
        self._written.pop(code, None)
        self._written[code] = self.clock()
        while len(self._written) > REMEMBERED:
            del self._written[next(iter(self._written))]

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            try:
                await self.write_watched()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("could not record the open rooms' visits", exc_info=True)

    async def write_watched(self) -> int:
        """Record a visit to every room with a socket open here (not written
        lately); answers how many rooms were looked at."""
        codes = [code for code in self.watched() if self._due(code)]
        for code in codes:
            self._mark(code)
        for start in range(0, len(codes), BATCH):
            await self._write(codes[start : start + BATCH], quiet=False)
        return len(codes)

    async def _write(self, codes: list[str], quiet: bool = True) -> None:
        try:
            async with self.db.write() as session:
                await session.execute(
                    update(Room)
                    .where(Room.code.in_(codes), Room.status == "lobby", Room.game_number == 0)
                    .values(updated_at=utcnow())
                )
        except Exception:
            for code in codes:
                self._written.pop(code, None)
            if not quiet:
                raise
            # a visit is a hint for the sweeper: never the reader's failure
            log.warning("could not record a visit to room %s", codes[0], exc_info=True)

    async def close(self) -> None:
        """Stop the periodic writes and let the visits being written finish."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._pending:
            await asyncio.gather(*self._pending, return_exceptions=True)
