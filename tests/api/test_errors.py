"""Every error code the REST endpoints can produce: status, code, and that nothing changed."""

from dataclasses import replace
from types import MappingProxyType

import pytest
from sqlalchemy import select

from app.db import Database, Game, Room
from app.rules import Scorecard, Turn, get_ruleset, state_from_dict, state_to_dict

from ..table import Table


async def snapshot(table: Table) -> tuple:
    return await table.room(), await table.events()


def check(r, status: int, code: str) -> None:
    assert r.status_code == status, r.text
    body = r.json()
    assert body["code"] == code, body
    assert isinstance(body["detail"], str) and body["detail"]


async def refused(table: Table, request, status: int, code: str) -> None:
    before = await snapshot(table)
    check(await request, status, code)
    assert await snapshot(table) == before


async def force_position(database_url: str, code: str, filled: dict[str, int], dice: tuple[int, ...]) -> None:
    """Rewrite the current player's scorecard and dice in the stored game."""
    db = Database(database_url)
    try:
        async with db.write() as session:
            room = (await session.execute(select(Room).where(Room.code == code))).scalar_one()
            game = (
                await session.execute(select(Game).where(Game.room_id == room.id, Game.number == room.game_number))
            ).scalar_one()
            state = state_from_dict(game.state)
            rules = get_ruleset(state.ruleset)
            player = state.turn.player_id
            boxes = dict.fromkeys(rules.boxes) | filled
            cards = dict(state.scorecards) | {player: Scorecard(MappingProxyType(boxes))}
            turn = Turn(player, dice, (False,) * 5, 2)
            game.state = state_to_dict(replace(state, scorecards=MappingProxyType(cards), turn=turn))
    finally:
        await db.dispose()


@pytest.fixture
async def table(client) -> Table:
    t = Table(client)
    await t.create("yahtzee", "Ana", max_players=2)
    return t


async def test_room_game_player_not_found(client, table: Table) -> None:
    check(await client.get("/api/rooms/NOPE42"), 404, "room_not_found")
    check(await client.post("/api/rooms/NOPE42/actions", json={"type": "roll"}), 404, "room_not_found")
    check(await client.post("/api/rooms/NOPE42/players", json={"name": "x"}), 404, "room_not_found")
    check(await client.get(f"/api/rooms/{table.code}/games/1"), 404, "game_not_found")
    await refused(
        table,
        client.delete(f"/api/rooms/{table.code}/players/nobody", headers=table.auth(table.tokens[table.host])),
        404,
        "player_not_found",
    )
    check(await client.get("/api/no/such/route"), 404, "not_found")


async def test_tokens(client, table: Table) -> None:
    other = Table(client)
    await other.create()
    act = f"/api/rooms/{table.code}/actions"
    await refused(table, client.post(act, json={"type": "roll"}), 401, "unauthorized")
    await refused(table, client.post(act, json={"type": "roll"}, headers=table.auth("forged")), 401, "unauthorized")
    await refused(
        table, client.post(act, json={"type": "roll"}, headers={"authorization": "Basic abc"}), 401, "unauthorized"
    )
    foreign = table.auth(other.tokens[other.host])
    await refused(table, client.post(act, json={"type": "roll"}, headers=foreign), 403, "forbidden")
    await refused(table, client.post(f"/api/rooms/{table.code}/games", headers=foreign), 403, "forbidden")


async def test_host_only(client, table: Table) -> None:
    ben = await table.join("Ben")
    await refused(
        table, client.post(f"/api/rooms/{table.code}/games", headers=table.auth(table.tokens[ben])), 403, "not_host"
    )
    await refused(
        table,
        client.delete(f"/api/rooms/{table.code}/players/{table.host}", headers=table.auth(table.tokens[ben])),
        403,
        "not_host",
    )


async def test_room_state_codes(client, table: Table) -> None:
    await refused(table, table.act(table.host, type="roll"), 409, "game_not_started")
    ben = await table.join("Ben")
    await refused(table, client.post(f"/api/rooms/{table.code}/players", json={"name": "Cy"}), 409, "room_full")
    await table.start()
    await refused(
        table,
        client.post(f"/api/rooms/{table.code}/games", headers=table.auth(table.tokens[table.host])),
        409,
        "game_in_progress",
    )
    await refused(
        table,
        # during a game the host removes only an away seat (a seat leaving itself resigns: tests/lifecycle)
        client.delete(f"/api/rooms/{table.code}/players/{ben}", headers=table.auth(table.tokens[table.host])),
        403,
        "not_away",
    )
    room = await table.room()
    first = room["game"]["turn"]["player_id"]
    other = ben if first == table.host else table.host
    await refused(table, table.act(other, type="roll"), 409, "not_your_turn")
    await refused(table, table.act(first, type="keep", dice=[0]), 409, "must_roll_first")
    await refused(table, table.act(first, type="score", box="chance"), 409, "must_roll_first")
    await refused(table, table.act(first, type="score", box="choice"), 409, "unknown_box")
    await refused(table, table.act(first, type="roll", expected_version=1), 409, "stale_version")
    for _ in range(3):
        assert (await table.act(first, type="roll")).status_code == 200
    await refused(table, table.act(first, type="roll"), 409, "no_rolls_left")
    await refused(table, table.act(first, type="keep", dice=[1]), 409, "no_rolls_left")
    assert (await table.act(first, type="score", box="chance")).status_code == 200
    assert (await table.act(other, type="roll")).status_code == 200
    assert (await table.act(other, type="score", box="chance")).status_code == 200
    assert (await table.act(first, type="roll")).status_code == 200
    await refused(table, table.act(first, type="score", box="chance"), 409, "box_filled")


