"""The connection gate (app/api/gate.py) and the per-address key
(app/api/proxies.py limit_key), issue 27.7: one offender shuts its address
out for seconds, not a minute, longer only if it keeps at it; an IPv6
client is one client per /64."""

import httpx

from app.api.gate import FIRST, FORGIVEN, LONGEST, Gate
from app.api.proxies import client_address, limit_key
from app.api.ratelimit import RateLimits
from app.main import create_app

from ..conftest import test_settings


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_one_offence_shuts_an_address_out_for_seconds_and_a_repeat_for_longer() -> None:
    clock = Clock()
    gate = Gate(clock)
    assert gate.closed("198.51.100.7") is None
    assert gate.close("198.51.100.7", "test") == FIRST == 5
    assert gate.closed("198.51.100.7") == 5
    assert gate.closed("198.51.100.8") is None  # nobody else
    clock.now += FIRST
    assert gate.closed("198.51.100.7") is None  # the household behind it is back in 5 s, not 60
    steps = []
    for _ in range(6):  # it keeps at it: 10, 20, 40, then at most 60 s each time
        steps.append(gate.close("198.51.100.7", "test"))
        clock.now += steps[-1]
    assert steps == [10, 20, 40, LONGEST, LONGEST, LONGEST]
    clock.now += FORGIVEN + 1  # quiet for ten minutes: forgiven
    assert gate.close("198.51.100.7", "test") == FIRST


def test_strikes_close_the_gate_when_the_budget_is_used_up(sqlite_database: str) -> None:
    settings = test_settings(sqlite_database, oversize_frames_per_minute=3)
    settings.rate_limits = True
    limits = RateLimits(settings)
    for _ in range(2):
        limits.oversize_frame("203.0.113.9")
        assert limits.dropping("203.0.113.9") is None
    limits.oversize_frame("203.0.113.9")
    assert limits.dropping("203.0.113.9") == FIRST  # 5 s: not until the minute is up (up to 60 s before)


def test_ipv6_addresses_count_per_64() -> None:
    assert limit_key("2001:db8:1:2::5") == limit_key("2001:db8:1:2:ffff:ffff:ffff:ffff") == "2001:db8:1:2::/64"
    assert limit_key("2001:db8:1:3::5") != limit_key("2001:db8:1:2::5")
    assert limit_key("::ffff:198.51.100.7") == "198.51.100.7"
    assert limit_key("198.51.100.7") == "198.51.100.7"
    assert limit_key("fe80::1%eth0") == "fe80::/64"
    assert limit_key("unknown") == "unknown"
    assert client_address({"client": ("2001:db8:1:2::abcd", 5000)}) == "2001:db8:1:2::/64"


async def test_a_client_rotating_addresses_in_its_64_is_one_client(database_url: str) -> None:
    """Each request from a new address of one /64 had a whole budget of its own."""
    settings = test_settings(database_url, requests_per_minute=5)
    settings.rate_limits = True
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        statuses = []
        for i in range(7):
            transport = httpx.ASGITransport(app=app, client=(f"2001:db8:aa:bb::{i + 1:x}", 40000 + i))
            async with httpx.AsyncClient(transport=transport, base_url="http://dicecup.test") as http:
                statuses.append((await http.get("/api/rulesets")).status_code)
        assert statuses == [200] * 5 + [429] * 2
        transport = httpx.ASGITransport(app=app, client=("2001:db8:aa:cc::1", 40100))
        async with httpx.AsyncClient(transport=transport, base_url="http://dicecup.test") as http:
            assert (await http.get("/api/rulesets")).status_code == 200  # the next /64 is someone else
