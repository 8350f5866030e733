"""Bot calibration: every bot level's solo games on every rule set, against the
optimal strategy.

For each (rule set, level): the mean and standard deviation of the final
score over ``--games`` solo games (seeded), and the mean loss per decision:
for every keep and box choice the bot makes, the optimal choice's expected
final total minus the chosen one's (the post-game analysis's ``loss``).

    .venv/bin/python -m bench.bots [--games 10000] [--workers 2] [--json bench/results/bots.json]
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import statistics
import time
from pathlib import Path

from app.rules import RandomDice, Roll, Score, apply, get_ruleset, new_game
from app.strategy import LEVELS, Advisor, BoxChoice, Variant, multisets, pick
from app.strategy.beginner import beginner_choice
from app.strategy.tables import ensure

VARIANTS = (Variant("yahtzee", "forced"), Variant("yacht"), Variant("yatzy"))
BATCH = 500


def play(variant: Variant, level: str, games: int, seed: int, strategy_dir: Path) -> dict[str, float]:
    """Solo games in lockstep (one batched turn plan per turn); totals and losses."""
    table, _ = ensure(strategy_dir, variant)
    optimal = Advisor(variant, table)
    greedy = Advisor(variant, None)
    rules = get_ruleset(variant.ruleset)
    rng = random.Random(seed)
    totals: list[int] = []
    losses: list[float] = []
    for start in range(0, games, BATCH):
        count = min(BATCH, games - start)
        dice = [RandomDice(seed * 1_000_003 + start + i) for i in range(count)]
        states = [new_game(variant.ruleset, ["p"], dice[i], variant.options).state for i in range(count)]
        while not states[0].finished:
            plan = optimal.plan([s.scorecards["p"] for s in states])
            for i in range(count):
                state = apply(states[i], Roll("p"), dice[i]).state
                while True:
                    turn = state.turn
                    assert turn is not None and turn.dice is not None
                    card = state.scorecards["p"]
                    advice = optimal.advise(card, turn.dice, turn.rolls_left, plan, i)
                    if level == "optimal":
                        choice = advice.best
                    elif level == "greedy":
                        choice = greedy.advise(card, turn.dice, turn.rolls_left).best
                    elif level == "beginner":
                        choice = beginner_choice(greedy, card, turn.dice, turn.rolls_left, rng)
                    else:
                        choice = pick(advice, level, rng)
                    # the chosen choice's value, from the optimal advice
                    if isinstance(choice, BoxChoice):
                        ev = next(b.ev for b in advice.boxes if b.box == choice.box)
                    elif len(choice.values) == 5:
                        value = plan.keep_values[turn.rolls_left][multisets.keep_index(choice.values), i]
                        ev = rules.totals(card).total + float(value)
                    else:
                        ev = next(k.ev for k in advice.keeps if k.values == tuple(sorted(choice.values)))
                    losses.append(max(0.0, advice.best.ev - ev))
                    if isinstance(choice, BoxChoice):
                        state = apply(state, Score("p", choice.box), dice[i]).state
                        break
                    state = apply(state, Roll("p", choice.dice), dice[i]).state
                states[i] = state
        totals += [rules.totals(s.scorecards["p"]).total for s in states]
    return {
        "games": games,
        "mean": statistics.fmean(totals),
        "sd": statistics.stdev(totals),
        "loss_per_decision": statistics.fmean(losses),
        "decisions_per_game": len(losses) / games,
    }


def _job(args: tuple[str, str, int, int, str]) -> tuple[str, str, dict[str, float], float]:
    key, level, games, seed, folder = args
    variant = next(v for v in VARIANTS if v.key == key)
    started = time.perf_counter()
    result = play(variant, level, games, seed, Path(folder))
    return key, level, result, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bots")
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dir", type=Path, default=Path("data/strategy"))
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    for variant in VARIANTS:
        ensure(args.dir, variant)
    jobs = [(v.key, level, args.games, args.seed, str(args.dir)) for v in VARIANTS for level in LEVELS]
    results: dict[str, dict[str, dict[str, float]]] = {}
    with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
        for key, level, result, seconds in pool.imap_unordered(_job, jobs):
            results.setdefault(key, {})[level] = result
            print(f"{key:22} {level:9} {json.dumps(result)} ({seconds:.0f} s)", flush=True)
    print()
    print("| rule set | level | mean score | standard deviation | mean loss per decision |")
    print("|---|---|---|---|---|")
    for variant in VARIANTS:
        for level in LEVELS:
            r = results[variant.key][level]
            error = r["sd"] / math.sqrt(r["games"])
            print(
                f"| {variant.key} | {level} | {r['mean']:.1f} ± {error:.1f} | {r['sd']:.1f} | "
                f"{r['loss_per_decision']:.3f} |"
            )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"games": args.games, "seed": args.seed, "results": results}, indent=2))


if __name__ == "__main__":
    main()