async def test_id_reuse_and_replay(client, table: Table) -> None:
    await table.start()
    player = (await table.room())["game"]["turn"]["player_id"]
    first = await table.act(player, type="roll", id="a1")
    assert first.status_code == 200
    again = await table.act(player, type="roll", id="a1")
    assert again.status_code == 200
    assert again.json()["version"] == first.json()["version"]
    assert again.json()["events"] == first.json()["events"]
    await refused(table, table.act(player, type="keep", dice=[0], id="a1"), 409, "id_reused")


@pytest.mark.parametrize(
    ("filled", "dice", "box", "code", "options"),
    [
        ({"yahtzee": 50}, (4, 4, 4, 4, 4), "chance", "joker_forces_upper", {}),
        ({"yahtzee": 50, "fours": 12}, (4, 4, 4, 4, 4), "ones", "joker_lower_box", {}),
        ({}, (1, 2, 3, 4, 6), "small_straight", "upper_section_first", {"upper_first": True}),
    ],
)
async def test_rule_codes_reach_the_client(client, database_url, filled, dice, box, code, options) -> None:
    table = Table(client)
    await table.create("yahtzee", "Ana", max_players=1, options=options)
    await table.start()
    await force_position(database_url, table.code, filled, dice)
    await refused(table, table.act(table.host, type="score", box=box), 409, code)


async def test_too_large_and_invalid(client, table: Table) -> None:
    await table.start()
    player = (await table.room())["game"]["turn"]["player_id"]
    token = table.auth(table.tokens[player])
    act = f"/api/rooms/{table.code}/actions"
    huge = {"type": "roll", "id": "x" * 20_000}
    await refused(table, client.post(act, json=huge, headers=token), 413, "too_large")
    check(await client.post("/api/rooms", json={"name": "x" * 20_000}), 413, "too_large")
    for body in [
        {"type": "fly"},
        {"type": "roll", "extra": 1},
        {"type": "keep", "dice": [5]},
        {"type": "keep", "dice": [1, 1]},
        {"type": "keep", "dice": "01"},
        {"type": "score"},
        {"type": "roll", "expected_version": "soon"},
        [],
    ]:
        r = client.post(act, json=body, headers=token)
        await refused(table, r, 422, "invalid_request")
    r = await client.post(act, content=b"{not json", headers=token | {"content-type": "application/json"})
    check(r, 422, "invalid_request")
    assert "errors" in r.json()


@pytest.mark.parametrize(
    "body",
    [
        {"ruleset": "poker", "name": "A"},
        {"ruleset": "yacht", "name": "A", "options": {"joker": "free"}},
        {"ruleset": "yahtzee", "name": "A", "options": {"joker": "sometimes"}},
        {"ruleset": "yahtzee", "name": "A", "options": {"hints": "yes"}},
        {"ruleset": "yahtzee", "name": "A", "max_players": 9},
        {"ruleset": "yahtzee"},
        {"ruleset": "yahtzee", "name": "A", "colour": "red"},
    ],
)
async def test_create_room_invalid(client, body) -> None:
    check(await client.post("/api/rooms", json=body), 422, "invalid_request")


async def test_a_blank_name_has_its_own_code(client) -> None:
    check(await client.post("/api/rooms", json={"ruleset": "yahtzee", "name": "   "}), 422, "name_empty")


async def test_events_query_validation(client, table: Table) -> None:
    check(await client.get(f"/api/rooms/{table.code}/events", params={"after": -1}), 422, "invalid_request")
    check(await client.get(f"/api/rooms/{table.code}/events", params={"limit": 0}), 422, "invalid_request")
    r = await client.get(f"/api/rooms/{table.code}/events", params={"after": 0, "limit": 1})
    assert r.json()["more"] is False and r.json()["version"] == 1


async def test_events_come_in_pages(client, table: Table) -> None:
    await table.join("Ben")
    room = await table.start()
    version = room["version"]
    assert version >= 3
    url = f"/api/rooms/{table.code}/events"
    first = (await client.get(url, params={"after": 0, "limit": 2})).json()
    assert [e["version"] for e in first["events"]] == [1, 2]
    assert (first["more"], first["version"]) == (True, version)
    rest = (await client.get(url, params={"after": 2, "limit": 100})).json()
    assert [e["version"] for e in rest["events"]] == list(range(3, version + 1))
    assert rest["more"] is False
    assert all(e["at"].endswith("Z") and e["type"] for e in first["events"] + rest["events"])
    last = (await client.get(url, params={"after": version})).json()
    assert last == {"events": [], "version": version, "more": False}
    check(await client.get("/api/rooms/ZZZZZZ/events"), 404, "room_not_found")


async def test_rate_limited_actions(database_url) -> None:
    """Past its per-seat action budget a seat gets 429 rate_limited, and nothing changes."""
    import httpx

    from app.main import create_app

    from ..conftest import test_settings

    settings = test_settings(database_url, rate_limits=True, actions_per_second=2)
    app = create_app(settings)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as http,
    ):
        table = Table(http)
        await table.create("yacht", "Ana", max_players=1)
        await table.start()
        assert (await table.act(table.host, type="roll")).status_code == 200
        assert (await table.act(table.host, type="keep", dice=[0])).status_code == 200
        await refused(table, table.act(table.host, type="roll"), 429, "rate_limited")
        # the budget is checked after the token and before the body
        await refused(table, table.act(table.host, type="fly"), 429, "rate_limited")
