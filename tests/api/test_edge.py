"""The oversize-frame gate (app/api/edge.py, RateLimits.dropping): an
address that keeps sending frames over the size limit is dropped at the
connection, or refused 429 at the handshake behind a trusted proxy, while
every other client carries on. Each test failed on 0f3e20e, where every
such frame cost a whole connection, handshake and session (bench/RESULTS.md)."""

import asyncio
import json
import logging
import threading

import httpx
import pytest
import uvicorn
import websockets

from app.api.edge import uvicorn_options
from app.api.ratelimit import RateLimits
from bench.servers import free_port

from ..conftest import test_settings
from ..live import server_in_thread
from ..table import Table

BIG = "x" * (17 * 1024)


async def oversize(url: str, **connect) -> int | None:
    """Send one frame over the limit: the close code, or None if the connection was dropped."""
    try:
        async with websockets.connect(url, max_size=None, open_timeout=5, **connect) as ws:
            await ws.send(BIG)
            await asyncio.wait_for(ws.recv(), 5)
    except websockets.ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd is not None else 1006
    except (OSError, websockets.InvalidMessage, websockets.InvalidHandshake, TimeoutError):
        return None
    raise AssertionError("the oversize frame was taken")


async def watch(url: str, **connect) -> None:
    """A spectator's hello gets its welcome."""
    async with websockets.connect(url, open_timeout=5, **connect) as ws:
        await ws.send(json.dumps({"type": "hello", "token": None}))
        assert json.loads(await asyncio.wait_for(ws.recv(), 5))["type"] == "welcome"


def gated(database_url: str, **overrides: object):
    settings = test_settings(database_url, oversize_frames_per_minute=3, rooms_per_hour=1000, **overrides)
    settings.rate_limits = True
    return server_in_thread(settings)


async def test_an_address_sending_oversize_frames_is_dropped_at_the_connection(database_url: str) -> None:
    with gated(database_url) as server:
        async with httpx.AsyncClient(base_url=server.http) as http:
            table = Table(http)
            await table.create()
        url = server.socket_url(table.code)
        # the budget: each refused from its header with 1009, as always
        for _ in range(3):
            assert await oversize(url, local_addr=("127.0.0.1", 0)) == 1009
        # then nothing from that address gets an answer: not a socket, not a request
        assert await oversize(url, local_addr=("127.0.0.1", 0)) is None
        with pytest.raises(websockets.InvalidMessage):
            await websockets.connect(url, local_addr=("127.0.0.1", 0), open_timeout=5)
        transport = httpx.AsyncHTTPTransport(local_address="127.0.0.1")
        async with httpx.AsyncClient(base_url=server.http, transport=transport) as dropped:
            with pytest.raises(httpx.TransportError):
                await dropped.get("/api/health")
        # another address plays on
        await watch(url, local_addr=("127.0.0.2", 0))
        transport = httpx.AsyncHTTPTransport(local_address="127.0.0.2")
        async with httpx.AsyncClient(base_url=server.http, transport=transport) as other:
            assert (await other.get(f"/api/rooms/{table.code}")).status_code == 200


async def test_behind_a_trusted_proxy_the_client_is_refused_429_not_the_proxy(database_url: str) -> None:
    with gated(database_url, trusted_proxies="127.0.0.1") as server:
        async with httpx.AsyncClient(base_url=server.http) as http:
            table = Table(http)
            await table.create()
        url = server.socket_url(table.code)
        hostile = {"X-Forwarded-For": "203.0.113.9"}
        for _ in range(3):
            assert await oversize(url, additional_headers=hostile) == 1009
        with pytest.raises(websockets.InvalidStatus) as refused:
            await websockets.connect(url, additional_headers=hostile, open_timeout=5)
        response = refused.value.response
        assert response.status_code == 429
        assert int(response.headers["Retry-After"]) >= 1
        assert json.loads(response.body)["code"] == "rate_limited"
        # the proxy's connections stay up, and carry other clients as before
        await watch(url, additional_headers={"X-Forwarded-For": "203.0.113.10"})
        async with httpx.AsyncClient(base_url=server.http) as http:
            assert (await http.get(f"/api/rooms/{table.code}")).status_code == 200


async def test_the_app_counts_its_own_1009_too(database_url: str) -> None:
    """Behind a protocol layer that lets larger frames through, the app's own
    byte count refuses the message (1009) and counts it against the address."""
    settings = test_settings(database_url, oversize_frames_per_minute=2, rooms_per_hour=1000)
    settings.rate_limits = True
    with server_in_thread(settings, ws_max_size=1 << 20) as server:
        async with httpx.AsyncClient(base_url=server.http) as http:
            table = Table(http)
            await table.create()
        url = server.socket_url(table.code)
        for _ in range(2):
            assert await oversize(url) == 1009
        assert await oversize(url) is None


def test_the_budget_is_at_least_one_frame(sqlite_database: str) -> None:
    """A budget of 0 would drop every address, struck or not: refused at startup."""
    with pytest.raises(ValueError, match="oversize_frames_per_minute"):
        test_settings(sqlite_database, oversize_frames_per_minute=0)


