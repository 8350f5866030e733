"""Where the tests find PostgreSQL and Redis, and what happens without them.

Tests that need a service skip with a clear reason when it is not configured
(a newcomer's laptop); with ``DICECUP_TEST_STRICT=1`` (set by ``.ci/run``)
such a skip is a failure instead.
"""

import os
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest

from app.config import normalize_database_url

STRICT = os.environ.get("DICECUP_TEST_STRICT") == "1"


def unavailable(reason: str) -> None:
    if STRICT:
        pytest.fail(f"{reason} (DICECUP_TEST_STRICT=1: a skipped service test is a failure)")
    pytest.skip(reason)


def postgres_url() -> str:
    url = os.environ.get("DICECUP_TEST_POSTGRES_URL")
    if not url:
        unavailable("DICECUP_TEST_POSTGRES_URL is not set: PostgreSQL tests skipped")
    assert url is not None
    return url


def redis_url() -> str:
    """DICECUP_TEST_REDIS_URL; under pytest-xdist, each worker gets a database
    of its own (the URL's number plus the worker's), so that one worker's
    keys (presence, rate-limit windows) never meet another's."""
    url = os.environ.get("DICECUP_TEST_REDIS_URL")
    if not url:
        unavailable("DICECUP_TEST_REDIS_URL is not set: Redis tests skipped")
    assert url is not None
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    parts = urlsplit(url)
    database = int(parts.path.strip("/") or 0) + int(worker.removeprefix("gw"))
    return urlunsplit(parts._replace(path=f"/{database}"))


def _plain(url: str) -> str:
    """asyncpg wants postgresql://, without SQLAlchemy's +driver."""
    return normalize_database_url(url).replace("postgresql+asyncpg://", "postgresql://")


@asynccontextmanager
async def throwaway_postgres(admin_url: str) -> AsyncIterator[str]:
    """A new, empty database on the server of ``admin_url``, dropped afterwards;
    yields its SQLAlchemy URL."""
    plain = _plain(admin_url)
    name = f"dicecup_test_{secrets.token_hex(6)}"
    admin = await asyncpg.connect(plain)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    base = plain.rsplit("/", 1)[0]
    try:
        yield normalize_database_url(f"{base}/{name}")
    finally:
        admin = await asyncpg.connect(plain)
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()
