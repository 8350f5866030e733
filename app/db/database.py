"""The engine and its transactions, for SQLite and PostgreSQL.

Writes go through :meth:`Database.write`: on SQLite a ``BEGIN IMMEDIATE``
transaction (the write lock is taken up front, so two writers never deadlock
upgrading a read lock), serialized within the process so that writers queue
on an asyncio lock instead of spinning in SQLite's busy handler; on
PostgreSQL an ordinary transaction in which the service takes the room's row
lock (``SELECT ... FOR UPDATE``). Actions, the hot path, go through
:meth:`Database.act` (see :mod:`app.db.actions`), under the same lock on SQLite.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
from sqlalchemy import event, make_url
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.pool import ConnectionPoolEntry

from app.config import sqlite_path

from .actions import Decide, WouldWait, Write, init_pg_connection, pg_act, reset_pg_connection, sqlite_act
from .checkpoints import Checkpointer
from .files import private_sqlite_files
from .writelock import WriteLock


def _sqlite_pragmas(dbapi_connection: Any, busy_timeout_ms: int) -> None:
    cursor = dbapi_connection.cursor()
    # WAL: readers never block the writer. synchronous=NORMAL: a power cut
    # may lose the last commits but never corrupts the file.
    for pragma in (
        "journal_mode=WAL",
        "synchronous=NORMAL",
        f"busy_timeout={busy_timeout_ms}",
        "foreign_keys=ON",
    ):
        cursor.execute(f"PRAGMA {pragma}")
    cursor.close()


def _configure_sqlite(engine: Engine, busy_timeout_ms: int) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: DBAPIConnection, record: ConnectionPoolEntry) -> None:
        # Let SQLAlchemy, not the driver, decide when transactions begin.
        dbapi_connection.isolation_level = None
        _sqlite_pragmas(dbapi_connection, busy_timeout_ms)

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        mode = connection.get_execution_options().get("sqlite_begin", "DEFERRED")
        connection.exec_driver_sql(f"BEGIN {mode}")


class Database:
    """One engine and the two kinds of session the service uses."""

    def __init__(self, url: str, *, busy_timeout_ms: int = 10_000, echo: bool = False, **engine_args: Any) -> None:
        self.url = url
        self._busy_timeout_ms = busy_timeout_ms
        self.is_sqlite = url.startswith("sqlite")
        if self.is_sqlite:
            path = sqlite_path(url)
            if path is None:  # each connection would get a database of its own
                raise ValueError("an in-memory SQLite database cannot be shared by the server's connections")
            private_sqlite_files(path)  # 0600: it holds keys, secrets and password hashes
        else:
            engine_args.setdefault("pool_size", 10)
            engine_args.setdefault("max_overflow", 20)
            engine_args.setdefault("pool_pre_ping", True)
        self._pool_size = int(engine_args.get("pool_size", 10))
        self.engine = create_async_engine(url, echo=echo, **engine_args)
        write_engine = self.engine
        self._hot_sqlite: sqlite3.Connection | None = None
        self.checkpointer: Checkpointer | None = None
        self._hot_pg: asyncpg.Pool | None = None
        self._hot_pg_opening = asyncio.Lock()
        if self.is_sqlite:
            _configure_sqlite(self.engine.sync_engine, busy_timeout_ms)
            write_engine = self.engine.execution_options(sqlite_begin="IMMEDIATE")
            # The actions' connection (see app/db/actions.py): a plain sqlite3
            # connection, used on the event loop (see act).
            hot_path = sqlite_path(url)
            assert hot_path is not None  # refused above
            self._hot_sqlite = sqlite3.connect(str(hot_path), check_same_thread=False, isolation_level=None)
            # Moves run on the event loop: busy timeout 0, never wait there for
            # another process's lock (see act).
            _sqlite_pragmas(self._hot_sqlite, 0)
            # Its WAL is checkpointed by the Checkpointer, off the moves' path (app.db.checkpoints).
            self._hot_sqlite.execute("PRAGMA wal_autocheckpoint=0")
            self.checkpointer = Checkpointer(hot_path)
        # Reads see one snapshot: under PostgreSQL's default READ COMMITTED each
        # statement would see the commits made before it, so a room view read
        # in two statements could pair a room row from before a commit with a
        # game from after it. (A SQLite read transaction is a snapshot already.)
        read_engine = self.engine
        if not self.is_sqlite:
            read_engine = self.engine.execution_options(isolation_level="REPEATABLE READ")
        self._reader = async_sessionmaker(read_engine, expire_on_commit=False)
        self._writer = async_sessionmaker(write_engine, expire_on_commit=False)
        # SQLite's one writer at a time, moves first (app.db.writelock).
        self._write_lock = WriteLock() if self.is_sqlite else None

    @asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncSession]:
        """A session in one write transaction, committed when the block ends
        without an exception and rolled back otherwise."""
        if self._write_lock is None:
            async with self._writer() as session, session.begin():
                yield session
            return
        async with self._write_lock.hold(move=False), self._writer() as session, session.begin():
            yield session

    async def act(self, code: str, player_id: str, client_id: str | None, decide: Decide) -> Write:
        """Load a room for an action, ``decide`` its write, store it: the hot
        path of :mod:`app.db.actions`, on the driver's own connection.

        On SQLite the move runs on the event loop itself, under the
        instance's write lock: about 0.3 ms of SQLite's work in memory (no
        sync at commit in WAL mode with ``synchronous=NORMAL``, and the
        checkpoints are the :class:`Checkpointer`'s), where a hop to a worker
        thread and back waited up to 8 ms for the thread on a busy machine
        (bench/RESULTS.md). The connection's busy timeout is 0: when another
        process (a second worker, a backup) holds the database's write lock,
        the move goes to a worker thread instead and waits there, with the
        configured timeout, as every move used to."""
        if self._hot_sqlite is not None and self._write_lock is not None:
            conn = self._hot_sqlite
            if self.checkpointer is not None:
                self.checkpointer.start()
            async with self._write_lock.hold(move=True):
                try:
                    write = sqlite_act(conn, code, player_id, client_id, decide, wait=False)
                except WouldWait:
                    write = await asyncio.to_thread(self._sqlite_act_waiting, conn, code, player_id, client_id, decide)
            if self.checkpointer is not None:
                self.checkpointer.wrote()
            return write
        return await pg_act(await self._pg_pool(), code, player_id, client_id, decide)

    def _sqlite_act_waiting(
        self, conn: sqlite3.Connection, code: str, player_id: str, client_id: str | None, decide: Decide
    ) -> Write:
        """In a worker thread: the move, waiting up to the busy timeout for the database's write lock."""
        conn.execute(f"PRAGMA busy_timeout={self._busy_timeout_ms}")
        try:
            return sqlite_act(conn, code, player_id, client_id, decide)
        finally:
            conn.execute("PRAGMA busy_timeout=0")

    async def open(self) -> None:
        """Open the actions' connections now (PostgreSQL), so that the first
        actions under load do not wait for them."""
        if not self.is_sqlite:
            await self._pg_pool()

    async def _pg_pool(self) -> asyncpg.Pool:
        if self._hot_pg is None:
            async with self._hot_pg_opening:
                if self._hot_pg is None:
                    dsn = make_url(self.url).set(drivername="postgresql").render_as_string(hide_password=False)
                    self._hot_pg = await asyncpg.create_pool(
                        dsn,
                        min_size=self._pool_size,
                        max_size=self._pool_size,
                        init=init_pg_connection,
                        reset=reset_pg_connection,
                    )
        return self._hot_pg

    @asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncSession]:
        """A session for consistent reads (one transaction, never written)."""
        async with self._reader() as session, session.begin():
            yield session

    async def dispose(self) -> None:
        await self.engine.dispose()
        if self._hot_pg is not None:
            await self._hot_pg.close()
            self._hot_pg = None
        if self.checkpointer is not None:
            await self.checkpointer.close()
        if self._hot_sqlite is not None:
            self._hot_sqlite.close()
            self._hot_sqlite = None
