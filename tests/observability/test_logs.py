"""JSON log lines with their context and no token; X-Request-ID."""

import io
import json
import logging
import random
import re
from collections.abc import Iterator

import httpx
import pytest

from app.config import Settings
from app.main import create_app
from app.observability import bind_connection, bound
from app.observability.logs import REDACTED, ContextFilter, JsonFormatter, TextFormatter, logging_config, redact
from tests.table import Table, play

from .test_ready import running


@pytest.fixture
def json_log() -> Iterator[io.StringIO]:
    """Every record of the app's and uvicorn's loggers, formatted as ``serve`` would with JSON."""
    buffer = io.StringIO()
    handler = logging.StreamHandler(buffer)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(ContextFilter())
    loggers = [logging.getLogger(name) for name in ("dicecup", "uvicorn")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
    try:
        yield buffer
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.removeHandler(handler)
            logger.setLevel(level)


def lines(buffer: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in buffer.getvalue().splitlines()]


async def test_json_lines_have_context_and_no_token(app_settings: Settings, json_log: io.StringIO) -> None:
    async with running(app_settings) as (_, http):
        table = Table(http)
        created = await table.create("yacht", "Ana", max_players=2)
        ben = await table.join("Ben")
        await table.start()
        await play(table, random.Random(3), max_actions=4)
        # a careless log call with a token in it is redacted too
        logging.getLogger("dicecup.test").info("hello %s", {"type": "hello", "token": table.tokens[ben]})
        logging.getLogger("dicecup.test").warning("header Authorization: Bearer %s", table.tokens[table.host])
    text = json_log.getvalue()
    for token in table.tokens.values():
        assert token not in text
    assert text.count(REDACTED) >= 2
    records = lines(json_log)
    for record in records:
        assert {"time", "level", "logger", "message"} <= record.keys()
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", record["time"])
    requests = [r for r in records if r["logger"] == "dicecup.http"]
    assert len(requests) >= 1 + 1 + 1 + 4
    for record in requests:
        assert re.fullmatch(r"[0-9a-f]{32}", record["request_id"])
        assert {"method", "path", "route", "status", "duration_ms"} <= record.keys()
    create = next(r for r in requests if r["route"] == "/api/rooms" and r["method"] == "POST")
    assert create["status"] == 201 and "room" not in create  # no room yet when it was asked for
    acts = [r for r in requests if r["route"] == "/api/rooms/{code}/actions"]
    assert len(acts) == 4
    for record in acts:
        assert record["room"] == created["room"]["code"]
        assert record["player_id"] in table.tokens
        assert record["status"] == 200
    start = next(r for r in requests if r["route"] == "/api/rooms/{code}/games")
    assert start["player_id"] == table.host and start["room"] == table.code
    assert len({r["request_id"] for r in requests}) == len(requests)


def test_exceptions_and_extras_are_redacted() -> None:
    record = logging.LogRecord("dicecup.x", logging.ERROR, __file__, 1, "failed for %s", ("x",), None)
    try:
        raise RuntimeError("postgresql://dicecup:hunter2@db/dicecup token=abc123")
    except RuntimeError:
        import sys

        record.exc_info = sys.exc_info()
    record.authorization = "Bearer abc123"
    record.detail = "seat_token: abc123"
    with bound(request_id="r-1", room="ABCDEF"):
        ContextFilter().filter(record)
    out = json.loads(JsonFormatter().format(record))
    assert "hunter2" not in json.dumps(out) and "abc123" not in json.dumps(out)
    assert out["request_id"] == "r-1" and out["room"] == "ABCDEF"
    assert "RuntimeError" in out["exception"]
    assert out["authorization"] == REDACTED
    text = TextFormatter().format(record)
    assert "hunter2" not in text and "[request_id=r-1 room=ABCDEF]" in text


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("Authorization: Bearer abc.DEF-123", "Authorization: Bearer [redacted]"),
        ('{"type": "hello", "token": "abc"}', '{"type": "hello", "token": [redacted]}'),
        ("seat_token=abc&x=1", "seat_token=[redacted]&x=1"),
        ("redis://:pw@host:6379/0", "redis://:[redacted]@host:6379/0"),
        ("token_hash=abc tokens: 3 no token here", "token_hash=abc tokens: 3 no token here"),
    ],
)
def test_redact(raw: str, clean: str) -> None:
    assert redact(raw) == clean


def test_connection_context_for_sockets() -> None:
    """What the socket code calls: every record of its task carries the socket's id, room and seat."""
    import contextvars

    def in_socket_task() -> dict:
        bind_connection(17, "ABCDEF", "p1")
        record = logging.LogRecord("dicecup.ws", logging.INFO, __file__, 1, "closed", (), None)
        ContextFilter().filter(record)
        return json.loads(JsonFormatter().format(record))

    out = contextvars.copy_context().run(in_socket_task)
    assert out["connection_id"] == "17" and out["room"] == "ABCDEF" and out["player_id"] == "p1"
    assert "request_id" not in out


def test_logging_config_covers_uvicorn() -> None:
    config = logging_config("info", "json")
    assert config["handlers"]["default"]["formatter"] == "json"
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        assert config["loggers"][name]["propagate"] is True and config["loggers"][name]["handlers"] == []


async def test_request_id_echo_and_generation(app_settings: Settings) -> None:
    async with running(app_settings) as (_, http):
        sent = "client-id_1.2"
        r = await http.get("/api/rulesets", headers={"x-request-id": sent})
        assert r.headers["x-request-id"] == sent
        generated = (await http.get("/api/rulesets")).headers["x-request-id"]
        assert re.fullmatch(r"[0-9a-f]{32}", generated)
        for bad in ("x" * 65, "has space", "semi;colon", "\xfcn".encode("latin-1"), ""):
            got = (await http.get("/api/rulesets", headers={"x-request-id": bad})).headers["x-request-id"]
            assert got != bad and re.fullmatch(r"[0-9a-f]{32}", got)
        assert (await http.get("/x" * 64, headers={"x-request-id": "a" * 64})).headers["x-request-id"] == "a" * 64
        # errors carry it too: 404, 422, 429-free probes
        for response in (
            await http.get("/api/rooms/NOSUCH"),
            await http.post("/api/rooms", content=b"{", headers={"content-type": "application/json"}),
            await http.get("/metrics"),
            await http.get("/api/ready"),
        ):
            assert re.fullmatch(r"[0-9a-f]{32}", response.headers["x-request-id"]), response


async def test_request_id_on_a_500(app_settings: Settings, json_log: io.StringIO) -> None:
    app = create_app(app_settings)
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with app.router.lifespan_context(app), httpx.AsyncClient(transport=transport, base_url="http://t") as http:

        async def broken(code: str) -> dict:
            raise RuntimeError("boom")

        app.state.service.get_room = broken
        r = await http.get("/api/rooms/ABCDEF", headers={"x-request-id": "trace-500"})
    assert r.status_code == 500 and r.json() == {"detail": "internal server error", "code": "internal_error"}
    assert r.headers["x-request-id"] == "trace-500"
    failed = [x for x in lines(json_log) if x.get("request_id") == "trace-500"]
    assert any("RuntimeError: boom" in x.get("exception", "") for x in failed)
    assert any(x["logger"] == "dicecup.http" and x.get("status") == 500 for x in failed)


def test_room_sockets_never_pass_the_http_middleware() -> None:
    """RoomSockets serves a room's socket before the request middleware (which
    handles HTTP only): a socket's stack holds no layer of it."""
    layers = [m.cls.__name__ for m in create_app().user_middleware]  # outermost first
    assert layers.index("RoomSockets") < layers.index("RequestObservability")
