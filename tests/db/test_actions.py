"""The actions' storage (app/db/actions.py): what it stores, and on
PostgreSQL the conditional write that makes a loser decide again."""

import asyncio
import threading
from dataclasses import replace

from sqlalchemy import select, update

from app.db.actions import Loaded, Write
from app.db.database import Database
from app.db.models import Event, Room, utcnow
from app.rooms.secrets import normalize_code
from app.rooms.service import RoomService


async def started_room(service: RoomService) -> tuple[str, str]:
    room, player, token = await service.create_room("yacht", "Ana", max_players=1)
    seat = await service.authenticate(room["code"], token)
    await service.start_game(room["code"], seat)
    return normalize_code(room["code"]), player["id"]


def write_one_event(loaded: Loaded, player_id: str) -> Write:
    """A made-up action: one event, the game's state untouched."""
    assert loaded.room is not None and loaded.game is not None
    room = replace(loaded.room, version=loaded.room.version + 1)
    event = {"version": room.version, "type": "kept", "player_id": player_id, "data": {"kept": [True] * 5}}
    return Write(room, loaded.game, loaded.players, loaded.room.version, utcnow(), [event])


async def test_a_write_lands_whole(database_url) -> None:
    db = Database(database_url)
    try:
        code, player = await started_room(RoomService(db))
        seen: list[Loaded] = []

        def decide(loaded: Loaded) -> Write:
            seen.append(loaded)
            return write_one_event(loaded, player)

        write = await db.act(code, player, None, decide)
        assert len(seen) == 1 and [p.id for p in seen[0].players] == [player] and not seen[0].seen
        async with db.read() as session:
            version = (await session.execute(select(Room.version).where(Room.code == code))).scalar_one()
            last = (await session.execute(select(Event).order_by(Event.id.desc()).limit(1))).scalar_one()
        assert version == write.room.version
        assert (last.version, last.type, last.data) == (version, "kept", {"kept": [True] * 5})
    finally:
        await db.dispose()


async def test_a_write_that_lost_the_race_decides_again(database_url) -> None:
    """Between the read and the write another writer moves the room: on
    PostgreSQL the write stores nothing and ``decide`` runs again on the new
    room; on SQLite the transaction holds the lock, so the other writer waits."""
    db = Database(database_url)
    try:
        code, player = await started_room(RoomService(db))
        versions: list[int] = []

        def decide(loaded: Loaded) -> Write:
            assert loaded.room is not None
            versions.append(loaded.room.version)
            return write_one_event(loaded, player)

        if db.is_sqlite:
            await db.act(code, player, None, decide)
            assert len(versions) == 1
            return
        interfered = False

        def decide_after_interference(loaded: Loaded) -> Write:
            nonlocal interfered
            write = decide(loaded)
            if not interfered:
                interfered = True

                # Another instance's writer bumps the version right now (in a
                # thread of its own: decide is synchronous, inside the event loop).
                def bump() -> None:
                    async def run() -> None:
                        other = Database(database_url)
                        try:
                            async with other.write() as session:
                                bumped = update(Room).where(Room.code == code).values(version=Room.version + 1)
                                await session.execute(bumped)
                        finally:
                            await other.dispose()

                    asyncio.run(run())

                thread = threading.Thread(target=bump)
                thread.start()
                thread.join()
            return write

        before = versions
        write = await db.act(code, player, None, decide_after_interference)
        assert len(before) == 2 and before[1] == before[0] + 1
        assert write.room.version == before[1] + 1
        async with db.read() as session:
            rows = (await session.execute(select(Event.version).join(Room).where(Room.code == code))).scalars().all()
        assert write.room.version in rows and before[0] + 1 not in rows  # the lost write left no event
    finally:
        await db.dispose()


async def test_actions_right_after_postgres_dropped_every_connection(database_url) -> None:
    """PostgreSQL drops the pool's connections (a restart, say) and an action
    comes at once, before the pool has noticed: it still lands, on a fresh
    connection. Only the read is retried (a write that may have committed is
    never sent twice). Ten rounds: a lost connection shows in most of them."""
    db = Database(database_url)
    try:
        service = RoomService(db)
        code, player = await started_room(service)
        write = await db.act(code, player, None, lambda loaded: write_one_event(loaded, player))
        if db.is_sqlite:
            return
        pool = await db._pg_pool()
        admin = Database(database_url)
        try:
            async with admin.engine.connect() as conn:
                for _ in range(10):
                    held = [await pool.acquire() for _ in range(pool.get_max_size())]
                    pids = ", ".join(str(c.get_server_pid()) for c in held)
                    for c in held:
                        await pool.release(c)
                    kill = (
                        "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) "
                        f"FROM pg_stat_activity WHERE pid IN ({pids})"
                    )
                    assert (await conn.exec_driver_sql(kill)).scalar_one() == pool.get_max_size()
                    await conn.commit()
                    write = await db.act(code, player, None, lambda loaded: write_one_event(loaded, player))
        finally:
            await admin.dispose()
        async with db.read() as session:
            stored = (await session.execute(select(Room.version).where(Room.code == code))).scalar_one()
        assert stored == write.room.version
    finally:
        await db.dispose()
