"""The Database's sessions: a read session sees one snapshot on both databases."""

import pytest
from sqlalchemy import select, update

from app.db.database import Database
from app.db.models import Room
from app.rooms.service import RoomService


async def test_a_read_sees_one_snapshot_while_a_write_commits(database_url) -> None:
    db = Database(database_url)
    try:
        service = RoomService(db)
        room, _, _ = await service.create_room("yacht", "Ana")
        code = room["code"]
        async with db.read() as session:
            before = (await session.execute(select(Room.version).where(Room.code == code))).scalar_one()
            async with db.write() as writer:
                await writer.execute(update(Room).where(Room.code == code).values(version=Room.version + 1))
            again = (await session.execute(select(Room.version).where(Room.code == code))).scalar_one()
            assert again == before
        async with db.read() as session:
            after = (await session.execute(select(Room.version).where(Room.code == code))).scalar_one()
            assert after == before + 1
    finally:
        await db.dispose()


def test_an_in_memory_sqlite_database_is_refused() -> None:
    with pytest.raises(ValueError, match="in-memory SQLite"):
        Database("sqlite+aiosqlite:///:memory:")
