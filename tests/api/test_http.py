"""HTTP hygiene (issue 11, item 10): Retry-After on every 429, 405 with Allow
for OPTIONS and TRACE, CORS only where configured."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from app.main import create_app
from app.rooms import DomainError

from ..conftest import test_settings
from ..table import Table
from .test_errors import check


@asynccontextmanager
async def serve(database_url: str, extra_routes: bool = False, **overrides: Any) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(test_settings(database_url, **overrides))
    if extra_routes:

        async def limited_without_a_hint() -> None:
            raise DomainError("rate_limited", "slow down")

        async def limited_for_a_while() -> None:
            raise DomainError("rate_limited", "slow down", retry_after=42)

        app.add_api_route("/api/test/limited", limited_without_a_hint)
        app.add_api_route("/api/test/limited-42", limited_for_a_while)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://dicecup.test") as http,
    ):
        yield http


async def test_every_429_says_when_to_retry(database_url: str) -> None:
    async with serve(database_url, extra_routes=True) as http:
        r = await http.get("/api/test/limited")
        check(r, 429, "rate_limited")
        assert r.headers["retry-after"] == "1"
        r = await http.get("/api/test/limited-42")
        check(r, 429, "rate_limited")
        assert r.headers["retry-after"] == "42"


async def test_rate_limits_carry_retry_after(database_url: str) -> None:
    async with serve(database_url, rate_limits=True, actions_per_second=1, requests_per_minute=8) as http:
        table = Table(http)
        await table.create("yacht", "Ana", max_players=1)
        await table.start()
        assert (await table.act(table.host, type="roll")).status_code == 200
        r = await table.act(table.host, type="roll")
        check(r, 429, "rate_limited")
        assert int(r.headers["retry-after"]) >= 1
        while (r := await http.get("/api/rulesets")).status_code == 200:
            pass
        check(r, 429, "rate_limited")
        assert 1 <= int(r.headers["retry-after"]) <= 60


async def openapi_paths(http: httpx.AsyncClient) -> dict[str, set[str]]:
    document = (await http.get("/openapi.json")).json()
    return {
        path.replace("{code}", "ABCDEF").replace("{player_id}", "x").replace("{number}", "1"): {
            method.upper() for method in item
        }
        for path, item in document["paths"].items()
    }


@pytest.mark.parametrize("method", ["OPTIONS", "TRACE", "PUT", "PATCH"])
async def test_other_methods_get_405_with_allow(client: httpx.AsyncClient, method: str) -> None:
    paths = await openapi_paths(client)
    assert len(paths) >= 10
    for path, methods in paths.items():
        if method in methods:  # e.g. PATCH /api/profiles/me
            continue
        r = await client.request(method, path)
        check(r, 405, "method_not_allowed")
        assert {m.strip() for m in r.headers["allow"].split(",")} == methods, path


ORIGIN = "https://play.example"
PREFLIGHT = {"origin": ORIGIN, "access-control-request-method": "POST"}


async def test_no_cors_by_default(client: httpx.AsyncClient) -> None:
    r = await client.options("/api/rooms", headers=PREFLIGHT)
    check(r, 405, "method_not_allowed")
    assert r.headers["allow"] == "GET, POST"  # GET: the public rooms
    r = await client.get("/api/rulesets", headers={"origin": ORIGIN})
    assert r.status_code == 200
    assert "access-control-allow-origin" not in r.headers


async def test_cors_for_configured_origins(database_url: str) -> None:
    async with serve(database_url, cors_origins=f"{ORIGIN}, https://other.example") as http:
        # a preflight from an allowed origin is answered
        headers = PREFLIGHT | {"access-control-request-headers": "authorization, content-type"}
        r = await http.options("/api/rooms/ABCDEF/actions", headers=headers)
        assert r.status_code == 200, r.text
        assert r.headers["access-control-allow-origin"] == ORIGIN
        methods = {m.strip() for m in r.headers["access-control-allow-methods"].split(",")}
        assert methods >= {"GET", "POST", "PUT", "PATCH", "DELETE"}
        allowed = {h.strip().lower() for h in r.headers["access-control-allow-headers"].split(",")}
        assert {"authorization", "content-type"} <= allowed
        # and the calls themselves carry the CORS headers, errors included
        r = await http.post("/api/rooms", json={"name": "Ana"}, headers={"origin": ORIGIN})
        assert r.status_code == 201
        assert r.headers["access-control-allow-origin"] == ORIGIN
        exposed = {h.strip().lower() for h in r.headers["access-control-expose-headers"].split(",")}
        assert {"x-request-id", "retry-after"} <= exposed
        r = await http.get("/api/rooms/ZZZZZZ", headers={"origin": "https://other.example"})
        check(r, 404, "room_not_found")
        assert r.headers["access-control-allow-origin"] == "https://other.example"
        # a preflight the settings do not allow is just an OPTIONS: 405 with Allow, no CORS headers
        for refused in [
            PREFLIGHT | {"origin": "https://evil.example"},
            PREFLIGHT | {"access-control-request-method": "TRACE"},
            PREFLIGHT | {"access-control-request-headers": "x-custom"},
        ]:
            r = await http.options("/api/rooms", headers=refused)
            check(r, 405, "method_not_allowed")
            assert r.headers["allow"] == "GET, POST"
            assert "access-control-allow-origin" not in r.headers
        # a plain OPTIONS (no preflight) and TRACE stay 405
        check(await http.options("/api/rooms"), 405, "method_not_allowed")
        check(await http.request("TRACE", "/api/rooms", headers={"origin": ORIGIN}), 405, "method_not_allowed")
        # other origins get no CORS headers on their calls
        r = await http.get("/api/rulesets", headers={"origin": "https://evil.example"})
        assert r.status_code == 200
        assert "access-control-allow-origin" not in r.headers


def test_cors_allows_every_method_the_api_has() -> None:
    """A browser client on another origin can call every route: PATCH
    /api/profiles/me was refused at its preflight on 0f3e20e."""
    from fastapi.routing import APIRoute

    from app.api.cors import ALLOW_METHODS
    from app.main import create_app

    used = {m for route in create_app().routes if isinstance(route, APIRoute) for m in route.methods}
    assert used - {"HEAD"} <= set(ALLOW_METHODS), sorted(used - set(ALLOW_METHODS))
