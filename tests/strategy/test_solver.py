"""The solver: the published optimum, and small tables against brute force."""

import pytest

from app.rules import get_ruleset
from app.rules.yatzy import Yatzy
from app.strategy.model import Model, Variant
from app.strategy.solver import Solver

from .brute import Brute

YAHTZEE_UPPER = ["ones", "twos", "threes", "fours", "fives", "sixes"]


def state_of(model: Model, boxes: dict[str, int | None]) -> tuple[int, int, int]:
    mask = sum(1 << model.bit[b] for b, v in boxes.items() if v is not None)
    upper = min(63, sum(v or 0 for b, v in boxes.items() if b in YAHTZEE_UPPER)) if model.n_upper > 1 else 0
    flag = int(boxes.get("yahtzee") == 50) if model.n_flag > 1 else 0
    return mask, int(model.canonical_upper(mask, upper)), flag


def card(ruleset: str, open_boxes: list[str], **values: int) -> dict[str, int | None]:
    """Every box filled (with ``values`` or 0) except ``open_boxes``."""
    boxes: dict[str, int | None] = {b: values.get(b, 0) for b in get_ruleset(ruleset).boxes}
    for box in open_boxes:
        boxes[box] = None
    return boxes


CASES = [
    ("yacht", {}, card("yacht", ["choice"])),
    ("yacht", {}, card("yacht", ["yacht", "full_house"])),
    ("yacht", {}, card("yacht", ["little_straight", "ones"])),
    ("yahtzee", {}, card("yahtzee", ["chance"])),
    ("yahtzee", {}, card("yahtzee", ["yahtzee"])),
    ("yahtzee", {}, card("yahtzee", ["sixes"], fives=25, fours=20)),  # upper 45: sixes can reach 63
    ("yahtzee", {}, card("yahtzee", ["ones", "full_house"], sixes=30, fives=25, fours=4)),  # 59 + ones
    ("yahtzee", {}, card("yahtzee", ["fives", "large_straight"], yahtzee=50)),  # Joker, bonus
    ("yahtzee", {}, card("yahtzee", ["twos", "three_of_a_kind"], yahtzee=0)),
    ("yahtzee", {"joker": "free"}, card("yahtzee", ["fives", "large_straight"], yahtzee=50)),
    ("yahtzee", {"joker": "free"}, card("yahtzee", ["small_straight", "chance"], yahtzee=50)),
    ("yahtzee", {"upper_first": True}, card("yahtzee", ["ones", "chance"], yahtzee=50)),
    ("yahtzee", {"upper_first": True, "joker": "free"}, card("yahtzee", ["threes", "yahtzee"])),
    ("yatzy", {}, card("yatzy", ["two_pairs"])),
    ("yatzy", {}, card("yatzy", ["full_house", "one_pair"])),
    ("yatzy", {}, card("yatzy", ["sixes", "small_straight"], fives=25, fours=20)),  # 45: the 50 bonus in reach
    ("yatzy", {}, card("yatzy", ["ones", "yatzy"], sixes=30, fives=25, fours=4)),  # 59 + ones
]


@pytest.mark.parametrize(("ruleset", "options", "boxes"), CASES)
def test_small_tables_match_brute_force(ruleset, options, boxes) -> None:
    variant = Variant.of(ruleset, options)
    solver = Solver(variant, workers=1)
    open_count = sum(v is None for v in boxes.values())
    table = solver.solve(min_filled=solver.model.n_boxes - open_count)
    expected = Brute(ruleset, options).value(boxes)
    assert table[state_of(solver.model, boxes)] == pytest.approx(expected, abs=1e-9)


def test_parallel_and_serial_solves_agree() -> None:
    serial = Solver(Variant("yacht"), workers=1).solve()
    parallel = Solver(Variant("yacht"), workers=2).solve()
    assert abs(serial - parallel).max() < 1e-9
    assert serial[0, 0, 0] == pytest.approx(169.7739, abs=5e-5)


def test_moments_keep_the_mean() -> None:
    variant = Variant("yacht")
    means = Solver(variant, workers=1).solve(min_filled=9)
    moments = Solver(variant, workers=1, moments=True).solve(min_filled=9)
    assert abs(moments[..., 0] - means).max() < 1e-9
    assert (moments[..., 1] >= moments[..., 0] ** 2 - 1e-6).all()


def test_free_joker_yahtzee_reproduces_the_published_optimum(strategy_tables) -> None:
    """Verhoeff's and Glenn's 254.5896 for solitaire Yahtzee with the free-choice Joker."""
    table = strategy_tables[Variant("yahtzee", "free")]
    assert round(float(table[0, 0, 0]), 4) == 254.5896


def test_yatzy_optimum_against_the_published_value(strategy_tables) -> None:
    """Larsson and Sjöberg, "Optimal Yatzy Strategy" (KTH, 2012), give 248.63
    for Scandinavian Yatzy. With the rules of app/rules/yatzy.py (two pairs
    must be two *different* pairs) the optimum is 248.4400; the published
    figure is the optimum of the rule that also lets four of a kind count as
    two pairs (next test)."""
    table = strategy_tables[Variant("yatzy")]
    assert round(float(table[0, 0, 0]), 4) == 248.4400


class _FourOfAKindIsTwoPairs(Yatzy):
    """Yatzy where four of a kind (exactly four) also scores as two pairs (its four dice)."""

    def score(self, box: str, dice: tuple[int, ...]) -> int:
        counts = [dice.count(face) for face in range(1, 7)]
        if box == "two_pairs" and max(counts) == 4:
            return 4 * (counts.index(4) + 1)
        return super().score(box, dice)


def test_the_published_yatzy_optimum_is_reproduced_under_its_two_pairs_rule(monkeypatch) -> None:
    """248.6399932..., which the thesis gives truncated to two decimals: 248.63."""
    import app.strategy.model as model

    monkeypatch.setattr(model, "get_ruleset", lambda name: _FourOfAKindIsTwoPairs())
    value = float(Solver(Variant("yatzy"), workers=1).solve()[0, 0, 0])
    assert int(value * 100) / 100 == 248.63
    assert value == pytest.approx(248.64, abs=1e-4)