def test_the_gate_is_off_with_the_rate_limits(sqlite_database: str) -> None:
    settings = test_settings(sqlite_database, oversize_frames_per_minute=1)
    assert not settings.rate_limits
    limits = RateLimits(settings)
    for _ in range(5):
        limits.oversize_frame("203.0.113.9")
    assert limits.dropping("203.0.113.9") is None
    assert not limits.drop_connection("203.0.113.9")


@pytest.mark.parametrize(
    ("proxies", "peer", "dropped"),
    [
        ("", "203.0.113.9", True),
        ("203.0.113.9", "203.0.113.9", False),
        ("203.0.113.0/24", "203.0.113.9", False),
        ("10.0.0.0/8, 2001:db8::/32", "203.0.113.9", True),
        ("2001:db8::/32", "2001:db8::1", False),
        ("*", "203.0.113.9", False),
    ],
)
def test_a_trusted_proxy_is_never_dropped(sqlite_database: str, proxies: str, peer: str, dropped: bool) -> None:
    settings = test_settings(sqlite_database, oversize_frames_per_minute=2, trusted_proxies=proxies)
    settings.rate_limits = True
    limits = RateLimits(settings)
    limits.oversize_frame(peer)
    assert not limits.drop_connection(peer)  # within the budget
    limits.oversize_frame(peer)
    assert limits.dropping(peer) is not None
    assert limits.drop_connection(peer) is dropped


async def test_an_address_that_keeps_knocking_after_429_is_dropped(database_url: str) -> None:
    """A room-code prober that ignores Retry-After: its failed lookups, then
    its refusals, then nothing. On 0f3e20e every probe past the budget still
    cost a whole handshake (sockets) or request: 4429 and 429 forever."""
    with gated(database_url, lookup_failures_per_minute=2, refusals_per_minute=3) as server:
        async with httpx.AsyncClient(base_url=server.http) as http:
            table = Table(http)
            await table.create()

        async def probe(code: str) -> int | None:
            """A new connection from the prober's address each time (as a prober makes them)."""
            transport = httpx.AsyncHTTPTransport(local_address="127.0.0.3")
            async with httpx.AsyncClient(base_url=server.http, transport=transport) as prober:
                try:
                    return (await prober.get(f"/api/rooms/{code}")).status_code
                except httpx.TransportError:
                    return None

        answers = [await probe(code) for code in ("ZZZZZA", "ZZZZZB", "ZZZZZC", "ZZZZZD", "ZZZZZE", "ZZZZZF")]
        assert answers == [404, 404, 429, 429, 429, None], answers
        with pytest.raises((websockets.InvalidMessage, OSError)):
            await websockets.connect(server.socket_url(table.code), local_addr=("127.0.0.3", 0), open_timeout=5)
        # another address plays on
        await watch(server.socket_url(table.code), local_addr=("127.0.0.2", 0))


async def test_a_handshake_waiting_on_the_app_at_shutdown_is_closed_1012_not_500() -> None:
    """The server stops while a socket's handshake waits on the app (a room
    lookup, a slow event loop): the client gets what an open socket gets,
    1012 (service restart: reconnect), and nothing is logged as an error.
    Before GatedWebSocket.shutdown, uvicorn answered 500 and logged "ASGI
    callable returned without completing handshake" (bench logs showed both)."""
    connected = threading.Event()
    release = threading.Event()
    accepted: list[str] = []

    async def app(scope, receive, send) -> None:  # a handshake held until the test releases it
        if scope["type"] != "websocket":
            return
        assert (await receive())["type"] == "websocket.connect"
        connected.set()
        await asyncio.to_thread(release.wait, 10)
        try:
            await send({"type": "websocket.accept"})
            accepted.append("accepted")
        except OSError:  # uvicorn's ClientDisconnected
            accepted.append("disconnected")
        accepted.append((await receive())["type"])

    errors: list[str] = []

    class Errors(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.levelno >= logging.ERROR:
                errors.append(record.getMessage())

    handler = Errors()
    logging.getLogger("uvicorn.error").addHandler(handler)
    port = free_port()
    edge = uvicorn_options(64)  # the protocols of python -m app serve
    config = uvicorn.Config(app, host="127.0.0.1", port=port, lifespan="off", log_level="warning", **edge)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        for _ in range(500):
            if server.started:
                break
            await asyncio.sleep(0.01)

        async def open_socket() -> websockets.ClientConnection:
            return await websockets.connect(f"ws://127.0.0.1:{port}/socket", open_timeout=10)

        client = asyncio.create_task(open_socket())
        assert await asyncio.to_thread(connected.wait, 10)
        server.should_exit = True  # the handshake is still waiting on the app
        async with asyncio.timeout(10):
            socket = await client  # the handshake is answered: 101, not 500
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await socket.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012
        release.set()
        await asyncio.to_thread(thread.join, 10)
        assert not thread.is_alive()
        assert accepted == ["disconnected", "websocket.disconnect"]  # the app learns the socket is gone
        assert errors == []
    finally:
        release.set()
        server.should_exit = True
        logging.getLogger("uvicorn.error").removeHandler(handler)
