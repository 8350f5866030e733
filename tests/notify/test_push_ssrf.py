"""Pushes go only where they were checked to go (issue 27.1): endpoints a
parser and an HTTP client read differently are refused, a stored one is
checked again before each send, a redirect is not followed, a name that
resolves to a non-public address is refused, and a push service that never
answers holds no other seat's push back."""

import asyncio
import socket
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from app.db import Database
from app.db.models import PushSubscription
from app.main import create_app
from app.notify import PushService, load_keys
from app.notify.service import Turn

from ..conftest import test_settings
from .receiver import Receiver, decrypt
from .test_endpoints import REFUSED
from .test_endpoints import Table as DnsTable
from .test_push import PUSH, push_path, seated


class Nobody:
    """Presence: no seat has a socket open."""

    def connected(self, code: str) -> set[str]:
        return set()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with Receiver() as push_service:
        yield push_service


@pytest.fixture
async def app_http(database_url: str) -> AsyncIterator[tuple[Any, httpx.AsyncClient]]:
    app = create_app(test_settings(database_url, **PUSH))
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://dicecup.test") as http,
    ):
        yield app, http


@contextmanager
def listener(host: str, port: int = 0) -> Iterator[tuple[socket.socket, int]]:
    """A socket listening on ``host``:``port`` that never answers (connections wait in its backlog)."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        pytest.skip(f"cannot listen on {host}:{port} here ({error})")
    sock.listen(64)
    sock.setblocking(False)
    try:
        yield sock, sock.getsockname()[1]
    finally:
        sock.close()


def connections(sock: socket.socket) -> int:
    """How many connections wait in the listener's backlog (accepting them)."""
    count = 0
    while True:
        try:
            conn, _ = sock.accept()
        except BlockingIOError:
            return count
        conn.close()
        count += 1


async def store(database_url: str, player_id: str, endpoint: str, browser: Any) -> None:
    """A subscription row as an older server stored it, unchecked by today's rules."""
    keys = browser.subscription()["keys"]
    db = Database(database_url)
    try:
        async with db.write() as session:
            session.add(
                PushSubscription(
                    player_id=player_id, endpoint=endpoint, p256dh=keys["p256dh"], auth=keys["auth"], lang="en"
                )
            )
    finally:
        await db.dispose()


async def count(database_url: str, player_id: str) -> int:
    db = Database(database_url)
    try:
        async with db.read() as session:
            query = select(func.count(PushSubscription.id)).where(PushSubscription.player_id == player_id)
            return int((await session.execute(query)).scalar_one())
    finally:
        await db.dispose()


async def test_endpoints_read_two_ways_are_refused_at_subscribe(database_url: str, receiver: Receiver) -> None:
    app = create_app(test_settings(database_url))  # the default push hosts, no test loopback
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://dicecup.test") as http,
    ):
        table, _ana, ben = await seated(http)
        own = table.auth(table.tokens[ben])
        good = receiver.browser("x").subscription()
        accepted = []
        for endpoint in REFUSED:
            r = await http.put(push_path(table, ben), headers=own, json={**good, "endpoint": endpoint})
            if r.status_code != 422 or r.json()["code"] != "invalid_subscription":
                accepted.append((endpoint, r.status_code))
        assert accepted == []
        r = await http.put(
            push_path(table, ben), headers=own, json={**good, "endpoint": "https://fcm.googleapis.com/fcm/send/a:b"}
        )
        assert r.status_code == 200, r.text
    assert await count(database_url, ben) == 1


async def push_service(database_url: str, dns: Any = None, **options: Any) -> PushService:
    db = Database(database_url)
    push = PushService(
        db,
        Nobody(),
        await load_keys(db, None),
        subject="mailto:ops@dicecup.test",
        allowed_hosts=options.pop("allowed_hosts", ["fcm.googleapis.com", "push.services.mozilla.com"]),
        dns=dns,
        **options,
    )
    await push.start()
    return push


async def stop(push: PushService) -> None:
    await push.close()
    await push.db.dispose()


