"""Stop the app mid-game, start a new one on the same database, finish: the
result equals a replay of the event log through the rules engine."""

import random

import httpx

from app.main import create_app
from app.rules import get_ruleset

from ..conftest import test_settings
from ..replay import replay
from ..table import Table, play


async def test_half_a_game_survives_a_restart(database_url: str) -> None:
    table = Table(httpx.AsyncClient())  # replaced per app below
    rng = random.Random(42)

    app = create_app(test_settings(database_url))
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://a") as http,
    ):
        table.http = http
        await table.create("yahtzee", "Ana", max_players=3)
        await table.join("Ben")
        await table.join("Cy")
        await table.start()
        half = await play(table, rng, max_actions=60)
        assert half["game"]["status"] == "playing"
    # the lifespan has ended: the first app's engine is disposed

    app = create_app(test_settings(database_url))
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://b") as http,
    ):
        table.http = http
        resumed = await table.room()
        assert resumed == half | {"players": resumed["players"]}
        final = await play(table, rng)
        events = await table.events()

    start = next(i for i, e in enumerate(events) if e["type"] == "game_started")
    state = replay("yahtzee", final["options"], final["game"]["fairness"]["seed"], events[start:])
    rules = get_ruleset("yahtzee")
    assert state.finished
    for player, card in state.scorecards.items():
        assert dict(card.boxes) == final["game"]["scorecards"][player]["boxes"]
        assert rules.totals(card).total == final["game"]["scorecards"][player]["total"]
    assert final["games"][0]["totals"] == {p: rules.totals(c).total for p, c in state.scorecards.items()}
