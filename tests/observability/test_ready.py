"""GET /api/ready (200 / 503 with the state of each part) and GET /api/health."""

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from app.config import Settings
from app.main import create_app
from app.observability.readiness import Readiness
from bench.servers import free_port
from tests.conftest import test_settings
from tests.live import OwnRedis, eventually


@asynccontextmanager
async def running(settings: Settings) -> AsyncIterator[tuple[FastAPI, httpx.AsyncClient]]:
    app = create_app(settings)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://dicecup.test") as http,
    ):
        yield app, http


async def ready_when(http: httpx.AsyncClient, status: int, **parts: str) -> dict:
    async def check() -> dict | None:
        r = await http.get("/api/ready")
        body = r.json()
        return body if r.status_code == status and all(body.get(k) == v for k, v in parts.items()) else None

    return await eventually(check, timeout=15)


async def test_ready_when_every_part_is(database_url: str, strategy_tables: dict) -> None:
    async with running(test_settings(database_url)) as (_, http):
        body = await ready_when(http, 200, strategy="ready")
        assert body == {"status": "ready", "database": "ok", "strategy": "ready"}  # no Redis: no "redis" key
        health = await http.get("/api/health")
        assert health.status_code == 200 and health.json() == {"status": "ok"}


async def test_failed_strategy_is_not_ready_and_logged(
    sqlite_database: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Tables missing with solving off: 503, strategy failed, an ERROR saying why."""
    caplog.set_level(logging.ERROR, logger="dicecup.strategy")
    settings = test_settings(sqlite_database, strategy_dir=tmp_path / "empty")
    async with running(settings) as (app, http):
        body = await ready_when(http, 503)
        assert body == {"status": "not_ready", "database": "ok", "strategy": "failed"}
        assert app.state.strategy.state == "failed"
    errors = [r for r in caplog.records if r.levelno == logging.ERROR and r.name == "dicecup.strategy"]
    assert errors and "DICECUP_STRATEGY_SOLVE" in errors[0].getMessage()


async def test_strategy_that_cannot_be_computed_fails_loudly(
    sqlite_database: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The issue's case: the tables' directory cannot be written (here a path
    under a plain file). Computing fails, readiness says so, ERROR logs say why."""
    caplog.set_level(logging.ERROR, logger="dicecup.strategy")
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    settings = test_settings(sqlite_database, strategy_dir=blocker / "strategy", strategy_solve=True)
    async with running(settings) as (app, http):
        first = await http.get("/api/ready")
        assert first.json()["strategy"] in ("loading", "computing", "failed")
        body = await ready_when(http, 503)
        assert body["strategy"] == "failed" and body["database"] == "ok"
        assert "exit status" in app.state.strategy.failure
    messages = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert any("could not be computed" in m for m in messages)
    assert any("strategy tables unavailable" in m for m in messages)


class _Strategy:
    def __init__(self, state: str) -> None:
        self.state = state


async def _ok() -> None:
    return None


async def _refused() -> None:
    raise ConnectionRefusedError("connect call failed ('10.0.0.1', 5432)")


async def _hangs() -> None:
    await asyncio.sleep(10)


@pytest.mark.parametrize(
    ("ping", "redis", "strategy", "ready", "body"),
    [
        (_ok, None, "computing", True, {"database": "ok", "strategy": "computing"}),
        (_ok, None, "loading", True, {"database": "ok", "strategy": "loading"}),
        (_ok, True, "ready", True, {"database": "ok", "redis": "ok", "strategy": "ready"}),
        (_ok, False, "ready", False, {"database": "ok", "redis": "down", "strategy": "ready"}),
        (_refused, None, "ready", False, {"database": "error: ConnectionRefusedError", "strategy": "ready"}),
        (_hangs, None, "ready", False, {"database": "error: timeout", "strategy": "ready"}),
    ],
)
async def test_readiness_rules(ping, redis, strategy, ready, body) -> None:
    """Computing (or loading) tables are ready: the server plays meanwhile."""
    readiness = Readiness(
        ping, strategy=_Strategy(strategy), redis_up=None if redis is None else (lambda: redis), timeout=0.2
    )
    ok, got = await readiness.check()
    assert ok is ready
    assert got == {"status": "ready" if ready else "not_ready", **body}
    assert "10.0.0.1" not in str(got)  # the detail goes to the log, not to anyone who asks


class TcpRelay:
    """A TCP relay to PostgreSQL that the test can cut: the database becomes
    unreachable for the app while the server itself keeps running."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = free_port()
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.close()
            return
        self._writers |= {writer, up_writer}

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            with contextlib.suppress(Exception):
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            dst.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    async def cut(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()


async def test_database_down_is_not_ready(postgres_database: str, strategy_tables: dict) -> None:
    """PostgreSQL unreachable: 503 with the database's state; liveness stays 200; back: 200."""
    url = httpx.URL(postgres_database.replace("postgresql+asyncpg://", "http://"))
    relay = TcpRelay(url.port or 5432)
    await relay.start()
    relayed = postgres_database.replace(f"@{url.host}:{url.port}/", f"@127.0.0.1:{relay.port}/")
    assert relayed != postgres_database
    try:
        async with running(test_settings(relayed)) as (_, http):
            body = await ready_when(http, 200, strategy="ready")
            assert body == {"status": "ready", "database": "ok", "strategy": "ready"}
            await relay.cut()
            body = await ready_when(http, 503)
            assert body["status"] == "not_ready" and body["database"].startswith("error: ")
            health = await http.get("/api/health")
            assert health.status_code == 200  # liveness does not depend on the database
            await relay.start()
            await ready_when(http, 200, database="ok")
    finally:
        await relay.cut()


async def test_redis_down_is_not_ready(sqlite_database: str, strategy_tables: dict) -> None:
    redis = OwnRedis()
    redis.start()
    try:
        async with running(test_settings(sqlite_database, redis_url=redis.url)) as (_, http):
            body = await ready_when(http, 200, strategy="ready")
            assert body == {"status": "ready", "database": "ok", "redis": "ok", "strategy": "ready"}
            redis.stop()
            body = await ready_when(http, 503, redis="down")
            assert body["status"] == "not_ready" and body["database"] == "ok"
            redis.start()
            await ready_when(http, 200, redis="ok")
    finally:
        redis.stop()


async def test_probes_are_not_rate_limited(sqlite_database: str) -> None:
    settings = test_settings(sqlite_database, rate_limits=True, requests_per_minute=3)
    async with running(settings) as (_, http):
        for _ in range(8):
            assert (await http.get("/api/health")).status_code == 200
            assert (await http.get("/api/ready")).status_code in (200, 503)
            assert (await http.get("/metrics")).status_code == 200
        statuses = [(await http.get("/api/rulesets")).status_code for _ in range(5)]
        assert 429 in statuses  # the API's budget still applies
