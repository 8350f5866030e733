"""Public rooms and quick play (docs/api.md, "Public rooms and quick play").

A room created with option ``public`` has ``rooms.public`` set; the lobby
list reads public rooms in the lobby by the index ``(public, status,
ruleset, created_at)``, newest first, a page at a time (a keyset cursor:
``created_at`` and ``id`` of the page's last room). Quick play joins the
oldest public lobby room of a rule set with a free seat, or creates one.
It is race-safe through :meth:`RoomService.join`, which takes the room's
lock and refuses a full room or a started game: a quick play that loses the
race for the last seat goes on to the next room (or creates one), so two
quick plays never overfill a room."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import and_, func, or_, select

from app.db import Player, Room
from app.rooms import DomainError, RoomService
from app.rooms.views import JSON, iso_utc, player_view

QUICKPLAY_TRIES = 5
"""Rooms a quick play tries to join before it opens its own."""


def _cursor(created: datetime, room_id: int) -> str:
    raw = f"{created.replace(tzinfo=None).isoformat()}|{room_id}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _uncursor(cursor: str) -> tuple[datetime, int]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        created, room_id = raw.split("|")
        return datetime.fromisoformat(created).replace(tzinfo=UTC), int(room_id)
    except (ValueError, UnicodeDecodeError):
        raise DomainError("invalid_cursor", "cursor is not one this list handed out") from None


class PublicRooms:
    """The lobby list and quick play, on top of the rooms service."""

    def __init__(self, service: RoomService) -> None:
        self.service = service
        # Quick plays of one rule set on this instance go one at a time, so
        # that players arriving together meet instead of each opening a room
        # (across instances the room locks still keep every room from overfilling).
        self._locks: dict[str, asyncio.Lock] = {}

    def _open_rooms(self, ruleset: str | None) -> Any:
        seated = (
            select(func.count(Player.id))
            .where(Player.room_id == Room.id, Player.left_at.is_(None))
            .correlate(Room)
            .scalar_subquery()
        )
        stmt = select(Room).where(Room.public.is_(True), Room.status == "lobby", seated < Room.max_players)
        if ruleset is not None:
            stmt = stmt.where(Room.ruleset == ruleset)
        return stmt

    async def list(self, ruleset: str | None = None, cursor: str | None = None, limit: int = 20) -> JSON:
        """Public lobby rooms with a free seat, newest first: ``{"rooms", "next"}``."""
        stmt = self._open_rooms(ruleset)
        if cursor is not None:
            created, room_id = _uncursor(cursor)
            stmt = stmt.where(or_(Room.created_at < created, and_(Room.created_at == created, Room.id < room_id)))
        stmt = stmt.order_by(Room.created_at.desc(), Room.id.desc()).limit(limit + 1)
        async with self.service.db.read() as session:
            rooms = list((await session.execute(stmt)).scalars())
            seats: dict[int, list[Player]] = {room.id: [] for room in rooms[:limit]}
            if seats:
                found = select(Player).where(Player.room_id.in_(list(seats)), Player.left_at.is_(None))
                for player in (await session.execute(found.order_by(Player.seat))).scalars():
                    seats[player.room_id].append(player)
            out = []
            for room in rooms[:limit]:
                players = seats[room.id]
                out.append(
                    {
                        "code": room.code,
                        "ruleset": room.ruleset,
                        "options": room.options,
                        "players": [player_view(p, room, ()) for p in players],
                        "max_players": room.max_players,
                        "created": iso_utc(room.created_at),
                    }
                )
        more = len(rooms) > limit
        return {"rooms": out, "next": _cursor(rooms[limit - 1].created_at, rooms[limit - 1].id) if more else None}

    async def quickplay(
        self,
        ruleset: str,
        name: str,
        profile_id: str | None = None,
        max_players: int = 2,
        before_create: Callable[[], Awaitable[None]] | None = None,
    ) -> tuple[JSON, JSON, str, bool]:
        """Join the oldest public lobby room of ``ruleset`` with a free seat, or
        create a public one (auto-starting when full): (room, player, token, created)."""
        lock = self._locks.setdefault(ruleset, asyncio.Lock())
        async with lock:
            return await self._quickplay(ruleset, name, profile_id, max_players, before_create)

    async def _quickplay(
        self,
        ruleset: str,
        name: str,
        profile_id: str | None,
        max_players: int,
        before_create: Callable[[], Awaitable[None]] | None,
    ) -> tuple[JSON, JSON, str, bool]:
        service = self.service
        stmt = self._open_rooms(ruleset).order_by(Room.created_at, Room.id).limit(QUICKPLAY_TRIES)
        async with service.db.read() as session:
            codes = [room.code for room in (await session.execute(stmt)).scalars()]
        for code in codes:
            try:
                player, token = await service.join(code, name, profile_id)
            except DomainError as refused:
                if refused.code in ("room_full", "game_in_progress", "room_closed", "room_not_found"):
                    continue  # another quick play took the last seat first
                if refused.code in ("name_taken", "removed_from_room"):
                    continue  # someone there has this name, or its host removed us: another room, or a new one
                raise
            return await service.get_room(code), player, token, False
        if before_create is not None:
            await before_create()
        options = {"public": True, "auto_start": True}
        room, player, token = await service.create_room(ruleset, name, options, max_players, profile_id)
        return room, player, token, True
