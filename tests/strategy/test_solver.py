"""The solver: the published optimum, and small tables against brute force."""

import pytest

from app.rules import get_ruleset
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
