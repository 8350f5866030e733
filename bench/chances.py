"""Win-chance latency: the compute time of one update (after a scored box)
as the server does it, over whole 4-player games of every rule set.

Each update is ``chances_of`` on the scorecards after a scored box, as the
server serves it (the normal mixture, exact for players with at most
``EXACT_OPEN`` open boxes; ``--monte-carlo``: rollouts for everyone),
with the per-state caches warm from the earlier updates of the same game (as
in a server: only the player who just scored has a new state) but cold
across games (fresh caches per game).

    .venv/bin/python -m bench.chances [--games 10] [--dir test-artifacts/strategy] [--monte-carlo]
"""

from __future__ import annotations

import argparse
import math
import os
import random
import time
from pathlib import Path

from app.analysis.chances import Rollouts, chances_of
from app.rules import RandomDice, apply, new_game
from app.strategy import Advisor, Variant
from app.strategy.tables import ensure, ensure_variance

from .strategy import percentile

VARIANTS = (Variant("yahtzee", "forced"), Variant("yacht"), Variant("yatzy"))


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.chances")
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--dir", type=Path, default=Path("data/strategy"))
    parser.add_argument("--monte-carlo", action="store_true", help="the old method: rollouts for every player")
    args = parser.parse_args()
    from tests.rules.play import random_action

    everything: list[float] = []
    for variant in VARIANTS:
        advisor = Advisor(variant, ensure(args.dir, variant)[0])
        variance = None if args.monte_carlo else ensure_variance(args.dir, variant)
        samples: list[float] = []
        for game in range(args.games):
            rollouts = Rollouts(advisor)
            players = [f"p{i}" for i in range(args.players)]
            dice = RandomDice(game)
            rng = random.Random(game)
            state = new_game(variant.ruleset, players, dice, variant.options).state
            while not state.finished:
                t = apply(state, random_action(state, rng), dice)
                state = t.state
                if any(e.type == "scored" for e in t.events) and not state.finished:
                    started = time.perf_counter()
                    chances, _ = chances_of(rollouts, state.scorecards, list(state.order), variance)
                    samples.append(time.perf_counter() - started)
                    assert math.isclose(sum(chances.values()), 1.0, abs_tol=1e-9)
        everything += samples
        ms = [s * 1000 for s in samples]
        print(
            f"{variant.key:22} updates {len(ms):5}  p50 {percentile(ms, 50):6.1f} ms  "
            f"p99 {percentile(ms, 99):6.1f} ms  max {max(ms):6.1f} ms",
            flush=True,
        )
    ms = [s * 1000 for s in everything]
    print(
        f"{'all':22} updates {len(ms):5}  p50 {percentile(ms, 50):6.1f} ms  p99 {percentile(ms, 99):6.1f} ms  "
        f"(load average {os.getloadavg()[0]:.1f})"
    )


if __name__ == "__main__":
    main()
