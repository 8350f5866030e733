"""The room sweeper (docs/api.md, "Room lifetime"): rooms with no event for
``DICECUP_ROOM_TTL_DAYS``, and lobby rooms that never started a game with
none for ``DICECUP_LOBBY_TTL_HOURS``, are deleted with their seats, games,
events and analyses (the foreign keys cascade). Finished games' results
outlive them: ``game_results.game_id`` is set null, the results keep the
room's code and the game's number, and bests and ratings never pointed at
rooms.

One instance sweeps at a time: each run first takes the ``sweeper`` row of
``leases`` (an update that succeeds only when the lease has run out or is
already this instance's, or the row's first insert), for twice the interval."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable
from datetime import timedelta

from sqlalchemy import delete, or_, select, update
from sqlalchemy.exc import IntegrityError

from app.db import Database, Room
from app.db.models import Lease, utcnow

log = logging.getLogger("dicecup.sweeper")

LEASE = "sweeper"
BATCH = 500
"""Rooms deleted per transaction (a big backlog goes in several, never holding the write lock long)."""


class Sweeper:
    def __init__(
        self,
        db: Database,
        *,
        room_ttl_days: float = 30,
        lobby_ttl_hours: float = 24,
        interval: float = 600,
        on_swept: Callable[[str, int], None] | None = None,
    ) -> None:
        self.db = db
        self.room_ttl = timedelta(days=room_ttl_days)
        self.lobby_ttl = timedelta(hours=lobby_ttl_hours)
        self.interval = interval
        self.on_swept = on_swept
        """Told (reason, count) after each batch: ``idle`` or ``lobby`` (the metrics)."""
        self.holder = secrets.token_hex(8)
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="room-sweeper")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        while True:
            try:
                await self.sweep()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("room sweep failed")
            await asyncio.sleep(self.interval)

    async def take_lease(self) -> bool:
        """This instance holds the sweeper's lease for the next two intervals (or another does: False)."""
        now = utcnow()
        until = now + timedelta(seconds=2 * self.interval)
        async with self.db.write() as session:
            taken = await session.execute(
                update(Lease)
                .where(Lease.name == LEASE, or_(Lease.until < now, Lease.holder == self.holder))
                .values(holder=self.holder, until=until)
            )
            if taken.rowcount:  # type: ignore[attr-defined]
                return True
            if (await session.execute(select(Lease.name).where(Lease.name == LEASE))).first() is not None:
                return False
        try:
            async with self.db.write() as session:
                session.add(Lease(name=LEASE, holder=self.holder, until=until))
        except IntegrityError:
            return False  # another instance inserted it first
        return True

    async def sweep(self) -> dict[str, int]:
        """One run: the rooms deleted, by reason (nothing if another instance holds the lease)."""
        counts = {"idle": 0, "lobby": 0}
        if not await self.take_lease():
            return counts
        now = utcnow()
        reasons = {
            "idle": Room.updated_at < now - self.room_ttl,
            "lobby": (Room.status == "lobby") & (Room.game_number == 0) & (Room.updated_at < now - self.lobby_ttl),
        }
        for reason, stale in reasons.items():
            while True:
                async with self.db.write() as session:
                    ids = list((await session.execute(select(Room.id).where(stale).limit(BATCH))).scalars())
                    if ids:
                        await session.execute(delete(Room).where(Room.id.in_(ids)))
                if not ids:
                    break
                counts[reason] += len(ids)
                if self.on_swept is not None:
                    self.on_swept(reason, len(ids))
                if len(ids) < BATCH:
                    break
        if any(counts.values()):
            log.info("swept rooms: %s", counts)
        return counts
