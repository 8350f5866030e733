"""Per-address limits behind a reverse proxy: X-Forwarded-For is believed
from the peers of DICECUP_TRUSTED_PROXIES only (on c11ca5a, behind the
compose proxy every client shared the proxy's address, and the app had no
setting for it)."""

import httpx
import pytest

from app.config import Settings
from app.main import create_app

from ..conftest import test_settings


async def create_as(settings: Settings, peer: str, forwarded: list[str | None]) -> list[int]:
    """Create a room per entry of ``forwarded`` (the X-Forwarded-For sent, or
    none), from the TCP peer ``peer``; the statuses."""
    app = create_app(settings)
    transport = httpx.ASGITransport(app=app, client=(peer, 40000))
    statuses = []
    async with app.router.lifespan_context(app), httpx.AsyncClient(transport=transport, base_url="http://t") as http:
        for address in forwarded:
            headers = {} if address is None else {"x-forwarded-for": address}
            r = await http.post("/api/rooms", json={"name": "Ana"}, headers=headers)
            statuses.append(r.status_code)
            if r.status_code == 429:
                assert r.json()["code"] == "rate_limited" and int(r.headers["retry-after"]) >= 1
    return statuses


@pytest.fixture
def limited(sqlite_database: str):
    def make(**overrides: object) -> Settings:
        settings = test_settings(sqlite_database, rooms_per_hour=1, **overrides)
        settings.rate_limits = True
        return settings

    return make


async def test_a_trusted_proxy_gives_each_client_its_own_budget(limited) -> None:
    settings = limited(trusted_proxies="10.0.0.2, 192.168.7.0/24")
    assert await create_as(settings, "10.0.0.2", ["203.0.113.5", "203.0.113.6", "203.0.113.5"]) == [201, 201, 429]
    assert await create_as(settings, "192.168.7.40", ["198.51.100.1", "198.51.100.2"]) == [201, 201]


async def test_forwarded_headers_from_other_peers_are_ignored(limited) -> None:
    # a client that is not the proxy cannot pick its address
    settings = limited(trusted_proxies="10.0.0.2")
    assert await create_as(settings, "203.0.113.9", ["1.1.1.1", "2.2.2.2"]) == [201, 429]
    # and by default nobody is trusted, not even the loopback address
    assert await create_as(limited(), "127.0.0.1", ["1.1.1.1", "2.2.2.2"]) == [201, 429]


async def test_rooms_per_hour(limited) -> None:
    settings = limited()
    settings.rooms_per_hour = 3
    assert await create_as(settings, "198.51.100.7", [None] * 4) == [201, 201, 201, 429]
