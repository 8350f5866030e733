"""The Database: a read session sees one snapshot on both databases; a
SQLite move runs on the event loop, and waits in a thread only for another
process."""

import asyncio
import sqlite3
import threading

import pytest
from sqlalchemy import select, update

from app.config import sqlite_path
from app.db.actions import Loaded, Write
from app.db.database import Database
from app.db.models import Room
from app.rooms.service import RoomService

from .test_actions import started_room, write_one_event


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


def noting_threads(player: str, threads: list[int]):
    """A made-up move (``write_one_event``) that notes the thread it is decided on."""

    def decide(loaded: Loaded) -> Write:
        threads.append(threading.get_ident())
        return write_one_event(loaded, player)

    return decide


async def test_a_sqlite_move_runs_on_the_event_loop(sqlite_database: str) -> None:
    """No worker-thread hop for a move (app.db.database, Database.act)."""
    db = Database(sqlite_database)
    try:
        code, player = await started_room(RoomService(db))
        threads: list[int] = []
        decide = noting_threads(player, threads)
        await db.act(code, player, None, decide)
        assert threads == [threading.get_ident()]
    finally:
        await db.dispose()


async def test_a_sqlite_move_waits_in_a_thread_while_another_process_holds_the_write_lock(sqlite_database: str) -> None:
    """The moves' connection never waits on the event loop: another
    connection (as another process would) holds SQLite's write lock, the move
    waits for it in a worker thread while the loop goes on, then lands."""
    db = Database(sqlite_database, busy_timeout_ms=5_000)
    other = sqlite3.connect(str(sqlite_path(sqlite_database)), isolation_level=None)
    try:
        code, player = await started_room(RoomService(db))
        threads: list[int] = []
        decide = noting_threads(player, threads)
        other.execute("BEGIN IMMEDIATE")
        move = asyncio.create_task(db.act(code, player, None, decide))
        ticks = 0
        for _ in range(20):  # the loop keeps running while the move waits
            await asyncio.sleep(0.01)
            ticks += 1
        assert ticks == 20 and not move.done()
        other.execute("COMMIT")
        write = await asyncio.wait_for(move, 5)
        assert threads and threads[-1] != threading.get_ident()  # it went to a worker thread
        async with db.read() as session:
            version = (await session.execute(select(Room.version).where(Room.code == code))).scalar_one()
        assert version == write.room.version
        # and the next move is back on the loop, with the connection's timeout back at 0
        await db.act(code, player, None, decide)
        assert threads[-1] == threading.get_ident()
    finally:
        other.close()
        await db.dispose()


async def test_the_sqlite_files_are_the_servers_alone(tmp_path) -> None:
    """They hold the VAPID private key, push secrets and password hashes:
    0600 whatever the umask (they were 0644), the WAL and shared-memory
    files too, and a database found 0644 is made 0600 when opened."""
    import os
    import stat

    from app.db.migrate import upgrade_async

    def mode(path: object) -> int:
        return stat.S_IMODE(os.stat(str(path)).st_mode)

    old = os.umask(0o022)
    try:
        fresh = tmp_path / "data" / "fresh.db"
        url = f"sqlite+aiosqlite:///{fresh}"
        await upgrade_async(url)
        db = Database(url)
        try:
            await db.open()
            async with db.write() as session:
                await session.execute(update(Room).values(version=Room.version))
            assert {mode(fresh), mode(f"{fresh}-wal"), mode(f"{fresh}-shm")} == {0o600}
            assert mode(fresh.parent) == 0o700
        finally:
            await db.dispose()
        found = tmp_path / "found.db"
        sqlite3.connect(found).close()
        os.chmod(found, 0o644)
        db = Database(f"sqlite+aiosqlite:///{found}")
        await db.dispose()
        assert mode(found) == 0o600
    finally:
        os.umask(old)
