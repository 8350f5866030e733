"""Every box's scoring: RULES.md's examples, a table per box, and the golden
table of all 252 distinct rolls checked against an independent scorer."""

import json
from pathlib import Path

import pytest

from app.rules import RULESETS, score

from . import golden_scorer

GOLDEN = json.loads((Path(__file__).parent / "golden_scores.json").read_text())


def dice_of(faces: str) -> list[int]:
    return [int(c) for c in faces]


class TestRulesExamples:
    """The examples of RULES.md, one test each."""

    def test_threes_example(self) -> None:
        roll = [3, 3, 3, 2, 4]
        assert score("yahtzee", "threes", roll) == 9
        assert score("yahtzee", "twos", roll) == 2
        assert score("yahtzee", "fours", roll) == 4

    def test_straight_in_small_straight(self) -> None:
        assert score("yahtzee", "small_straight", [1, 2, 3, 4, 5]) == 30

    @pytest.mark.parametrize("box", ["three_of_a_kind", "chance"])
    def test_full_house_as_other_boxes(self, box: str) -> None:
        assert score("yahtzee", box, [2, 2, 2, 5, 5]) == 16

    def test_four_of_a_kind_in_three_of_a_kind(self) -> None:
        assert score("yahtzee", "three_of_a_kind", [4, 4, 4, 4, 2]) == 18

    def test_five_of_a_kind_is_not_full_house_or_straight(self) -> None:
        for box in ("full_house", "small_straight", "large_straight"):
            assert score("yahtzee", box, [3, 3, 3, 3, 3]) == 0

    def test_yacht_four_of_a_kind(self) -> None:
        assert score("yacht", "four_of_a_kind", [4, 4, 4, 4, 1]) == 17
        assert score("yacht", "four_of_a_kind", [6, 6, 6, 6, 6]) == 30

    def test_yacht_full_house(self) -> None:
        assert score("yacht", "full_house", [3, 3, 3, 6, 6]) == 21
        assert score("yacht", "full_house", [4, 4, 4, 4, 4]) == 0


YAHTZEE_TABLE = [
    ("ones", "11123", 3),
    ("twos", "22256", 6),
    ("threes", "13456", 3),
    ("fours", "44444", 20),
    ("fives", "12346", 0),
    ("sixes", "66612", 18),
    ("three_of_a_kind", "33345", 18),
    ("three_of_a_kind", "33445", 0),
    ("four_of_a_kind", "55552", 22),
    ("four_of_a_kind", "55522", 0),
    ("full_house", "22333", 25),
    ("full_house", "22334", 0),
    ("small_straight", "12346", 30),
    ("small_straight", "34566", 30),
    ("small_straight", "12456", 0),
    ("large_straight", "23456", 40),
    ("large_straight", "12346", 0),
    ("yahtzee", "66666", 50),
    ("yahtzee", "66665", 0),
    ("chance", "12345", 15),
]

YACHT_TABLE = [
    ("yacht", "22222", 50),
    ("yacht", "22223", 0),
    ("big_straight", "65432", 30),
    ("big_straight", "12345", 0),
    ("little_straight", "54321", 30),
    ("little_straight", "23456", 0),
    ("four_of_a_kind", "33332", 14),
    ("four_of_a_kind", "33322", 0),
    ("full_house", "11666", 20),
    ("full_house", "11116", 0),
    ("choice", "66665", 29),
    ("sixes", "66123", 12),
    ("fives", "55512", 15),
    ("fours", "41111", 4),
    ("threes", "33333", 15),
    ("twos", "12222", 8),
    ("ones", "11234", 2),
]


@pytest.mark.parametrize(("box", "faces", "points"), YAHTZEE_TABLE)
def test_yahtzee_box(box: str, faces: str, points: int) -> None:
    assert score("yahtzee", box, dice_of(faces)) == points


@pytest.mark.parametrize(("box", "faces", "points"), YACHT_TABLE)
def test_yacht_box(box: str, faces: str, points: int) -> None:
    assert score("yacht", box, dice_of(faces)) == points


def test_every_box_has_table_rows() -> None:
    assert {box for box, _, _ in YAHTZEE_TABLE} == set(RULESETS["yahtzee"].boxes)
    assert {box for box, _, _ in YACHT_TABLE} == set(RULESETS["yacht"].boxes)


def test_golden_table_is_the_independent_scorers() -> None:
    assert golden_scorer.table() == GOLDEN


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_engine_matches_golden_table_for_every_roll(ruleset: str) -> None:
    rows = GOLDEN[ruleset]
    assert len(rows) == 252
    mismatches = [
        (faces, box, expected, score(ruleset, box, dice_of(faces)))
        for faces, row in rows.items()
        for box, expected in row.items()
        if score(ruleset, box, dice_of(faces)) != expected
    ]
    assert mismatches == []
    assert all(set(row) == set(RULESETS[ruleset].boxes) for row in rows.values())


def test_order_of_dice_does_not_matter() -> None:
    assert score("yacht", "big_straight", [6, 2, 5, 3, 4]) == 30
    assert score("yahtzee", "full_house", [5, 2, 5, 2, 5]) == 25


def test_scorecard_order() -> None:
    assert RULESETS["yahtzee"].boxes[:6] == ("ones", "twos", "threes", "fours", "fives", "sixes")
    assert RULESETS["yahtzee"].boxes[-1] == "chance"
    assert RULESETS["yacht"].boxes[0] == "yacht"
    assert RULESETS["yacht"].boxes[-1] == "ones"
    assert (RULESETS["yahtzee"].rounds, RULESETS["yacht"].rounds) == (13, 12)


@pytest.mark.parametrize(
    ("ruleset", "box", "dice", "error"),
    [
        ("yacht", "four_of_a_kind", [4, 4, 4, 4], ValueError),
        ("yacht", "four_of_a_kind", [4, 4, 4, 4, 7], ValueError),
        ("yacht", "small_straight", [1, 2, 3, 4, 5], KeyError),
        ("poker", "chance", [1, 2, 3, 4, 5], KeyError),
    ],
)
def test_score_rejects_bad_input(ruleset: str, box: str, dice: list[int], error: type[Exception]) -> None:
    with pytest.raises(error):
        score(ruleset, box, dice)
