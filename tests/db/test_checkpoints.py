"""SQLite's checkpoints (app/db/checkpoints.py): the moves' connection never
checkpoints inside a move; the instance's checkpointer does, off that path."""

import asyncio

import pytest

from app.db.actions import Loaded, Write
from app.db.database import Database
from app.rooms.service import RoomService

from .test_actions import started_room, write_one_event


@pytest.fixture
async def db(sqlite_database: str):
    database = Database(sqlite_database)
    yield database
    await database.dispose()


async def test_moves_leave_the_wal_to_the_checkpointer(db) -> None:
    code, player = await started_room(RoomService(db))
    assert db.checkpointer is not None
    db.checkpointer.every = 3600  # only the checkpoints this test asks for

    def decide(loaded: Loaded) -> Write:
        return write_one_event(loaded, player)

    await db.act(code, player, None, decide)
    db.checkpointer.checkpoint()  # the WAL copied back: what follows is the moves' alone
    for _ in range(400):
        await db.act(code, player, None, decide)
    busy, frames, copied = db.checkpointer.checkpoint()
    # SQLite's default would have checkpointed inside the move that took the WAL past 1,000 pages
    assert frames > 1000, frames
    assert busy == 0 and copied == frames  # and the checkpointer copied all of it, without waiting


async def test_the_checkpointer_runs_on_its_own_from_the_first_move_until_dispose(sqlite_database: str) -> None:
    db = Database(sqlite_database)
    try:
        code, player = await started_room(RoomService(db))
        assert db.checkpointer is not None
        db.checkpointer.every = 0.02
        db.checkpointer.min_moves = 0  # whatever the WAL holds
        assert db.checkpointer.runs == 0  # nothing before a move
        await db.act(code, player, None, lambda loaded: write_one_event(loaded, player))
        await asyncio.sleep(0.3)
        assert db.checkpointer.runs >= 3
    finally:
        await db.dispose()
    runs = db.checkpointer.runs
    await asyncio.sleep(0.1)
    assert db.checkpointer.runs == runs  # stopped with the database


async def test_postgres_has_no_checkpointer(postgres_database: str) -> None:
    db = Database(postgres_database)
    try:
        assert db.checkpointer is None
    finally:
        await db.dispose()
