"""Expected values by brute force, written apart from the solver: explicit
enumeration of rolls with their probabilities, keeps as sub-multisets, and
the rules engine itself for what each box may score."""

import itertools
from collections import Counter
from fractions import Fraction
from functools import cache
from math import factorial
from types import MappingProxyType

from app.rules import Scorecard, get_ruleset


@cache
def outcomes(n: int) -> tuple[tuple[tuple[int, ...], Fraction], ...]:
    """Every multiset of n dice (sorted faces) with its probability."""
    out = []
    for faces in itertools.combinations_with_replacement(range(1, 7), n):
        ways = factorial(n)
        for count in Counter(faces).values():
            ways //= factorial(count)
        out.append((faces, Fraction(ways, 6**n)))
    return tuple(out)


def sub_multisets(dice: tuple[int, ...]) -> set[tuple[int, ...]]:
    return {tuple(sorted(c)) for r in range(6) for c in itertools.combinations(dice, r)}


class Brute:
    def __init__(self, ruleset: str, options: dict[str, object] | None = None) -> None:
        self.rules = get_ruleset(ruleset)
        self.options = self.rules.normalize_options(options or {})

    def value(self, boxes: dict[str, int | None], bonus: int = 0) -> float:
        """Expected points still to come from a turn start with this scorecard."""
        return float(self._value(tuple(sorted(boxes.items())), bonus))

    @cache  # noqa: B019
    def _value(self, items: tuple[tuple[str, int | None], ...], bonus: int) -> Fraction:
        card = Scorecard(MappingProxyType(dict(items)), bonus)
        if card.complete:
            return Fraction(0)

        @cache
        def final(dice: tuple[int, ...]) -> Fraction:
            before = self.rules.totals(card)
            best = None
            for box, points in self.rules.scorable(card, dice, self.options).items():
                extra = self.rules.bonus(card, dice, self.options)
                after = card.with_score(box, points, extra)
                gained = self.rules.totals(after).total - before.total
                value = gained + self._value(tuple(sorted(after.boxes.items())), after.yahtzee_bonus)
                best = value if best is None else max(best, value)
            assert best is not None
            return best

        @cache
        def after_roll(dice: tuple[int, ...], rolls_left: int) -> Fraction:
            if rolls_left == 0:
                return final(dice)
            return max(keep(k, rolls_left) for k in sub_multisets(dice))

        @cache
        def keep(kept: tuple[int, ...], rolls_left: int) -> Fraction:
            if len(kept) == 5:
                return final(kept)
            return sum(
                (p * after_roll(tuple(sorted(kept + more)), rolls_left - 1) for more, p in outcomes(5 - len(kept))),
                Fraction(0),
            )

        return sum((p * after_roll(dice, 2) for dice, p in outcomes(5)), Fraction(0))
