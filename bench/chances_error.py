"""Win-chance error: the served method (this turn exactly, then a normal
with the exact mean and variance of the state each outcome leads to;
rollouts for players with at most ``EXACT_OPEN`` open boxes), a single
normal from the current state's mean and variance, and plain Monte Carlo
with 1,000 rollouts a state, all against a
reference of 20,000 rollouts a state, over every position (after each scored
box) of seeded multiplayer games played by bots of mixed levels.

The reference has its own noise (a chance's standard error is at most
0.0035 at 20,000 rollouts), which is in the figures too.

    .venv/bin/python -m bench.chances_error [--games 8] [--dir data/strategy]
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import numpy as np

from app.analysis.chances import EXACT_OPEN, Rollouts, chances_of
from app.rules import RandomDice, Roll, Score, apply, new_game
from app.strategy import Advisor, BoxChoice, Variant, pick
from app.strategy.tables import ensure, ensure_variance

from .strategy import percentile

VARIANTS = (Variant("yahtzee", "forced"), Variant("yacht"), Variant("yatzy"))
LEVELS = ("optimal", "strong", "casual", "casual")
REFERENCE = 10_000


def positions(advisor: Advisor, game: int):  # type: ignore[no-untyped-def]
    """The scorecards after every scored box of one seeded game (2 to 4 players)."""
    rng = random.Random(game)
    players = [f"p{i}" for i in range(2 + game % 3)]
    levels = {p: LEVELS[(game + i) % len(LEVELS)] for i, p in enumerate(players)}
    dice = RandomDice(10_000 + game)
    variant = advisor.variant
    state = new_game(variant.ruleset, players, dice, variant.options).state
    while not state.finished:
        turn = state.turn
        assert turn is not None
        if turn.dice is None:
            action: Roll | Score = Roll(turn.player_id)
        else:
            advice = advisor.advise(state.scorecards[turn.player_id], turn.dice, turn.rolls_left)
            choice = pick(advice, levels[turn.player_id], rng)
            action = (
                Score(turn.player_id, choice.box)
                if isinstance(choice, BoxChoice)
                else Roll(turn.player_id, choice.dice)
            )
        t = apply(state, action, dice)
        state = t.state
        if any(e.type == "scored" for e in t.events) and not state.finished:
            yield state


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.chances_error")
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--dir", type=Path, default=Path("data/strategy"))
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    report: dict[str, object] = {"games": args.games, "reference_rollouts": REFERENCE, "simulate_open": EXACT_OPEN}
    for variant in VARIANTS:
        advisor = Advisor(variant, ensure(args.dir, variant)[0])
        variance = ensure_variance(args.dir, variant)
        reference, fast = Rollouts(advisor, REFERENCE, cache_size=100_000), Rollouts(advisor, cache_size=100_000)
        rows: list[tuple[int, int, float, float]] = []  # fewest and most open boxes; served, MC 1,000
        for game in range(args.games):
            for state in positions(advisor, game):
                order = list(state.order)
                exact, _ = chances_of(reference, state.scorecards, order)
                served, _ = chances_of(fast, state.scorecards, order, variance)
                plain, _ = chances_of(fast, state.scorecards, order)
                n = advisor.model.n_boxes
                opens = [n - sum(v is not None for v in state.scorecards[p].boxes.values()) for p in order]
                rows.append(
                    (
                        min(opens),
                        max(opens),
                        max(abs(served[p] - exact[p]) for p in order),
                        max(abs(plain[p] - exact[p]) for p in order),
                    )
                )
        groups = {
            "all": rows,
            f"every player <= {EXACT_OPEN} open (exact)": [r for r in rows if r[1] <= EXACT_OPEN],
            f"some <= {EXACT_OPEN} open, some more": [r for r in rows if r[0] <= EXACT_OPEN < r[1]],
            f"fewest open {EXACT_OPEN + 1}-6": [r for r in rows if EXACT_OPEN < r[0] <= 6],
            "fewest open 7+": [r for r in rows if r[0] >= 7],
        }
        out = {}
        for name, group in groups.items():
            if not group:
                continue
            served_err = [r[2] for r in group]
            plain_err = [r[3] for r in group]
            out[name] = {
                "positions": len(group),
                "served_mean": float(np.mean(served_err)),
                "served_p95": percentile(served_err, 95),
                "served_max": max(served_err),
                "mc1000_mean": float(np.mean(plain_err)),
                "mc1000_p95": percentile(plain_err, 95),
                "mc1000_max": max(plain_err),
            }
            o = out[name]
            print(
                f"{variant.key:22} {name:42} n {o['positions']:4}  served mean {o['served_mean']:.4f} "
                f"p95 {o['served_p95']:.4f} max {o['served_max']:.4f} | MC 1,000 mean {o['mc1000_mean']:.4f} "
                f"p95 {o['mc1000_p95']:.4f} max {o['mc1000_max']:.4f}",
                flush=True,
            )
        report[variant.key] = out
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