async def test_a_stored_backslash_endpoint_is_refused_not_sent_to_its_address(
    app_http: tuple[Any, httpx.AsyncClient], receiver: Receiver, database_url: str
) -> None:
    """``https://127.0.0.77\\.fcm.googleapis.com/x`` was on the allow-list for
    the check and went to 127.0.0.77:443 for the sender."""
    _app, http = app_http
    table, _ana, ben = await seated(http)
    with listener("127.0.0.77", 443) as (sock, _port):
        await store(database_url, ben, "https://127.0.0.77\\.fcm.googleapis.com/x", receiver.browser("b"))
        push = await push_service(database_url)
        try:
            await push.notify(Turn(table.code, ben, 10_000, 1, None))
            await push.idle()
        finally:
            await stop(push)
        assert connections(sock) == 0
    assert push.outcomes == {"refused": 1}
    assert await count(database_url, ben) == 0  # deleted


async def test_a_name_resolving_to_a_private_address_gets_no_push(
    app_http: tuple[Any, httpx.AsyncClient], receiver: Receiver, database_url: str
) -> None:
    _app, http = app_http
    table, _ana, ben = await seated(http)
    dns = DnsTable({"fcm.googleapis.com": ["127.0.0.1"], "updates.push.services.mozilla.com": ["169.254.169.254"]})
    for endpoint in ("https://fcm.googleapis.com/fcm/send/x", "https://updates.push.services.mozilla.com/wpush/v2/y"):
        await store(database_url, ben, endpoint, receiver.browser("z"))  # as the API takes them
    push = await push_service(database_url, dns=dns)
    try:
        await push.notify(Turn(table.code, ben, 10_000, 1, None))
        await push.idle()
    finally:
        await stop(push)
    assert push.outcomes == {"refused": 2}
    assert dns.lookups == 2
    assert await count(database_url, ben) == 0


async def test_a_redirect_is_not_followed(app_http: tuple[Any, httpx.AsyncClient], database_url: str) -> None:
    """An allowed push service answering ``307 Location: http://127.0.0.3/...``
    used to get the signed POST re-sent there."""
    _app, http = app_http
    with Receiver() as service, Receiver("127.0.0.3") as elsewhere:
        service.redirects["phone"] = elsewhere.url("stolen")
        table, _ana, ben = await seated(http)
        r = await http.put(
            push_path(table, ben), headers=table.auth(table.tokens[ben]), json=service.browser("phone").subscription()
        )
        assert r.status_code == 200, r.text
        push = await push_service(database_url, allowed_hosts=["127.0.0.1", "127.0.0.3"], loopback_for_tests=True)
        try:
            await push.notify(Turn(table.code, ben, 10_000, 1, None))
            await push.idle()
        finally:
            await stop(push)
        assert len(service.to("phone")) == 1
        assert elsewhere.pushes == []
    assert push.outcomes == {"failed": 1}


async def test_a_push_service_that_never_answers_holds_no_other_push_back(
    app_http: tuple[Any, httpx.AsyncClient], receiver: Receiver
) -> None:
    """Eight seats whose endpoints stall (a tarpit) have their turns start
    first; the victim's push still arrives at once, not after the tarpit's
    timeouts (two senders, ten seconds each: 40 s before)."""
    app, http = app_http
    push: PushService = app.state.push
    with listener("127.0.0.1") as (_sock, port):
        turns = []
        for i in range(8):
            table, _ana, ben = await seated(http)
            stall = {**receiver.browser(f"t{i}").subscription(), "endpoint": f"http://127.0.0.1:{port}/tarpit/{i}"}
            r = await http.put(push_path(table, ben), headers=table.auth(table.tokens[ben]), json=stall)
            assert r.status_code == 200, r.text
            turns.append(Turn(table.code, ben, (await table.room())["version"] + 1, 1, None))
        victim_table, _ana, victim = await seated(http)
        browser = receiver.browser("victim")
        r = await http.put(
            push_path(victim_table, victim),
            headers=victim_table.auth(victim_table.tokens[victim]),
            json=browser.subscription(),
        )
        assert r.status_code == 200, r.text
        turns.append(Turn(victim_table.code, victim, (await victim_table.room())["version"] + 1, 1, None))
        started = time.monotonic()
        for turn in turns:
            assert push.offer(turn)
        [delivered] = await asyncio.to_thread(receiver.wait, "victim", 1, 30.0)
        took = time.monotonic() - started
        assert decrypt(delivered, browser)["room"] == victim_table.code
        assert took < 5, f"the victim's push took {took:.1f} s behind the tarpit"
