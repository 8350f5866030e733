"""Accounts (app/profiles/accounts.py, issue 27.2-4): changing credentials
needs the current password and ends the other tokens, sign out everywhere,
idle tokens expire, failed sign-ins are throttled per address and username
(no lock-out from everywhere), the taken-username oracle and the hashes are
budgeted, and hashing is bounded (503 server_busy past the cap)."""

import asyncio
import contextlib
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import httpx
from sqlalchemy import func, select, update

from app.db import Database
from app.db.models import ProfileToken, utcnow
from app.main import create_app

from ..conftest import test_settings
from .test_profiles import auth, new_profile


@contextlib.asynccontextmanager
async def running(database: str, **settings: Any) -> AsyncIterator[tuple[Any, Any]]:
    """The app (rate limits on) and a client factory: ``client(address)`` is a client from that address."""
    app = create_app(test_settings(database, rate_limits=True, **settings))
    clients: list[httpx.AsyncClient] = []

    def client(address: str = "198.51.100.1") -> httpx.AsyncClient:
        transport = httpx.ASGITransport(app=app, client=(address, 40000))
        made = httpx.AsyncClient(transport=transport, base_url="http://dicecup.test")
        clients.append(made)
        return made

    async with app.router.lifespan_context(app):
        try:
            yield app, client
        finally:
            for made in clients:
                await made.aclose()


async def credentials(http: httpx.AsyncClient, token: str, username: str, password: str, **more: str) -> httpx.Response:
    body = {"username": username, "password": password, **more}
    return await http.post("/api/profiles/me/credentials", json=body, headers=auth(token))


async def sign_in(http: httpx.AsyncClient, username: str, password: str) -> httpx.Response:
    return await http.post("/api/sessions", json={"username": username, "password": password})


async def tokens_of(database: str, profile_id: str) -> int:
    db = Database(database)
    try:
        async with db.read() as session:
            query = select(func.count(ProfileToken.id)).where(ProfileToken.profile_id == profile_id)
            return int((await session.execute(query)).scalar_one())
    finally:
        await db.dispose()


async def test_a_new_password_needs_the_old_one_and_ends_the_other_tokens(database_url: str) -> None:
    async with running(database_url) as (_app, client):
        http = client()
        pid, device = await new_profile(http, "Ana")
        assert (await credentials(http, device, "ana_acc", "first-password")).status_code == 200
        phone = (await sign_in(http, "ana_acc", "first-password")).json()["token"]
        thief = (await sign_in(http, "ana_acc", "first-password")).json()["token"]
        # a stolen token cannot take the account over: the current password is asked for
        r = await credentials(http, thief, "ana_acc", "stolen-password")
        assert (r.status_code, r.json()["code"]) == (403, "wrong_password")
        r = await credentials(http, thief, "ana_acc", "stolen-password", current_password="a-guess-at-it")
        assert (r.status_code, r.json()["code"]) == (403, "wrong_password")
        assert (await sign_in(http, "ana_acc", "first-password")).status_code == 201  # unchanged
        # the owner changes it: every other token stops working, this one goes on
        r = await credentials(http, phone, "ana_acc", "second-password", current_password="first-password")
        assert r.status_code == 200, r.text
        for ended in (device, thief):
            assert (await http.get("/api/profiles/me", headers=auth(ended))).status_code == 401
        assert (await http.get("/api/profiles/me", headers=auth(phone))).status_code == 200
        assert (await sign_in(http, "ana_acc", "first-password")).status_code == 401
        assert (await sign_in(http, "ana_acc", "second-password")).status_code == 201
        assert pid


async def test_sign_out_everywhere(database_url: str) -> None:
    async with running(database_url) as (_app, client):
        http = client()
        pid, device = await new_profile(http, "Ben")
        assert (await credentials(http, device, "ben_acc", "ben-password")).status_code == 200
        others = [(await sign_in(http, "ben_acc", "ben-password")).json()["token"] for _ in range(3)]
        assert await tokens_of(database_url, pid) == 4
        assert (await http.delete("/api/sessions", headers=auth(others[0]))).status_code == 204
        for token in (device, *others):
            assert (await http.get("/api/profiles/me", headers=auth(token))).status_code == 401
        assert await tokens_of(database_url, pid) == 0
        assert (await http.delete("/api/sessions", headers=auth(device))).status_code == 401
        assert (await http.delete("/api/sessions")).status_code == 401


