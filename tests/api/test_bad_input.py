"""No 500 for bad input, on SQLite and PostgreSQL (issue 11, item 3).

Integers beyond the database's range (SQLite's 64-bit, PostgreSQL's 32-bit
integer columns) in paths, queries and bodies are 422; NUL and other control
characters (and lone surrogates, which neither database can store) in names
(name_invalid), action ids and boxes are 422; room codes and player ids in paths that no room
or seat can have are 404 without a query.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

from ..table import Table
from .test_errors import check, refused

HUGE = [2**31, 2**32, 2**63 - 1, 2**63, 2**64, 10**30]


@pytest.fixture
async def table(client: httpx.AsyncClient) -> Table:
    t = Table(client)
    await t.create("yacht", "Ana", max_players=2)
    return t


@contextmanager
def no_queries(client: httpx.AsyncClient) -> Iterator[None]:
    """Fails if the app opens a read, a write or an action transaction inside the block."""
    db = client._transport.app.state.service.db  # type: ignore[attr-defined]
    opened: list[str] = []
    originals = {name: getattr(db, name) for name in ("read", "write", "act")}

    def counting(name: str) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            opened.append(name)
            return originals[name](*args, **kwargs)

        return wrapper

    for name in originals:
        setattr(db, name, counting(name))
    try:
        yield
    finally:
        for name, original in originals.items():
            setattr(db, name, original)
    assert opened == [], f"the database was asked: {opened}"


@pytest.mark.parametrize("n", HUGE)
async def test_huge_game_number(client: httpx.AsyncClient, table: Table, n: int) -> None:
    check(await client.get(f"/api/rooms/{table.code}/games/{n}"), 422, "invalid_request")
    check(await client.get(f"/api/rooms/{table.code}/games/{2**31 - 1}"), 404, "game_not_found")


@pytest.mark.parametrize("n", HUGE)
async def test_huge_events_query(client: httpx.AsyncClient, table: Table, n: int) -> None:
    url = f"/api/rooms/{table.code}/events"
    check(await client.get(url, params={"after": n}), 422, "invalid_request")
    check(await client.get(url, params={"limit": n}), 422, "invalid_request")
    r = await client.get(url, params={"after": 2**31 - 1})
    assert r.status_code == 200, r.text
    assert r.json() == {"events": [], "version": 1, "more": False}


@pytest.mark.parametrize("n", HUGE)
async def test_huge_expected_version(client: httpx.AsyncClient, table: Table, n: int) -> None:
    await table.start()
    player = (await table.room())["game"]["turn"]["player_id"]
    await refused(table, table.act(player, type="roll", expected_version=n), 422, "invalid_request")
    await refused(table, table.act(player, type="keep", dice=[0], expected_version=n), 422, "invalid_request")


WRONG_TYPES = [
    {"type": "keep", "dice": ["0"]},
    {"type": "keep", "dice": [0.0]},
    {"type": "keep", "dice": [True]},
    {"type": "keep", "dice": "0"},
    {"type": "roll", "keep": ["1"]},
    {"type": "roll", "expected_version": "3"},
    {"type": "roll", "expected_version": 3.0},
    {"type": "roll", "expected_version": True},
    {"type": "score", "box": 5},
]


@pytest.mark.parametrize("action", WRONG_TYPES)
async def test_wrong_types_in_actions_are_refused_not_converted(
    client: httpx.AsyncClient, table: Table, action: dict[str, Any]
) -> None:
    """docs/api.md: wrong types get 422 (``"0"`` was taken for position 0)."""
    await table.start()
    player = (await table.room())["game"]["turn"]["player_id"]
    r = await table.act(player, type="roll")
    assert r.status_code == 200, r.text
    await refused(table, table.act(player, **action), 422, "invalid_request")


@pytest.mark.parametrize("n", [2**31, 2**63, 2**64])
async def test_huge_numbers_elsewhere_in_bodies(client: httpx.AsyncClient, table: Table, n: int) -> None:
    check(await client.post("/api/rooms", json={"name": "A", "max_players": n}), 422, "invalid_request")
    await table.start()
    player = (await table.room())["game"]["turn"]["player_id"]
    await refused(table, table.act(player, type="keep", dice=[n]), 422, "invalid_request")
    await refused(table, table.act(player, type="roll", keep=[0, n]), 422, "invalid_request")


# Raw JSON, so that escapes such as a lone surrogate reach the server as sent.
BAD_TEXT = [
    r"\u0000",
    r"A\u0000B",
    r"\u0001x",
    r"tab\there",
    r"line\nbreak",
    r"del\u007f",
    r"c1\u0085c",
    r"\ud800",
    r"x\udfffy",
]


def raw(template: str, text: str) -> bytes:
    return template.replace("TEXT", text).encode()


JSON = {"content-type": "application/json"}


# A player's name is normalized (app.rooms.names): whitespace among the
# control characters (tab, newline, NEL) is a space; the others are refused
# with the name's own code; a lone surrogate may not even parse.
NAME_CODES = {r"tab\there": None, r"line\nbreak": None, r"c1\u0085c": None, r"\ud800": "*", r"x\udfffy": "*"}


@pytest.mark.parametrize("text", BAD_TEXT)
async def test_control_characters_in_names(client: httpx.AsyncClient, table: Table, text: str) -> None:
    code = NAME_CODES.get(text, "name_invalid")
    if code is None:
        created = await client.post("/api/rooms", content=raw('{"name": "TEXT"}', text), headers=JSON)
        assert created.status_code == 201 and " " in created.json()["player"]["name"], created.text
        return
    first = await client.post("/api/rooms", content=raw('{"name": "TEXT"}', text), headers=JSON)
    code = first.json()["code"] if code == "*" else code
    assert code in ("invalid_request", "name_invalid"), first.text
    check(first, 422, code)
    await refused(
        table,
        client.post(f"/api/rooms/{table.code}/players", content=raw('{"name": "TEXT"}', text), headers=JSON),
        422,
        code,
    )


async def test_names_that_are_fine(client: httpx.AsyncClient, table: Table) -> None:
    """Letters of any script, emoji and inner spaces are names; outer spaces are trimmed."""
    for name in ["Zoë", "أحمد", "李雷", "🎲 dice 🎲", "  Ana  ", "a" * 32]:
        r = await client.post(f"/api/rooms/{table.code}/players", json={"name": name})
        if r.status_code == 409:  # room_full: a fresh room
            table = Table(client)
            await table.create("yacht", "Host", max_players=8)
            r = await client.post(f"/api/rooms/{table.code}/players", json={"name": name})
        assert r.status_code == 201, r.text
        assert r.json()["player"]["name"] == name.strip()


@pytest.mark.parametrize("text", BAD_TEXT)
async def test_control_characters_in_actions(client: httpx.AsyncClient, table: Table, text: str) -> None:
    await table.start()
    player = (await table.room())["game"]["turn"]["player_id"]
    url = f"/api/rooms/{table.code}/actions"
    headers = JSON | table.auth(table.tokens[player])
    for template in ['{"type": "roll", "id": "TEXT"}', '{"type": "score", "box": "TEXT"}']:
        await refused(table, client.post(url, content=raw(template, text), headers=headers), 422, "invalid_request")


# Room codes no room can have: NUL and other control characters, letters
# outside the codes' alphabet, the wrong length. Percent-encoded in the path.
BAD_CODES = [
    *["%00", "AB%00CD", "ABC%00EF", "%01%02%03%04%05%06"],
    *["%C3%84BCDEF", "%F0%9F%8E%B2", "ABCDE", "ABCDEFG", "O0I1L5"],
]


@pytest.mark.parametrize("code", BAD_CODES)
async def test_impossible_room_codes(client: httpx.AsyncClient, code: str) -> None:
    bearer = {"authorization": "Bearer x"}
    calls = [
        ("GET", f"/api/rooms/{code}", None, {}),
        ("GET", f"/api/rooms/{code}/events", None, {}),
        ("GET", f"/api/rooms/{code}/games/1", None, {}),
        ("GET", f"/api/rooms/{code}/hint", None, bearer),
        ("POST", f"/api/rooms/{code}/players", {"name": "Ben"}, {}),
        ("POST", f"/api/rooms/{code}/games", None, bearer),
        ("POST", f"/api/rooms/{code}/bots", {}, bearer),
        ("POST", f"/api/rooms/{code}/actions", {"type": "roll"}, bearer),
        ("DELETE", f"/api/rooms/{code}/players/abc", None, bearer),
    ]
    with no_queries(client):
        for method, url, body, headers in calls:
            r = await client.request(method, url, json=body, headers=headers)
            check(r, 404, "room_not_found")


async def test_room_codes_are_case_insensitive_still(client: httpx.AsyncClient, table: Table) -> None:
    r = await client.get(f"/api/rooms/{table.code.lower()}")
    assert r.status_code == 200, r.text
    assert r.json()["code"] == table.code


@pytest.mark.parametrize("player_id", ["%00", "ab%00cd", "%01", "%C3%A9t%C3%A9", "a%20b", "x" * 32])
async def test_impossible_player_ids(client: httpx.AsyncClient, table: Table, player_id: str) -> None:
    url = f"/api/rooms/{table.code}/players/{player_id}"
    # precedence: the room, then the token
    check(await client.delete(f"/api/rooms/ZZZZZZ/players/{player_id}"), 404, "room_not_found")
    check(await client.delete(url), 401, "unauthorized")
    await refused(table, client.delete(url, headers=table.auth(table.tokens[table.host])), 404, "player_not_found")


async def test_overlong_path_strings(client: httpx.AsyncClient, table: Table) -> None:
    """Past the documented maxLength a path string is malformed: 422 before anything is looked up."""
    with no_queries(client):
        check(await client.get(f"/api/rooms/{'A' * 17}"), 422, "invalid_request")
        check(await client.delete(f"/api/rooms/{table.code}/players/{'x' * 33}"), 422, "invalid_request")
