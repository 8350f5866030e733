"""Room option ``bot_speed`` (issue 18.7): the deadline the scheduler records for a
bot's next move is scaled by the room's speed. Asserted from the recorded
``rooms.next_deadline`` against the moments before and after the action that
handed the turn to the bot, never by timing a bot's play."""

from contextlib import AsyncExitStack
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from app.db import Room
from app.db.models import utcnow
from app.rooms.bots import BOT_SPEEDS, bot_delay
from app.rooms.errors import DomainError
from app.rooms.service import RoomService

from ..table import Table
from .test_bots import add_bot, start_apps, wait_for_turn

BASE = 40.0
"""The server's bot delay in these tests: long enough that no bot of a timed speed moves during one."""


def aware(at: datetime) -> datetime:
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


async def next_deadline(app_db, code: str) -> datetime | None:
    async with app_db.read() as session:
        found = (await session.execute(select(Room.next_deadline).where(Room.code == code))).scalar_one()
    return None if found is None else aware(found)


async def hand_turn_to_bot(table: Table) -> tuple[datetime, datetime]:
    """Start the game and, if the person goes first, play their turn: the bot's
    turn begins between the two moments returned."""
    before = utcnow()
    await table.start()
    after = utcnow()
    room = await table.room()
    if room["game"]["turn"]["player_id"] == table.host:
        r = await table.act(table.host, type="roll")
        assert r.status_code == 200, r.text
        before = utcnow()
        r = await table.act(table.host, type="score", box="choice")
        assert r.status_code == 200, r.text
        after = utcnow()
    return aware(before), aware(after)


def test_a_rooms_speed_scales_the_servers_bot_delay() -> None:
    assert bot_delay(0.8, {}) == 0.8  # a room made before the option: normal
    assert bot_delay(0.8, {"bot_speed": "normal"}) == 0.8
    assert bot_delay(0.8, {"bot_speed": "instant"}) == 0.0
    assert bot_delay(0.8, {"bot_speed": "fast"}) < bot_delay(0.8, {"bot_speed": "normal"})
    assert bot_delay(0.8, {"bot_speed": "slow"}) > bot_delay(0.8, {"bot_speed": "normal"})


@pytest.mark.parametrize("speed", ["slow", "normal", "fast"])
async def test_the_bots_deadline_follows_the_rooms_speed(database_url, strategy_tables, speed) -> None:
    async with AsyncExitStack() as stack:
        (http,) = await start_apps(stack, database_url, 1, bot_delay=BASE)
        db = http._transport.app.state.db  # type: ignore[attr-defined]
        table = Table(http)
        created = await table.create("yacht", "Ana", max_players=2, options={"bot_speed": speed})
        assert created["room"]["options"]["bot_speed"] == speed
        bot = await add_bot(table, "greedy")
        before, after = await hand_turn_to_bot(table)
        room = await table.room()
        assert room["game"]["turn"]["player_id"] == bot["id"]
        assert room["game"]["turn"]["dice"] is None
        deadline = await next_deadline(db, table.code)
        assert deadline is not None
        # a first roll: thinking time 0.5 to 0.9 of the room's delay (app.rooms.bots.thinking_time)
        delay = BASE * BOT_SPEEDS[speed]
        low, high = before + timedelta(seconds=0.5 * delay), after + timedelta(seconds=0.9 * delay)
        assert low <= deadline <= high, (speed, deadline - before, delay)


async def test_instant_bots_are_due_at_once_and_play_their_turn(database_url, strategy_tables) -> None:
    async with AsyncExitStack() as stack:
        (http,) = await start_apps(stack, database_url, 1, bot_delay=BASE, scheduler_poll=0.1)
        table = Table(http)
        await table.create("yacht", "Ana", max_players=2, options={"bot_speed": "instant"})
        bot = await add_bot(table, "greedy")
        _, after = await hand_turn_to_bot(table)
        # at the server's 40 s delay a normal bot would not have rolled yet: an instant one finishes its turn
        await wait_for_turn(table, table.host, timeout=30.0)
        scored = [e for e in await table.events() if e["type"] == "scored" and e["player_id"] == bot["id"]]
        assert len(scored) == 1
        assert all(aware(datetime.fromisoformat(e["at"])) < after + timedelta(seconds=0.5 * BASE) for e in scored)


@pytest.mark.parametrize("bad", ["warp", "", "FAST", 3, None, True, ["fast"], {"x": 1}, "x" * 10_000])
async def test_a_bad_bot_speed_is_refused_and_makes_no_room(client, bad) -> None:
    r = await client.post("/api/rooms", json={"ruleset": "yacht", "name": "Ana", "options": {"bot_speed": bad}})
    assert r.status_code == 422, r.text
    assert r.json()["code"] == "invalid_request"


@pytest.mark.parametrize("bad", ["warp", 3, None, ["fast"], {"x": 1}])
def test_the_service_refuses_a_bad_speed_with_a_code(bad) -> None:
    """The rooms service's own check (quick play and other callers than the REST route)."""
    with pytest.raises(DomainError) as refused:
        RoomService.check_options("yacht", {"bot_speed": bad})
    assert refused.value.code == "invalid_request"


async def test_the_default_is_normal(client) -> None:
    r = await client.post("/api/rooms", json={"ruleset": "yahtzee", "name": "Ana"})
    assert r.status_code == 201, r.text
    assert r.json()["room"]["options"]["bot_speed"] == "normal"
