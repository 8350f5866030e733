"""GET /metrics through a real app: counters after actions, route templates,
the gauges, and the metrics token."""

import random
import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from app.config import Settings
from app.db.migrate import upgrade_async
from tests.conftest import test_settings
from tests.live import eventually, server_in_thread
from tests.services import postgres_url, throwaway_postgres
from tests.table import Table, play
from tests.wsclient import Player

from .test_ready import running


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of an exposition, by name and sorted labels."""
    out = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return out


def value(text: str, name: str, **labels: str) -> float:
    return samples(text).get((name, tuple(sorted(labels.items()))), 0.0)


def total(text: str, name: str, **labels: str) -> float:
    """The sum over every series of ``name`` whose labels include ``labels``."""
    return sum(
        v
        for (n, ls), v in samples(text).items()
        if n == name and all(dict(ls).get(k) == want for k, want in labels.items())
    )


async def scrape(http: httpx.AsyncClient, **headers: str) -> str:
    r = await http.get("/metrics", headers=headers)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/plain; version=0.0.4")
    return r.text


@pytest.fixture
async def own_settings(database_url: str, tmp_path: Path) -> AsyncIterator[Settings]:
    """A migrated database of the test's own: the session's holds other tests'
    rooms, and any app's scheduler plays on their bots' due turns (counted in
    this app's metrics too)."""
    if database_url.startswith("sqlite"):
        url = f"sqlite+aiosqlite:///{tmp_path / 'metrics.db'}"
        await upgrade_async(url)
        yield test_settings(url)
    else:
        async with throwaway_postgres(postgres_url()) as url:
            await upgrade_async(url)
            yield test_settings(url)


async def test_counters_move_with_play(own_settings: Settings) -> None:
    async with running(own_settings) as (app, http):
        app.state.metrics.rooms_ttl = 0  # count the rooms on every scrape
        before = await scrape(http)
        table = Table(http)
        await table.create("yacht", "Ana", max_players=2)
        ben = await table.join("Ben")
        await table.start()
        room = await table.room()
        waiting = ben if room["game"]["turn"]["player_id"] != ben else table.host
        refused = await table.act(waiting, type="roll")
        assert refused.status_code == 409 and refused.json()["code"] == "not_your_turn"
        await play(table, random.Random(7), max_actions=12)
        text = await scrape(http)

        applied = total(text, "dicecup_actions_total", ruleset="yacht", outcome="applied")
        assert applied == 12
        assert value(text, "dicecup_actions_total", ruleset="yacht", type="roll", outcome="applied") >= 1
        assert value(text, "dicecup_actions_total", ruleset="yacht", type="roll", outcome="not_your_turn") == 1
        assert total(text, "dicecup_action_seconds_count", ruleset="yacht") == applied
        assert total(text, "dicecup_action_seconds_sum") > 0
        # every event of the room went out through the publisher
        events = await table.events()
        assert total(text, "dicecup_events_published_total") == len(events)
        assert value(text, "dicecup_events_published_total", type="game_started") == 1
        assert value(text, "dicecup_rooms", status="playing") == value(before, "dicecup_rooms", status="playing") + 1
        for status in ("lobby", "finished", "closed"):
            assert ("dicecup_rooms", (("status", status),)) in samples(text)
        assert "dicecup_redis_up" not in text  # no Redis configured
        assert (
            value(text, "dicecup_http_requests_total", method="POST", route="/api/rooms/{code}/actions", status="200")
            == applied
        )


async def test_routes_are_templates_never_raw_paths(app_settings: Settings) -> None:
    async with running(app_settings) as (_, http):
        table = Table(http)
        await table.create()
        await http.get(f"/api/rooms/{table.code}")
        await http.get("/api/rooms/NOSUCH")
        await http.get("/no/such/path/x9")
        await http.get("/wp-login.php")
        await http.get(f"/r/{table.code}")
        text = await scrape(http)
        routes = {
            dict(labels)["route"] for (name, labels), _ in samples(text).items() if name.startswith("dicecup_http")
        }
        assert "/api/rooms/{code}" in routes and "/r/{code}" in routes and "unmatched" in routes
        assert value(text, "dicecup_http_requests_total", method="GET", route="/api/rooms/{code}", status="404") == 1
        assert value(text, "dicecup_http_requests_total", method="GET", route="unmatched", status="404") == 2
        for route in routes:
            assert route == "unmatched" or route.startswith("/"), route
            assert table.code not in route and "NOSUCH" not in route and "x9" not in route and "wp-" not in route


async def test_unknown_methods_share_one_label(app_settings: Settings) -> None:
    """35 methods the HTTP parser knows made 35 label values per route
    (/metrics went from 44 KB to 2.2 MB): every method but the seven the API
    uses counts as ``other``."""
    weird = ["PROPFIND", "MKCOL", "COPY", "MOVE", "LOCK", "UNLOCK", "SEARCH", "PURGE", "REPORT", "LINK", "BREW"]
    async with running(app_settings) as (_, http):
        for method in weird:
            await http.request(method, "/api/health")
            await http.request(method, "/no/such/path")
        await http.request("OPTIONS", "/api/rooms")
        text = await scrape(http)
        methods = {
            dict(labels)["method"]
            for (name, labels), _ in samples(text).items()
            if name.startswith("dicecup_http_requests")
        }
        assert methods <= {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "other"}
        assert "other" in methods and "OPTIONS" in methods
        total = sum(
            v
            for (name, labels), v in samples(text).items()
            if name == "dicecup_http_requests_total" and dict(labels)["method"] == "other"
        )
        assert total == 2 * len(weird)


async def test_metrics_token(database_url: str) -> None:
    settings = test_settings(database_url, metrics_token="s3cret-scrape")
    async with running(settings) as (_, http):
        assert (await http.get("/metrics")).status_code == 401
        wrong = await http.get("/metrics", headers={"authorization": "Bearer nope"})
        assert wrong.status_code == 401 and wrong.json()["code"] == "unauthorized"
        assert wrong.headers["www-authenticate"].startswith("Bearer")
        assert (await http.get("/metrics", headers={"authorization": "Basic s3cret-scrape"})).status_code == 401
        text = await scrape(http, authorization="Bearer s3cret-scrape")
        assert "dicecup_http_requests_total" in text
        # the API itself needs no such token
        assert (await http.get("/api/rulesets")).status_code == 200


async def test_socket_gauge_counts_open_sockets(sqlite_database: str) -> None:
    settings = test_settings(sqlite_database)
    with server_in_thread(settings) as server:
        async with httpx.AsyncClient(base_url=server.http) as http:
            table = Table(http)
            await table.create()

            async def sockets() -> float:
                return value(await scrape(http), "dicecup_websocket_connections")

            assert await sockets() == 0
            players = [await Player.connect(server.socket_url(table.code)) for _ in range(3)]
            players.append(await Player.connect(server.socket_url(table.code), table.tokens[table.host]))
            assert await sockets() == 4
            for player in players[:3]:
                await player.ws.close()
            await eventually(lambda: _equals(sockets, 1))
            await players[3].ws.close()


async def _equals(read, want: float) -> bool:
    return await read() == want


async def test_redis_up_gauge(sqlite_database: str) -> None:
    from tests.live import OwnRedis

    redis = OwnRedis()
    redis.start()
    try:
        async with running(test_settings(sqlite_database, redis_url=redis.url)) as (_, http):
            assert value(await scrape(http), "dicecup_redis_up") == 1
            redis.stop()

            async def down() -> bool:
                return value(await scrape(http), "dicecup_redis_up") == 0

            await eventually(down, timeout=15)
    finally:
        redis.stop()


def test_names_follow_the_issue() -> None:
    """The metric names the issue asks for (a rename would break dashboards)."""
    from pathlib import Path

    dashboard = (Path(__file__).resolve().parents[2] / "deploy" / "grafana" / "dashboards" / "dicecup.json").read_text()
    for name in (
        "dicecup_actions_total",
        "dicecup_action_seconds_bucket",
        "dicecup_websocket_connections",
        "dicecup_rooms",
        "dicecup_redis_up",
        "dicecup_http_requests_total",
        "dicecup_http_request_seconds_bucket",
    ):
        assert re.search(rf"\b{name}\b", dashboard), name
