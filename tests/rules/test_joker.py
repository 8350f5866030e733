"""Every Joker case, under the forced and the free Joker, and upper_first."""

from typing import ClassVar

import pytest

from app.rules import RuleViolation, Score, ScriptedDice, apply

from .support import position

UPPER = ["ones", "twos", "threes", "fours", "fives", "sixes"]
LOWER = ["three_of_a_kind", "four_of_a_kind", "full_house", "small_straight", "large_straight", "yahtzee", "chance"]
FIVES = (5, 5, 5, 5, 5)
NO_DICE = ScriptedDice([])


def refused(state, box: str) -> str:
    with pytest.raises(RuleViolation) as caught:
        apply(state, Score("ana", box), NO_DICE)
    return caught.value.code


def scored(state, box: str) -> tuple[int, int]:
    event = apply(state, Score("ana", box), NO_DICE).events[0]
    return event.points, event.yahtzee_bonus


def scorable(state) -> dict[str, int]:
    from app.rules import get_ruleset

    return get_ruleset("yahtzee").scorable(state.scorecards["ana"], state.turn.dice, state.options)


class TestForcedJoker:
    @pytest.mark.parametrize(("held", "bonus"), [(50, 100), (0, 0)])
    def test_face_box_open_must_be_used(self, held: int, bonus: int) -> None:
        state = position("yahtzee", {"yahtzee": held}, FIVES)
        assert scorable(state) == {"fives": 25}
        assert scored(state, "fives") == (25, bonus)
        for box in ["ones", "sixes", "full_house", "large_straight", "chance"]:
            assert refused(state, box) == "joker_forces_upper"

    def test_rules_example_joker_large_straight_without_bonus(self) -> None:
        # RULES.md: 5-5-5-5-5 after 0 in yahtzee and fives filled: 40 in large_straight, no +100.
        state = position("yahtzee", {"yahtzee": 0, "fives": 15}, FIVES)
        assert scored(state, "large_straight") == (40, 0)

    @pytest.mark.parametrize(
        ("box", "points"),
        [
            ("three_of_a_kind", 25),
            ("four_of_a_kind", 25),
            ("full_house", 25),
            ("small_straight", 30),
            ("large_straight", 40),
            ("chance", 25),
        ],
    )
    def test_face_filled_lower_box_scores_joker_values(self, box: str, points: int) -> None:
        state = position("yahtzee", {"yahtzee": 50, "fives": 20}, FIVES)
        assert scored(state, box) == (points, 100)

    def test_face_filled_upper_box_refused_while_lower_open(self) -> None:
        state = position("yahtzee", {"yahtzee": 50, "fives": 20}, FIVES)
        for box in ["ones", "twos", "sixes"]:
            assert refused(state, box) == "joker_lower_box"
        assert set(scorable(state)) == set(LOWER) - {"yahtzee"}

    def test_face_and_lower_filled_zero_in_any_upper_box(self) -> None:
        filled = {box: 0 for box in LOWER} | {"yahtzee": 50, "fives": 25}
        state = position("yahtzee", filled, FIVES)
        assert scorable(state) == {box: 0 for box in UPPER if box != "fives"}
        assert scored(state, "twos") == (0, 100)
        assert refused(state, "chance") == "box_filled"

    def test_no_joker_while_yahtzee_box_is_empty(self) -> None:
        state = position("yahtzee", {}, FIVES)
        assert scored(state, "full_house") == (0, 0)
        assert scored(state, "large_straight") == (0, 0)
        assert scored(state, "yahtzee") == (50, 0)
        assert scored(state, "ones") == (0, 0)

    def test_no_bonus_for_yahtzee_box_holding_zero_after_many(self) -> None:
        state = position("yahtzee", {"yahtzee": 0, "fives": 25}, FIVES)
        assert scored(state, "chance") == (25, 0)


