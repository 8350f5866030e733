"""``python -m app.strategy solve RULESET [--joker forced|free] [--upper-first]``
computes (or loads) a strategy table and prints its expected score;
``--moments`` also computes the standard deviation of the final score under
optimal play; ``--variance`` computes (or loads) and caches the table of
the variance of the points still to come from every state (for the win
chances); ``solve all`` does every variant."""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

from tqdm import tqdm

from app.config import Settings
from app.rules import RULESETS

from .model import ALL_VARIANTS, Variant
from .solver import Solver
from .tables import ensure, ensure_variance, table_path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m app.strategy")
    sub = parser.add_subparsers(dest="command", required=True)
    solve = sub.add_parser("solve", help="compute a strategy table (cached on disk)")
    solve.add_argument("ruleset", choices=[*sorted(RULESETS), "all"])
    solve.add_argument("--joker", choices=["forced", "free"], default="forced")
    solve.add_argument("--upper-first", action="store_true")
    solve.add_argument("--dir", type=Path, help="cache directory (default: DICECUP_STRATEGY_DIR)")
    solve.add_argument("--workers", type=int, help="processes (default: every core)")
    solve.add_argument("--moments", action="store_true", help="also the standard deviation (slower, not cached)")
    solve.add_argument("--variance", action="store_true", help="also the variance table (cached on disk)")
    solve.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)

    directory = args.dir or Settings().strategy_dir
    if args.ruleset == "all":
        variants = list(ALL_VARIANTS)
    else:
        variants = [Variant.of(args.ruleset, {"joker": args.joker, "upper_first": args.upper_first})]
    for variant in variants:
        with tqdm(total=1, desc=variant.key, unit="state", unit_scale=True, disable=args.quiet) as bar:

            def progress(done: int, total: int) -> None:
                bar.total = total
                bar.n = done
                bar.refresh()

            started = time.perf_counter()
            table, computed = ensure(directory, variant, args.workers, progress)
            elapsed = time.perf_counter() - started
        how = f"solved in {elapsed:.2f} s" if computed else f"loaded in {elapsed:.2f} s"
        line = f"{variant.key}: expected score {table[0, 0, 0]:.4f} ({how}; {table_path(directory, variant)})"
        if args.moments:
            started = time.perf_counter()
            moments = Solver(variant, workers=args.workers, moments=True).solve()
            mean, second = moments[0, 0, 0]
            line += (
                f"; standard deviation {math.sqrt(second - mean * mean):.4f} ({time.perf_counter() - started:.1f} s)"
            )
        if args.variance:
            started = time.perf_counter()
            variance = ensure_variance(directory, variant, args.workers)
            seconds = time.perf_counter() - started
            line += f"; variance table ready in {seconds:.1f} s (sd {math.sqrt(variance[0, 0, 0]):.4f})"
        print(line, flush=True)


if __name__ == "__main__":
    main()
