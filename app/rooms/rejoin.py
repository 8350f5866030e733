"""What a seat that left leaves behind for the next one taken by the same
person (docs/api.md, "Leaving and coming back").

A player the host **muted** who leaves and joins again is muted again, and
a player the host **removed** cannot take a seat in the room again for
:data:`REMOVED_FOR` (``removed_from_room``, 403). "The same person" is a
seat that left this room with the same profile (the web client sends its
profile on every join, so a new name does not help) or with the same name
as :func:`~app.rooms.names.same_name` compares names (a look-alike does not
help either). A person without a profile who comes back under a name of
another look is not recognised: rooms have no accounts, and addresses are
shared (a household, a school behind one NAT), so they are not used.
Nothing here outlives the room."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import Player, Room

from .errors import DomainError
from .names import same_name

REMOVED_FOR = timedelta(minutes=10)
"""How long a seat the host removed keeps its person out of the room."""


@dataclass(frozen=True)
class Rejoin:
    muted: bool
    """The new seat starts muted (a muted seat of the same person left)."""


async def check_rejoin(session: AsyncSession, room: Room, name: str, profile_id: str | None, now: datetime) -> Rejoin:
    """How a new seat called ``name`` (of ``profile_id``) in ``room`` starts;
    ``removed_from_room`` while the host's removal of the same person is recent."""
    left = (
        await session.execute(
            select(Player.name, Player.profile_id, Player.muted, Player.removed_at).where(
                Player.room_id == room.id,
                Player.left_at.is_not(None),
                Player.bot.is_(None),
                or_(Player.muted, Player.removed_at.is_not(None)),
            )
        )
    ).all()
    same = [
        row for row in left if same_name(row.name, name) or (profile_id is not None and row.profile_id == profile_id)
    ]
    for row in same:
        if row.removed_at is not None and _aware(row.removed_at) > now - REMOVED_FOR:
            minutes = int(REMOVED_FOR.total_seconds() // 60)
            raise DomainError(
                "removed_from_room",
                f"the host removed you from this room; you can join it again {minutes} minutes after that",
            )
    return Rejoin(muted=any(row.muted for row in same))


def _aware(at: datetime) -> datetime:
    """SQLite gives back naive UTC datetimes."""
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)
