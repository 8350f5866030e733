"""Leaderboards (issue 14): the month and week rating boards hold the
profiles rated in that period, at their rating after their last game in it
(app/profiles: period_ratings), in the board's order, paged; on SQLite and
PostgreSQL. The query latency is measured by bench/leaderboard.py."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.db import Database
from app.profiles import ProfileService, ratings

from .test_profiles import game, new_profile


async def board(client, **params) -> list[dict]:
    """Every entry of a board, page by page (limit 2: the paging is exercised)."""
    entries, offset = [], 0
    while offset is not None:
        page = (await client.get("/api/leaderboards/yatzy", params={**params, "limit": 2, "offset": offset})).json()
        entries += page["entries"]
        offset = page["next_offset"]
    return entries


async def test_rating_boards_of_each_period(client, app_settings) -> None:
    profiles = [await new_profile(client, name) for name in ("Gus", "Hal", "Ivy")]
    mine = {pid for pid, _ in profiles}
    await game(client, "yatzy", [t for _, t in profiles])
    await game(client, "yatzy", [t for _, t in profiles[:2]])  # Gus and Hal twice
    current = {pid: (await client.get(f"/api/profiles/{pid}")).json()["ratings"]["yatzy"] for pid in mine}
    assert {r["games"] for r in current.values()} == {1, 2}
    for period in ("all", "month", "week"):
        entries = await board(client, kind="rating", period=period)
        ours = {e["profile_id"]: e for e in entries if e["profile_id"] in mine}
        assert set(ours) == mine, period
        # each at its rating after its last game in the period (here: its current one)
        assert {pid: e["rating"] for pid, e in ours.items()} == current, period
        keys = [(e["rating"]["ordinal"], e["profile_id"]) for e in entries]
        assert keys == sorted(keys, reverse=True), period  # ordinal, then profile id, descending
        assert [e["rank"] for e in entries] == list(range(1, len(entries) + 1))

    # another month's and week's boards: nobody rated then is on them
    service = ProfileService(Database(app_settings.database_url))
    await service.db.open()
    try:
        for days in (-45, 45):
            when = datetime.now(UTC) + timedelta(days=days)
            for period in ("month", "week"):
                page = await service.leaderboard("yatzy", "rating", period, 0, 100, when)
                assert not mine & {e["profile_id"] for e in page["entries"]}, (days, period)
    finally:
        await service.db.dispose()


async def test_a_period_keeps_the_rating_of_its_last_game(client, app_settings) -> None:
    """A rating move is written to the current month's and week's rows too;
    replaying the openskill updates gives the values of every row."""
    profiles = [await new_profile(client, name) for name in ("Jo", "Kit")]
    pids = [pid for pid, _ in profiles]
    skills = [ratings.Skill(ratings.MU, ratings.SIGMA)] * 2
    for _ in range(2):
        _, _, room = await game(client, "yatzy", [t for _, t in profiles])
        totals = room["games"][-1]["totals"]
        order = [p["id"] for p in sorted(room["players"], key=lambda p: p["seat"])]
        skills = ratings.rate(skills, [1 + sum(t > totals[s] for t in totals.values()) for s in order])
    for period in ("month", "week"):
        entries = {e["profile_id"]: e for e in await board(client, kind="rating", period=period)}
        for pid, skill in zip(pids, skills, strict=True):
            assert entries[pid]["rating"]["mu"] == pytest.approx(skill.mu, abs=1e-3)
            assert entries[pid]["rating"]["sigma"] == pytest.approx(skill.sigma, abs=1e-3)
            assert entries[pid]["rating"]["games"] == 2
    # the export has them, and deleting the profile takes them off the boards
    export = (await client.get("/api/profiles/me/export", headers={"authorization": f"Bearer {profiles[0][1]}"})).json()
    assert {(r["period"], r["rating"]["games"]) for r in export["period_ratings"]} == {("month", 2), ("week", 2)}
    assert (
        await client.delete("/api/profiles/me", headers={"authorization": f"Bearer {profiles[0][1]}"})
    ).status_code == 204
    for period in ("month", "week"):
        assert pids[0] not in {e["profile_id"] for e in await board(client, kind="rating", period=period)}
