"""The OpenAPI document is the contract (issue 11, item 11): schemathesis
sends every operation generated requests against a live server (uvicorn in a
thread) on SQLite and PostgreSQL, and every answer must conform to the
document: no server error, a documented status, content type, body and
headers.

So that the operations are reached with valid data too (not only 404s), a
few rooms are made before each operation is tested (a lobby, a game being
played, a solo game), and each generated case is pointed, with some
probability, at one of them (its code in the path, one of its seats' tokens
in ``Authorization``, one of its players in ``player_id``); the rest keep
what schemathesis generated. A third variant runs with the rate limits on
and small budgets, so that 429 (and its ``Retry-After``) is checked too.

Seeded (the suite's Hypothesis profile is derandomized) and bounded in
examples; the document the server serves is the one tested.
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
import schemathesis
from argon2 import PasswordHasher
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    allow_header_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
    unsupported_method,
)

from app.main import create_app
from app.profiles import passwords

from ..conftest import test_settings
from ..live import LiveServer, server_in_thread

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,  # Retry-After on every 429
    unsupported_method,  # 405 with Allow for methods a path does not have
    allow_header_conformance,  # and Allow lists exactly the documented ones
]
EXAMPLES = int(os.environ.get("DICECUP_SCHEMATHESIS_EXAMPLES", "80"))
"""Per operation and variant: about a minute for the whole file on two cores."""

DOCUMENT = create_app().openapi()
schema = schemathesis.openapi.from_dict(DOCUMENT)


@dataclass
class Room:
    code: str
    tokens: dict[str, str] = field(default_factory=dict)  # player id -> seat token


@dataclass
class World:
    """Rooms made before an operation is tested; cases are pointed at them."""

    rooms: list[Room] = field(default_factory=list)
    profile: tuple[str, str, str] | None = None
    """A profile (id, token, username; password PASSWORD): the rooms' first seats are its."""
    cases: int = 0
    statuses: list[int] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)
    """Sent with every request: in the limited variant, an address of the operation's own."""

    def point(self, case: Any) -> None:
        """Point the ``n``-th case at a room, a seat and a player, in turn
        (every few cases, and cases without a code, stay as generated)."""
        n, self.cases = self.cases, self.cases + 1
        self.point_profile(case, n)
        if not self.rooms or "code" not in (case.path_parameters or {}):
            return
        n, index = divmod(n, len(self.rooms) + 1)
        if index == len(self.rooms):
            return  # as generated: usually no such room
        room = self.rooms[index]
        case.path_parameters["code"] = room.code
        if "number" in case.path_parameters and n % 2 == 0:
            case.path_parameters["number"] = 1  # a game the room has (finished in the last room)
        if case.operation.path.endswith("/rematch") and n % 2 == 0:
            case.body = {"game": 1}  # play again after Game #1 (the last room's is over)
        players = list(room.tokens)
        n, index = divmod(n, len(players) + 1)
        if "player_id" in case.path_parameters and index < len(players):
            case.path_parameters["player_id"] = players[index]
        if case.operation.definition.raw.get("security") == [{"seatToken": []}]:
            # a seat of this room (most often), another room's, or as generated
            other = next(iter(self.rooms[n % len(self.rooms)].tokens.values()))
            tokens = [*room.tokens.values(), *room.tokens.values(), other]
            index = n % (len(tokens) + 1)
            if index < len(tokens):
                case.headers = {**(case.headers or {}), "Authorization": f"Bearer {tokens[index]}"}
        if case.operation.path.endswith("/push") and case.operation.method.upper() == "PUT" and n % 2 == 0:
            case.body = PUSH_SUBSCRIPTION  # one a browser would send (random bodies never are)

    def point_profile(self, case: Any, n: int) -> None:
        """Profile operations (app.profiles): most cases get the profile's token,
        its id in the path, and sign-ins its credentials; every fourth stays as generated."""
        if self.profile is None or n % 4 == 3:
            return
        profile_id, token, username = self.profile
        if case.operation.definition.raw.get("security") == [{"profileToken": []}]:
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}
        if "profile_id" in (case.path_parameters or {}):
            case.path_parameters["profile_id"] = profile_id
        if case.operation.path == "/api/sessions" and case.operation.method.upper() == "POST" and n % 2 == 0:
            case.body = {"username": username, "password": PASSWORD}
        if case.operation.path == "/api/profiles/me/credentials" and n % 2 == 0:
            # a change the profile's owner makes: the current password given (else 403 wrong_password)
            case.body = {"username": username, "password": PASSWORD, "current_password": PASSWORD}

    def make(self, http: httpx.Client, headers: dict[str, str]) -> None:
        self.rooms.clear()
        self.cases = 0
        self.statuses.clear()
        self.headers = headers
        made = http.post("/api/profiles", json={"name": "Ana"})
        assert made.status_code == 201, made.text
        profile_id, profile_token = made.json()["profile"]["id"], made.json()["token"]
        username = f"world_{next(USERNAMES)}_{profile_id[:4]}".replace("-", "_")
        r = http.post(
            "/api/profiles/me/credentials",
            json={"username": username, "password": PASSWORD},
            headers={"authorization": f"Bearer {profile_token}"},
        )
        assert r.status_code == 200, r.text
        self.profile = (profile_id, profile_token, username)
        linked = {"authorization": f"Bearer {profile_token}"}
        for ruleset, players, start in [
            ("yacht", ["Ana"], False),
            ("yahtzee", ["Ana", "Ben"], True),
            ("yacht", ["Cy"], True),
        ]:
            r = http.post(
                "/api/rooms",
                json={"ruleset": ruleset, "name": players[0], "max_players": 4, "options": {"hints": True}},
                headers=linked,
            )
            assert r.status_code == 201, r.text
            room = Room(r.json()["room"]["code"], {r.json()["player"]["id"]: r.json()["token"]})
            for name in players[1:]:
                joined = http.post(f"/api/rooms/{room.code}/players", json={"name": name}).json()
                room.tokens[joined["player"]["id"]] = joined["token"]
            if start:  # and the first player rolls, so that a hint can be asked for
                host = next(iter(room.tokens.values()))
                started = http.post(f"/api/rooms/{room.code}/games", headers={"authorization": f"Bearer {host}"})
                first = room.tokens[started.json()["game"]["turn"]["player_id"]]
                http.post(
                    f"/api/rooms/{room.code}/actions",
                    json={"type": "roll"},
                    headers={"authorization": f"Bearer {first}"},
                )
            self.rooms.append(room)
        self.rooms.extend(self.finished)

    finished: list[Room] = field(default_factory=list)
    """A room with a game played to its end (its analysis can be asked for), made once per server."""

    def finish_a_game(self, http: httpx.Client) -> None:
        r = http.post("/api/rooms", json={"ruleset": "yacht", "name": "Di", "max_players": 1})
        room = Room(r.json()["room"]["code"], {r.json()["player"]["id"]: r.json()["token"]})
        auth = {"authorization": f"Bearer {next(iter(room.tokens.values()))}"}
        http.post(f"/api/rooms/{room.code}/games", headers=auth)
        while (turn := http.get(f"/api/rooms/{room.code}").json()["game"]["turn"]) is not None:
            action = {"type": "score", "box": next(iter(turn["scorable"]))} if turn["dice"] else {"type": "roll"}
            r = http.post(f"/api/rooms/{room.code}/actions", json=action, headers=auth)
            if r.status_code == 429:  # the limited variant's action budget
                time.sleep(int(r.headers["retry-after"]))
                continue
            assert r.status_code == 200, r.text
        self.finished[:] = [room]


