"""The engine and its transactions, for SQLite and PostgreSQL.

Writes go through :meth:`Database.write`: on SQLite a ``BEGIN IMMEDIATE``
transaction (the write lock is taken up front, so two writers never deadlock
upgrading a read lock), serialized within the process so that writers queue
on an asyncio lock instead of spinning in SQLite's busy handler; on
PostgreSQL an ordinary transaction in which the service takes the room's row
lock (``SELECT ... FOR UPDATE``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import ConnectionPoolEntry

T = TypeVar("T")


def sqlite_path(url: str) -> Path | None:
    """The database file of a SQLite URL (``None`` for an in-memory database)."""
    rest = url.split("://", 1)[1]
    path = rest[1:].split("?", 1)[0]
    return None if path in ("", ":memory:") else Path(path)


def _configure_sqlite(engine: Engine, busy_timeout_ms: int) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: DBAPIConnection, record: ConnectionPoolEntry) -> None:
        # Let SQLAlchemy, not the driver, decide when transactions begin.
        dbapi_connection.isolation_level = None
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

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        mode = connection.get_execution_options().get("sqlite_begin", "DEFERRED")
        connection.exec_driver_sql(f"BEGIN {mode}")


class Database:
    """One engine and the two kinds of session the service uses."""

    def __init__(self, url: str, *, busy_timeout_ms: int = 10_000, echo: bool = False, **engine_args: Any) -> None:
        self.url = url
        self.is_sqlite = url.startswith("sqlite")
        if self.is_sqlite:
            path = sqlite_path(url)
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
        else:
            engine_args.setdefault("pool_size", 10)
            engine_args.setdefault("max_overflow", 20)
            engine_args.setdefault("pool_pre_ping", True)
        self.engine = create_async_engine(url, echo=echo, **engine_args)
        write_engine = self.engine
        self._sync_writer: sessionmaker[Session] | None = None
        if self.is_sqlite:
            _configure_sqlite(self.engine.sync_engine, busy_timeout_ms)
            write_engine = self.engine.execution_options(sqlite_begin="IMMEDIATE")
            # The hot path's writes: one synchronous connection used from a worker
            # thread, so a whole transaction is one hop away from the event loop.
            sync_engine = create_engine(
                url.replace("sqlite+aiosqlite", "sqlite+pysqlite", 1),
                connect_args={"check_same_thread": False},
                pool_size=1,
                max_overflow=0,
                echo=echo,
            )
            _configure_sqlite(sync_engine, busy_timeout_ms)
            self._sync_engine = sync_engine
            self._sync_writer = sessionmaker(
                sync_engine.execution_options(sqlite_begin="IMMEDIATE"), expire_on_commit=False
            )
        # Reads see one snapshot: under PostgreSQL's default READ COMMITTED each
        # statement would see the commits made before it, so a room view read
        # in two statements could pair a room row from before a commit with a
        # game from after it. (A SQLite read transaction is a snapshot already.)
        read_engine = self.engine
        if not self.is_sqlite:
            read_engine = self.engine.execution_options(isolation_level="REPEATABLE READ")
        self._reader = async_sessionmaker(read_engine, expire_on_commit=False)
        self._writer = async_sessionmaker(write_engine, expire_on_commit=False)
        self._write_lock = asyncio.Lock() if self.is_sqlite else None

    @asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncSession]:
        """A session in one write transaction, committed when the block ends
        without an exception and rolled back otherwise."""
        if self._write_lock is None:
            async with self._writer() as session, session.begin():
                yield session
            return
        async with self._write_lock, self._writer() as session, session.begin():
            yield session

    async def transact(self, work: Callable[[Session], T]) -> T:
        """Run ``work`` (synchronous SQLAlchemy code) in one write transaction.

        On SQLite it runs whole in a worker thread on a synchronous
        connection, holding the write lock for the work alone rather than
        across one event-loop round trip per statement. On PostgreSQL it runs
        through the async session (``run_sync``), as every query does."""
        if self._sync_writer is not None and self._write_lock is not None:
            writer = self._sync_writer
            async with self._write_lock:
                return await asyncio.to_thread(_in_transaction, writer, work)
        async with self._writer() as session, session.begin():
            return await session.run_sync(work)

    @asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncSession]:
        """A session for consistent reads (one transaction, never written)."""
        async with self._reader() as session, session.begin():
            yield session

    async def dispose(self) -> None:
        await self.engine.dispose()
        if self._sync_writer is not None:
            self._sync_engine.dispose()


def _in_transaction(writer: sessionmaker[Session], work: Callable[[Session], T]) -> T:
    with writer() as session, session.begin():
        return work(session)