async def test_idle_tokens_expire(database_url: str) -> None:
    async with running(database_url, profile_token_idle_days=7) as (_app, client):
        http = client()
        pid, token = await new_profile(http, "Cy")
        _, fresh = await new_profile(http, "Dee")
        db = Database(database_url)
        try:
            async with db.write() as session:
                stale = utcnow() - timedelta(days=7, minutes=1)
                await session.execute(
                    update(ProfileToken).where(ProfileToken.profile_id == pid).values(last_used_at=stale)
                )
        finally:
            await db.dispose()
        r = await http.get("/api/profiles/me", headers=auth(token))
        assert (r.status_code, r.json()["code"]) == (401, "unauthorized")
        assert await tokens_of(database_url, pid) == 0  # deleted
        assert (await http.get("/api/profiles/me", headers=auth(fresh))).status_code == 200


async def test_wrong_passwords_from_one_address_lock_nobody_else_out(sqlite_database: str) -> None:
    """10 wrong passwords locked the account for an hour from every address,
    the right password included: anyone could lock anyone out."""
    async with running(sqlite_database, sign_in_failures_per_minute=3) as (_app, client):
        owner, attacker = client("203.0.113.5"), client("198.51.100.66")
        _, token = await new_profile(owner, "Eve")
        assert (await credentials(owner, token, "eve_acc", "eve-password")).status_code == 200
        answers = [(await sign_in(attacker, "eve_acc", f"guess-{i}")).status_code for i in range(10)]
        assert answers == [401] * 3 + [429] * 7
        refused = await sign_in(attacker, "eve_acc", "eve-password")
        assert refused.status_code == 429 and 1 <= int(refused.headers["retry-after"]) <= 60
        assert (await sign_in(owner, "eve_acc", "eve-password")).status_code == 201
        # the waits grow: past the minute's budget, the 10 minutes' holds the attacker back longer
        assert (await sign_in(owner, "eve_acc", "wrong-once")).status_code == 401  # the owner's own budget


async def test_the_taken_username_oracle_is_throttled(sqlite_database: str) -> None:
    async with running(sqlite_database, credential_changes_per_hour=4, profiles_per_hour=100) as (app, client):
        http = client()
        _, owner = await new_profile(http, "Fay")
        assert (await credentials(http, owner, "fay_acc", "fay-password")).status_code == 200
        prober = client("192.0.2.77")
        hashes = app.state.profiles.hasher.started
        answers = []
        for i in range(6):
            _, token = await new_profile(prober, f"P{i}")  # a new profile each time: the address is what counts
            answers.append((await credentials(prober, token, "fay_acc", "whatever-pass")).status_code)
        assert answers == [409] * 4 + [429] * 2
        assert app.state.profiles.hasher.started == hashes  # a taken username is told before anything is hashed


async def test_correct_sign_ins_are_budgeted_and_keep_few_tokens(sqlite_database: str) -> None:
    async with running(sqlite_database, sign_ins_per_hour=3) as (_app, client):
        http = client()
        pid, token = await new_profile(http, "Gus")
        assert (await credentials(http, token, "gus_acc", "gus-password")).status_code == 200
        answers = [(await sign_in(client(f"203.0.113.{i}"), "gus_acc", "gus-password")).status_code for i in range(5)]
        assert answers == [201] * 3 + [429] * 2  # per username, whatever the address
    async with running(sqlite_database, sign_ins_per_hour=1000) as (_app, client):
        http = client()
        for _ in range(25):
            assert (await sign_in(http, "gus_acc", "gus-password")).status_code == 201
        assert await tokens_of(sqlite_database, pid) <= 1 + 20  # the device's and the newest 20 sign-ins'


async def test_past_the_hashing_cap_sign_ins_are_refused_503_at_once(sqlite_database: str) -> None:
    async with running(sqlite_database, password_hashes_in_flight=1, sign_ins_per_hour=1000) as (_app, client):
        http = client()
        _, token = await new_profile(http, "Hal")
        assert (await credentials(http, token, "hal_acc", "hal-password")).status_code == 200
        answers = await asyncio.gather(
            *(sign_in(client(f"203.0.113.{i}"), "hal_acc", "hal-password") for i in range(8))
        )
        codes = sorted(r.status_code for r in answers)
        assert 201 in codes and 503 in codes and set(codes) <= {201, 503}, codes
        busy = next(r for r in answers if r.status_code == 503)
        assert busy.json()["code"] == "server_busy" and busy.headers["retry-after"] == "1"
