"""The shared rate limiter (Redis) down: DICECUP_RATE_LIMITS_FAIL decides.
``open`` (the default) lets requests through and says so in the log, once
in a while rather than per request; ``closed`` refuses what it would count
with 503 ``rate_limiter_unavailable`` and Retry-After, until Redis is back.
Probes are never refused. Against a redis-server the test stops and starts."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
import pytest
from fastapi import FastAPI

from app.config import Settings
from app.main import create_app

from ..conftest import test_settings
from ..live import OwnRedis, eventually


@asynccontextmanager
async def running(settings: Settings) -> AsyncIterator[tuple[FastAPI, httpx.AsyncClient]]:
    app = create_app(settings)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://dicecup.test") as http,
    ):
        yield app, http


@pytest.fixture
def redis():
    own = OwnRedis()
    own.start()
    try:
        yield own
    finally:
        own.stop()


def limited(database_url: str, redis_url: str, fail: str | None) -> Settings:
    extra = {} if fail is None else {"rate_limits_fail": fail}
    return test_settings(database_url, redis_url=redis_url, rate_limits=True, **extra)


async def test_fail_closed_refuses_while_redis_is_down_and_serves_again_after(sqlite_database: str, redis) -> None:
    async with running(limited(sqlite_database, redis.url, "closed")) as (_, http):
        assert (await http.post("/api/rooms", json={"name": "Ana"})).status_code == 201
        redis.stop()
        started = time.monotonic()
        r = await http.get("/api/rulesets")
        assert time.monotonic() - started < 5, "a down limiter answers within its socket timeout"
        assert r.status_code == 503, r.text
        assert r.json()["code"] == "rate_limiter_unavailable"
        assert r.headers["retry-after"] == "5"
        r = await http.post("/api/rooms", json={"name": "Ben"})
        assert (r.status_code, r.json()["code"]) == (503, "rate_limiter_unavailable")
        assert (await http.get("/api/health")).status_code == 200  # probes are outside the budgets
        redis.start()

        async def served() -> bool:
            return (await http.get("/api/rulesets")).status_code == 200

        await eventually(served, timeout=15)
        assert (await http.post("/api/rooms", json={"name": "Cy"})).status_code == 201


async def test_fail_open_by_default_allows_and_logs_once_in_a_while(
    sqlite_database: str, redis, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="dicecup.api")
    settings = limited(sqlite_database, redis.url, None)
    assert settings.rate_limits_fail == "open"
    async with running(settings) as (_, http):
        redis.stop()
        for name in ("Ana", "Ben", "Cy"):
            assert (await http.post("/api/rooms", json={"name": name})).status_code == 201
    lines = [r.getMessage() for r in caplog.records if r.name == "dicecup.api" and "rate limiter" in r.getMessage()]
    assert len(lines) == 1, lines
    assert "allowing" in lines[0]


async def test_redis_down_at_start_is_said_and_the_instance_serves(
    sqlite_database: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="dicecup.realtime.redis")
    redis = OwnRedis()  # not started
    try:
        async with running(limited(sqlite_database, redis.url, "open")) as (_, http):
            warned = [r.getMessage() for r in caplog.records if r.name == "dicecup.realtime.redis"]
            assert any("redis does not answer after 5 s; serving without it" in line for line in warned), warned
            assert (await http.post("/api/rooms", json={"name": "Ana"})).status_code == 201
            redis.start()

            def answered() -> bool:
                return any("redis answers now" in r.getMessage() for r in caplog.records)

            await eventually(answered, timeout=15)
    finally:
        redis.stop()
