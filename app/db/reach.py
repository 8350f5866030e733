"""Whether the database answers, asked once before ``python -m app serve`` or
``migrate`` goes on: if it does not, one sentence saying what is wrong and
what to fix, for the log (a host that mistyped ``DICECUP_DATABASE_URL``, a
PostgreSQL not started yet or a database not created yet reads one line,
not a traceback)."""

from __future__ import annotations

import asyncio
import socket
import sqlite3

import asyncpg
from sqlalchemy import make_url, text
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

from app.config import sqlite_path

SETTING = "DICECUP_DATABASE_URL"


async def _ping(url: str, within: float) -> None:
    engine = create_async_engine(url, poolclass=NullPool)
    try:
        async with asyncio.timeout(within), engine.connect() as connection:
            await connection.execute(text("SELECT 1"))
    finally:
        await engine.dispose()


def database_problem(url: str, timeout: float = 10.0) -> str | None:
    """None if the database at ``url`` answers a ``SELECT 1`` within
    ``timeout`` seconds; else what is wrong, in one line (password hidden).
    A SQLite file's directory is made first, as the migration would."""
    try:
        path = sqlite_path(url) if url.startswith("sqlite") else None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        asyncio.run(_ping(url, timeout))
    except Exception as error:  # what it was is the answer
        return explain(error, url, timeout)
    return None


def _root(error: BaseException) -> BaseException:
    """The driver's own error under SQLAlchemy's wrappers and exception chains."""
    seen = {id(error)}
    while True:
        inner = getattr(error, "orig", None) or error.__cause__
        if inner is None or id(inner) in seen:
            return error
        seen.add(id(inner))
        error = inner


def explain(error: BaseException, url: str, timeout: float = 10.0) -> str:
    """One line: the database (password hidden), what went wrong, what to check."""
    parsed = make_url(url)
    where = parsed.render_as_string(hide_password=True)
    root = _root(error)
    if url.startswith("sqlite"):
        return (
            f"cannot open the SQLite database {parsed.database!r} ({type(root).__name__}: {root}): "
            f"check that its directory exists and is writable by this user, or set {SETTING}"
        )
    server = f"{parsed.host or 'localhost'}:{parsed.port or 5432}"
    if isinstance(root, ConnectionRefusedError):
        why = f"nothing accepts connections at {server}: start PostgreSQL there, or fix the host and port"
    elif isinstance(root, socket.gaierror):
        why = f"the host {parsed.host!r} is unknown: fix the host"
    elif isinstance(root, TimeoutError):
        why = f"no answer from {server} within {timeout:g} s: check the host, the port and any firewall between"
    elif isinstance(root, asyncpg.InvalidCatalogNameError):
        name = parsed.database
        why = f"the database {name!r} does not exist: create it (createdb {name}, or CREATE DATABASE {name})"
    elif isinstance(root, asyncpg.InvalidPasswordError | asyncpg.InvalidAuthorizationSpecificationError):
        why = f"the server refused the user {parsed.username!r} ({root}): fix the user or password"
    elif isinstance(root, OSError | sqlite3.Error | asyncpg.PostgresError):
        why = f"{type(root).__name__}: {root}"
    else:
        why = f"{type(root).__name__}: {root or 'no detail'}"
    return f"cannot reach the database at {where}: {why} (in {SETTING})"