class TestFreeJoker:
    options: ClassVar[dict[str, object]] = {"joker": "free"}

    def test_face_open_any_box_scores_the_dice(self) -> None:
        state = position("yahtzee", {"yahtzee": 50}, FIVES, self.options)
        table = scorable(state)
        assert set(table) == set(UPPER + LOWER) - {"yahtzee"}
        assert table["fives"] == 25
        assert table["ones"] == 0
        assert table["full_house"] == 0
        assert table["small_straight"] == 0
        assert table["large_straight"] == 0
        assert table["three_of_a_kind"] == 25
        assert scored(state, "full_house") == (0, 100)

    def test_face_filled_lower_boxes_at_joker_values_upper_allowed(self) -> None:
        state = position("yahtzee", {"yahtzee": 0, "fives": 10}, FIVES, self.options)
        table = scorable(state)
        assert table["full_house"] == 25
        assert table["small_straight"] == 30
        assert table["large_straight"] == 40
        assert table["chance"] == 25
        assert table["ones"] == 0
        assert scored(state, "sixes") == (0, 0)


class TestUpperFirst:
    def test_lower_refused_until_upper_complete(self) -> None:
        state = position("yahtzee", {"ones": 3}, (2, 3, 4, 5, 6), {"upper_first": True})
        assert refused(state, "large_straight") == "upper_section_first"
        assert set(scorable(state)) == set(UPPER) - {"ones"}

    def test_lower_open_once_upper_complete(self) -> None:
        filled = dict.fromkeys(UPPER, 0)
        state = position("yahtzee", filled, (2, 3, 4, 5, 6), {"upper_first": True})
        assert scored(state, "large_straight") == (40, 0)

    def test_box_filled_comes_before_upper_section_first(self) -> None:
        state = position("yahtzee", {"chance": 20}, (2, 3, 4, 5, 6), {"upper_first": True})
        assert refused(state, "chance") == "box_filled"

    def test_forced_joker_face_open(self) -> None:
        state = position("yahtzee", {"yahtzee": 50}, FIVES, {"upper_first": True})
        assert refused(state, "chance") == "joker_forces_upper"
        assert scorable(state) == {"fives": 25}

    def test_forced_joker_face_filled_any_upper_box(self) -> None:
        state = position("yahtzee", {"yahtzee": 50, "fives": 25}, FIVES, {"upper_first": True})
        assert refused(state, "chance") == "upper_section_first"
        assert scorable(state) == {box: 0 for box in UPPER if box != "fives"}
        assert scored(state, "ones") == (0, 100)

    def test_free_joker_only_upper_boxes(self) -> None:
        state = position("yahtzee", {"yahtzee": 50}, FIVES, {"upper_first": True, "joker": "free"})
        assert refused(state, "large_straight") == "upper_section_first"
        assert scorable(state) == {box: (25 if box == "fives" else 0) for box in UPPER}


@pytest.mark.parametrize(
    "options", [{}, {"joker": "free"}, {"upper_first": True}, {"joker": "free", "upper_first": True}]
)
def test_scorable_is_exactly_the_boxes_not_refused(options: dict[str, object]) -> None:
    """For many positions, a box is in ``scorable`` iff scoring it is accepted, at those points."""
    cases = [
        ({}, FIVES),
        ({"yahtzee": 50}, FIVES),
        ({"yahtzee": 0, "fives": 5}, FIVES),
        ({"yahtzee": 50, "fives": 5, "ones": 1} | {b: 0 for b in LOWER if b != "yahtzee"}, FIVES),
        ({"ones": 2, "twos": 4}, (1, 2, 3, 4, 6)),
        (dict.fromkeys(UPPER, 3), (6, 6, 6, 6, 6)),
    ]
    for filled, dice in cases:
        state = position("yahtzee", filled, dice, options)
        table = scorable(state)
        for box in UPPER + LOWER:
            try:
                points, _ = scored(state, box)
            except RuleViolation:
                assert box not in table
            else:
                assert table[box] == points
