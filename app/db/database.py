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
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Connection
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.pool import ConnectionPoolEntry


def sqlite_path(url: str) -> Path | None:
    """The database file of a SQLite URL (``None`` for an in-memory database)."""
    rest = url.split("://", 1)[1]
    path = rest[1:].split("?", 1)[0]
    return None if path in ("", ":memory:") else Path(path)


def _configure_sqlite(engine: AsyncEngine, busy_timeout_ms: int) -> None:
    @event.listens_for(engine.sync_engine, "connect")
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

    @event.listens_for(engine.sync_engine, "begin")
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
        if self.is_sqlite:
            _configure_sqlite(self.engine, busy_timeout_ms)
            write_engine = self.engine.execution_options(sqlite_begin="IMMEDIATE")
        self._reader = async_sessionmaker(self.engine, expire_on_commit=False)
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

    @asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncSession]:
        """A session for consistent reads (one transaction, never written)."""
        async with self._reader() as session, session.begin():
            yield session

    async def dispose(self) -> None:
        await self.engine.dispose()