def _push_subscription() -> dict[str, Any]:
    import base64

    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    point = (
        ec.generate_private_key(ec.SECP256R1())
        .public_key()
        .public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    )
    b64 = lambda raw: base64.urlsafe_b64encode(raw).decode().rstrip("=")  # noqa: E731
    return {"endpoint": f"https://{PUSH_HOST}/s/1", "keys": {"p256dh": b64(point), "auth": b64(os.urandom(16))}}


PUSH_HOST = "push.invalid"
"""The only push service these servers accept (RFC 6761: it never resolves, so no push leaves the machine)."""
PUSH_SUBSCRIPTION = _push_subscription()
WORLD = World()
PASSWORD = "world-password"
USERNAMES = itertools.count(1)


VARIANTS = {
    "sqlite": ("sqlite", {}),
    "postgres": ("postgres", {}),
    # Rate limits on, with budgets that testing one operation uses up (so 429s and their Retry-After
    # are checked too), and each operation's requests from an address of its own (X-Forwarded-For
    # from a trusted proxy) so each starts with full budgets.
    "postgres-limited": (
        "postgres",
        {
            "rate_limits": True,
            "requests_per_minute": 60,
            "lookup_failures_per_minute": 10,
            "rooms_per_hour": 6,
            "actions_per_second": 5,
            "trusted_proxies": "127.0.0.1",
        },
    ),
}
ADDRESSES = itertools.count(1)


