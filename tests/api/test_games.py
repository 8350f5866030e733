"""Whole games over HTTP, for both rule sets and 1, 2 and 4 seats, on SQLite and PostgreSQL."""

import random

import pytest

from app.rules import get_ruleset, verify_game

from ..replay import replay
from ..table import Table, play


@pytest.mark.parametrize("ruleset", ["yahtzee", "yacht", "yatzy"])
@pytest.mark.parametrize("seats", [1, 2, 4])
async def test_full_game(client, ruleset: str, seats: int) -> None:
    table = Table(client)
    created = await table.create(ruleset, "Ana", max_players=seats)
    assert created["room"]["status"] == "lobby"
    for i in range(seats - 1):
        await table.join(f"Player {i + 2}")
    started = await table.start()
    assert started["status"] == "playing"
    game = started["game"]
    assert sorted(game["order"]) == sorted(table.tokens)
    assert game["fairness"]["seed"] is None and len(game["fairness"]["commitment"]) == 64

    room = await play(table, random.Random(f"{ruleset}{seats}"))
    game = room["game"]
    assert room["status"] == "finished" and game["status"] == "finished" and game["turn"] is None
    rules = get_ruleset(ruleset)
    for card in game["scorecards"].values():
        assert all(v is not None for v in card["boxes"].values())
        assert len(card["boxes"]) == rules.rounds
        parts = card["upper_total"] + card["upper_bonus"] + card["lower_total"] + card["yahtzee_bonus"]
        assert card["total"] == parts
    totals = {p: c["total"] for p, c in game["scorecards"].items()}
    assert room["games"] == [
        {"number": 1, "totals": totals, "winners": game["winners"], "resigned": [], "ended": "completed"}
    ]
    assert game["ended"] == "completed"
    assert set(game["winners"]) == {p for p, t in totals.items() if t == max(totals.values())}
    assert room["best"] == {ruleset: totals}

    events = await table.events()
    assert [e["version"] for e in events] == list(range(1, room["version"] + 1))
    start = next(i for i, e in enumerate(events) if e["type"] == "game_started")
    game_events = events[start:]
    finished = game_events[-1]
    assert finished["type"] == "game_finished"
    seed = finished["data"]["seed"]
    assert seed == game["fairness"]["seed"]
    assert verify_game(seed, game_events) > rules.rounds * seats
    assert sum(e["type"] == "scored" for e in game_events) == rules.rounds * seats
    final = replay(ruleset, room["options"], seed, game_events)
    assert final.finished
    for player, card in final.scorecards.items():
        assert dict(card.boxes) == game["scorecards"][player]["boxes"]
        assert rules.totals(card).total == totals[player]

    r = await client.get(f"/api/rooms/{table.code}/games/1")
    assert r.status_code == 200 and r.json() == game


async def test_next_game_in_the_same_room(client) -> None:
    table = Table(client)
    await table.create("yacht", "Solo", max_players=1)
    await table.start()
    first = await play(table, random.Random(1))
    again = await table.start()
    assert again["game"]["number"] == 2 and again["status"] == "playing"
    assert again["games"] == first["games"]
    second = await play(table, random.Random(2))
    assert [g["number"] for g in second["games"]] == [1, 2]
    solo = table.host
    best = max(g["totals"][solo] for g in second["games"])
    assert second["best"] == {"yacht": {solo: best}}
    r = await client.get(f"/api/rooms/{table.code}/games/1")
    assert r.json()["scorecards"][solo]["total"] == second["games"][0]["totals"][solo]


async def test_join_leave_and_host_handoff(client) -> None:
    table = Table(client)
    await table.create("yahtzee", "Ana")
    ben = await table.join("Ben")
    cy = await table.join("Cy")
    r = await client.delete(
        f"/api/rooms/{table.code}/players/{table.host}", headers=table.auth(table.tokens[table.host])
    )
    assert r.status_code == 204
    room = await table.room()
    assert room["host_id"] == ben
    assert [(p["id"], p["seat"], p["host"]) for p in room["players"]] == [(ben, 0, True), (cy, 1, False)]
    # the new host removes a player
    r = await client.delete(f"/api/rooms/{table.code}/players/{cy}", headers=table.auth(table.tokens[ben]))
    assert r.status_code == 204
    events = await table.events()
    assert [e["type"] for e in events] == ["player_joined"] * 3 + ["player_left"] * 2
    # the old token no longer works
    r = await table.act(table.host, type="roll")
    assert r.status_code == 401


async def test_codes_are_case_insensitive_and_unambiguous(client) -> None:
    table = Table(client)
    await table.create()
    assert len(table.code) == 6 and not set(table.code) & set("01OIL")
    r = await client.get(f"/api/rooms/{table.code.lower()}")
    assert r.status_code == 200 and r.json()["code"] == table.code


async def test_rulesets(client) -> None:
    r = await client.get("/api/rulesets")
    assert r.status_code == 200
    sets = {s["name"]: s for s in r.json()}
    assert sets["yahtzee"]["rounds"] == 13 and sets["yacht"]["rounds"] == 12
    assert sets["yahtzee"]["options"]["joker"] == {"default": "forced", "choices": ["forced", "free"]}
    assert sets["yahtzee"]["boxes"][0] == {"id": "ones", "label": "Aces", "section": "upper"}
    assert sets["yacht"]["boxes"][0] == {"id": "yacht", "label": "Yacht", "section": "lower"}
    assert sets["yatzy"]["rounds"] == 15 and sets["yatzy"]["label"] == "Yatzy"
    assert sets["yatzy"]["options"] == {
        "hints": {"default": False, "choices": [True, False]},
        "chat": {"default": True, "choices": [True, False]},
    }
    assert sets["yatzy"]["boxes"][7] == {"id": "two_pairs", "label": "Two pairs", "section": "lower"}
    assert sets["yahtzee"]["upper_bonus"] == {"threshold": 63, "points": 35} and sets["yacht"]["upper_bonus"] is None
    assert sets["yatzy"]["upper_bonus"] == {"threshold": 63, "points": 50} and sets["yatzy"]["yahtzee_bonus"] is None
    assert sets["yahtzee"]["yahtzee_bonus"] == 100
    assert sets["yacht"]["bot_levels"] == ["optimal", "strong", "casual", "beginner", "greedy"]


async def test_openapi_and_docs(client) -> None:
    r = await client.get("/openapi.json")
    assert r.status_code == 200
    spec = r.json()
    assert "/api/rooms/{code}/actions" in spec["paths"]
    assert {"CreateRoom", "Action", "RollAction", "RoomOut"} <= set(spec["components"]["schemas"])
    assert (await client.get("/docs")).status_code == 200
