"""Scandinavian Yatzy: every box, the edge cases of pairs, sets and the full
house, the 50-point upper bonus, and no Joker or extra Yatzy bonus."""

import pytest

from app.rules import RULESETS, Roll, RuleViolation, Score, ScriptedDice, apply, get_ruleset, new_game, score

from .support import position

TABLE = [
    ("ones", "11123", 3),
    ("twos", "22256", 6),
    ("threes", "13456", 3),
    ("fours", "44444", 20),
    ("fives", "12346", 0),
    ("sixes", "66612", 18),
    # one pair: the highest pair, two dice only
    ("one_pair", "33451", 6),
    ("one_pair", "33551", 10),
    ("one_pair", "66662", 12),
    ("one_pair", "12345", 0),
    # two pairs: two different pairs; the dice of both
    ("two_pairs", "33441", 14),
    ("two_pairs", "22333", 10),  # a full house holds two different pairs
    ("two_pairs", "44441", 0),  # four of a kind is not two pairs
    ("two_pairs", "55555", 0),
    ("two_pairs", "33456", 0),
    # three and four of a kind: the dice of the set only
    ("three_of_a_kind", "33345", 9),
    ("three_of_a_kind", "55552", 15),
    ("three_of_a_kind", "22333", 9),
    ("three_of_a_kind", "33445", 0),
    ("four_of_a_kind", "55552", 20),
    ("four_of_a_kind", "66666", 24),
    ("four_of_a_kind", "55522", 0),
    # straights: exactly 1-5 (15) and 2-6 (20)
    ("small_straight", "54321", 15),
    ("small_straight", "12346", 0),
    ("small_straight", "23456", 0),
    ("large_straight", "65432", 20),
    ("large_straight", "12345", 0),
    ("large_straight", "23466", 0),
    # full house: exactly three of one face and two of another, the sum
    ("full_house", "22333", 13),
    ("full_house", "66655", 28),
    ("full_house", "33333", 0),
    ("full_house", "33332", 0),
    ("full_house", "22334", 0),
    ("chance", "12345", 15),
    ("chance", "66665", 29),
    ("yatzy", "66666", 50),
    ("yatzy", "11111", 50),
    ("yatzy", "66665", 0),
]


@pytest.mark.parametrize(("box", "faces", "points"), TABLE)
def test_yatzy_box(box: str, faces: str, points: int) -> None:
    assert score("yatzy", box, [int(c) for c in faces]) == points


def test_every_box_has_table_rows_and_the_card_has_15_boxes() -> None:
    rules = RULESETS["yatzy"]
    assert {box for box, _, _ in TABLE} == set(rules.boxes)
    assert rules.rounds == 15
    assert rules.boxes[:6] == ("ones", "twos", "threes", "fours", "fives", "sixes")
    assert rules.option_specs == {}


@pytest.mark.parametrize(("upper", "bonus"), [(62, 0), (63, 50), (105, 50)])
def test_upper_bonus_is_50_at_63(upper: int, bonus: int) -> None:
    rules = get_ruleset("yatzy")
    assert rules.upper_bonus(upper) == bonus


def test_a_second_yatzy_is_no_joker_and_earns_no_bonus() -> None:
    # Yatzy already scored 50; five 4s again, fours filled: any empty box may
    # take them, each at its plain points (no Joker), and nothing extra.
    state = position("yatzy", {"yatzy": 50, "fours": 12}, (4, 4, 4, 4, 4), rolls_left=0)
    rules = get_ruleset("yatzy")
    card = state.scorecards["ana"]
    scorable = rules.scorable(card, (4, 4, 4, 4, 4), state.options)
    assert scorable["full_house"] == 0
    assert scorable["large_straight"] == 0
    assert scorable["ones"] == 0
    assert scorable["four_of_a_kind"] == 16
    assert rules.bonus(card, (4, 4, 4, 4, 4), state.options) == 0
    t = apply(state, Score("ana", "chance"), ScriptedDice([]))
    scored = t.events[0]
    assert (scored.points, scored.yahtzee_bonus, scored.upper_bonus) == (20, 0, 0)


def test_the_box_that_reaches_63_earns_the_upper_bonus_in_its_event() -> None:
    state = position("yatzy", {"sixes": 24, "fives": 20, "fours": 12}, (3, 3, 3, 1, 2), rolls_left=1)
    t = apply(state, Score("ana", "threes"), ScriptedDice([]))
    scored = t.events[0]
    assert (scored.points, scored.upper_bonus, scored.total) == (9, 50, 24 + 20 + 12 + 9 + 50)


def test_a_filled_box_is_refused() -> None:
    state = position("yatzy", {"two_pairs": 0}, (3, 3, 4, 4, 1))
    with pytest.raises(RuleViolation) as refused:
        apply(state, Score("ana", "two_pairs"), ScriptedDice([]))
    assert refused.value.code == "box_filled"


def test_a_whole_game_is_15_rounds() -> None:
    dice = ScriptedDice([6, 6, 6, 6, 6] + [1, 2, 3, 4, 5] * 15)
    state = new_game("yatzy", ["ana"], dice).state
    rules = get_ruleset("yatzy")
    for box in rules.boxes:
        state = apply(state, Roll("ana"), dice).state
        t = apply(state, Score("ana", box), dice)
        state = t.state
    assert state.finished and t.events[-1].type == "game_finished"
    # 1-2-3-4-5 fifteen times: 1+2+3+4+5 upstairs, the small straight, chance
    assert rules.totals(state.scorecards["ana"]).total == 15 + 15 + 15