@pytest.fixture(scope="module", autouse=True)
def cheap_password_hashes() -> Iterator[None]:
    """Argon2id at its lowest cost for this file's servers (they run in this process): what is
    checked here is the document, not the hash, and at the production cost (about 0.2 s a hash on
    two cores) the sign-ins and credentials alone took a third of the file's time."""
    cheap = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(passwords, "_HASHER", cheap)
        patch.setattr(passwords, "_DUMMY", cheap.hash("dicecup: no such user"))
        yield


@pytest.fixture(scope="module", params=list(VARIANTS))
def live(request: pytest.FixtureRequest, strategy_tables: dict) -> Iterator[LiveServer]:
    """The server; with the strategy tables in place, or hints and /api/ready would be 503."""
    database, overrides = VARIANTS[request.param]
    url = str(request.getfixturevalue(f"{database}_database"))
    SEEN.clear()
    with server_in_thread(test_settings(url, push_endpoint_hosts=PUSH_HOST, **overrides)) as server:
        with httpx.Client(base_url=server.http, headers={"X-Forwarded-For": "10.9.9.9"}) as http:
            WORLD.finish_a_game(http)
        yield server
    if overrides.get("rate_limits") and SEEN:
        # the budgets were met (and each 429's Retry-After checked), and requests got through too
        assert 429 in SEEN and any(200 <= status < 300 for status in SEEN), SEEN


@pytest.fixture
def world(request: pytest.FixtureRequest, live: LiveServer) -> Iterator[World]:
    limited = "limited" in request.node.callspec.id
    n = next(ADDRESSES)
    headers = {"X-Forwarded-For": f"10.0.{n // 250}.{n % 250 + 1}"} if limited else {}
    with httpx.Client(base_url=live.http, headers=headers) as http:
        if "/rematch" in request.node.name and not limited:
            # a game just over to play again after: the shared one may have been started again meanwhile
            # (POST /games, tested earlier, starts Game #2 there)
            WORLD.finish_a_game(http)
        WORLD.make(http, headers)
    yield WORLD
    # Not only refusals were checked: with its rooms to aim at, every operation succeeded at least
    # once (unless the rate limits refused it first).
    if WORLD.statuses and not limited:
        assert any(200 <= status < 300 for status in WORLD.statuses), WORLD.statuses
    SEEN.update(WORLD.statuses)
    WORLD.rooms.clear()


SEEN: set[int] = set()
"""The statuses a variant's operations got."""


def test_the_served_document_is_the_tested_one(live: LiveServer) -> None:
    assert httpx.get(f"{live.http}/openapi.json").json() == DOCUMENT


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
def test_every_operation_conforms(case: Any, live: LiveServer, world: World) -> None:
    world.point(case)
    response = case.call_and_validate(base_url=live.http, headers=world.headers, checks=CHECKS)
    world.statuses.append(response.status_code)
