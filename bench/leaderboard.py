"""Leaderboard query latency over one million synthetic finished games (issue 14).

    .venv/bin/python -m bench.leaderboard --postgres postgresql://postgres@127.0.0.1:5432/test

Makes a throwaway PostgreSQL database (dropped afterwards), migrates it and
fills it in SQL: ``--profiles`` profiles (100,000), ``--games`` finished
games' results (1,000,000; one seat each, spread over the three rule sets
and the last 60 days), every profile's bests per rule set and period as
recording keeps them (all time, month, ISO week), and a rating per profile
and rule set. Then ``--queries`` leaderboard reads through
:meth:`ProfileService.leaderboard` (the route's own call), for a random rule
set, kind (best or rating), period and page (three in four the first page,
the rest up to offset 2,000), and prints the latency percentiles.

The target (issue 14): p99 under 20 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from datetime import UTC, datetime

from sqlalchemy import text

from app.config import normalize_database_url
from app.db import Database
from app.db.migrate import upgrade_async
from app.profiles import ProfileService
from tests.services import throwaway_postgres

FILL = [
    # profiles
    """INSERT INTO profiles (id, name, created_at)
       SELECT 'p' || lpad(i::text, 11, '0'), 'Player ' || i, now() - interval '90 days'
       FROM generate_series(1, :profiles) AS i""",
    # one seat's result per game, over the last 60 days
    """INSERT INTO game_results (game_id, room_code, game_number, ruleset, player_id, profile_id, name, bot,
                                 seats, score, place, won, yahtzees, upper_bonus, finished_at)
       SELECT NULL, 'R' || lpad((i % 99999)::text, 5, '0'), 1 + i / 99999,
              (ARRAY['yahtzee', 'yacht', 'yatzy'])[1 + i % 3], 's' || i,
              'p' || lpad((1 + (i::bigint * 7919) % :profiles)::text, 11, '0'), 'Player', NULL,
              1, 80 + (random() * 300)::int, 1, true, (random() < 0.3)::int, random() < 0.6,
              now() - random() * interval '60 days'
       FROM generate_series(1, :games) AS i""",
    # bests as recording keeps them
    """INSERT INTO bests (profile_id, ruleset, period, period_start, score, room_code, game_number, achieved_at)
       SELECT DISTINCT ON (profile_id, ruleset) profile_id, ruleset, 'all', '', score, room_code, game_number,
              finished_at
       FROM game_results ORDER BY profile_id, ruleset, score DESC, finished_at""",
    """INSERT INTO bests (profile_id, ruleset, period, period_start, score, room_code, game_number, achieved_at)
       SELECT DISTINCT ON (profile_id, ruleset, m) profile_id, ruleset, 'month', m, score, room_code, game_number,
              finished_at
       FROM (SELECT *, to_char(date_trunc('month', finished_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS m
             FROM game_results) AS r
       ORDER BY profile_id, ruleset, m, score DESC, finished_at""",
    """INSERT INTO bests (profile_id, ruleset, period, period_start, score, room_code, game_number, achieved_at)
       SELECT DISTINCT ON (profile_id, ruleset, w) profile_id, ruleset, 'week', w, score, room_code, game_number,
              finished_at
       FROM (SELECT *, to_char(date_trunc('week', finished_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS w
             FROM game_results) AS r
       ORDER BY profile_id, ruleset, w, score DESC, finished_at""",
    # a rating per profile and rule set it played, last changed at its last game
    """INSERT INTO ratings (profile_id, ruleset, mu, sigma, ordinal, games, updated_at)
       SELECT profile_id, ruleset, 15 + random() * 20, 1 + random() * 7, 0, count(*), max(finished_at)
       FROM game_results GROUP BY profile_id, ruleset""",
    "UPDATE ratings SET ordinal = mu - 3 * sigma",
    # and as of its last game in each month and week it played in, as rating keeps them
    """INSERT INTO period_ratings (profile_id, ruleset, period, period_start, mu, sigma, ordinal, games, updated_at)
       SELECT profile_id, ruleset, 'month', m, 15 + random() * 20, 1 + random() * 7, 0, count(*), max(finished_at)
       FROM (SELECT *, to_char(date_trunc('month', finished_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS m
             FROM game_results) AS r
       GROUP BY profile_id, ruleset, m""",
    """INSERT INTO period_ratings (profile_id, ruleset, period, period_start, mu, sigma, ordinal, games, updated_at)
       SELECT profile_id, ruleset, 'week', w, 15 + random() * 20, 1 + random() * 7, 0, count(*), max(finished_at)
       FROM (SELECT *, to_char(date_trunc('week', finished_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS w
             FROM game_results) AS r
       GROUP BY profile_id, ruleset, w""",
    "UPDATE period_ratings SET ordinal = mu - 3 * sigma",
]
VACUUM = "VACUUM ANALYZE"  # as autovacuum would: statistics, and the visibility map index-only scans read


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


async def run(admin_url: str, profiles: int, games: int, queries: int) -> None:
    async with throwaway_postgres(normalize_database_url(admin_url)) as url:
        await upgrade_async(url)
        db = Database(url)
        await db.open()
        try:
            started = time.perf_counter()
            async with db.engine.begin() as conn:
                for statement in FILL:
                    params = {"profiles": profiles, "games": games}
                    await conn.execute(text(statement), {k: v for k, v in params.items() if f":{k}" in statement})
            async with db.engine.connect() as conn:
                autocommit = await conn.execution_options(isolation_level="AUTOCOMMIT")
                await autocommit.execute(text(VACUUM))
            print(f"filled {games:,} games, {profiles:,} profiles in {time.perf_counter() - started:.0f} s")
            service = ProfileService(db)
            rng = random.Random(14)
            now = datetime.now(UTC)
            timings: dict[tuple[str, str], list[float]] = {}
            empty_first: set[tuple[str, str, str]] = set()
            past_end = 0
            for i in range(queries + 50):
                kind = rng.choice(["best", "rating"])
                offset = 0 if rng.random() < 0.75 else rng.randrange(0, 2000, 25)
                args = (rng.choice(["yahtzee", "yacht", "yatzy"]), kind, rng.choice(["all", "month", "week"]))
                t0 = time.perf_counter()
                page = await service.leaderboard(*args, offset, 25, now)  # type: ignore[arg-type]
                elapsed = (time.perf_counter() - t0) * 1000
                if not page["entries"]:
                    if offset == 0:
                        empty_first.add(args)  # a board with nobody on it: wrong for these data
                    else:
                        past_end += 1  # a page after the board's last entry
                if i >= 50:  # warm-up left out
                    timings.setdefault((kind, args[2]), []).append(elapsed)
            print("| kind | period | queries | p50 ms | p99 ms | max ms |\n|---|---|---|---|---|---|")
            for (kind, period), values in sorted(timings.items()):
                print(
                    f"| {kind} | {period} | {len(values)} | {percentile(values, 50):.2f} "
                    f"| {percentile(values, 99):.2f} | {max(values):.2f} |"
                )
            for kind in ("best", "rating"):
                values = [v for (k, _), vs in timings.items() if k == kind for v in vs]
                print(f"kind={kind}: p50 {percentile(values, 50):.2f} ms, p99 {percentile(values, 99):.2f} ms")
            print(f"empty first pages: {sorted(empty_first) or 'none'}; pages past a board's end: {past_end}")
            every = [v for values in timings.values() for v in values]
            print(f"all: p50 {percentile(every, 50):.2f} ms, p99 {percentile(every, 99):.2f} ms (target: p99 < 20 ms)")
        finally:
            await db.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--postgres", required=True, help="an admin URL of a PostgreSQL server (a database is made)")
    parser.add_argument("--profiles", type=int, default=100_000)
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=2000)
    args = parser.parse_args()
    asyncio.run(run(args.postgres, args.profiles, args.games, args.queries))


if __name__ == "__main__":
    main()
