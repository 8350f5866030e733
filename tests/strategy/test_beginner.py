"""The beginner bot's mistakes are a beginner's, and bots vary their thinking time."""

import random
from dataclasses import replace

from app.rooms.bots import thinking_time
from app.rules import ScriptedDice, Turn, get_ruleset, new_game
from app.strategy import Advisor, BoxChoice, KeepChoice, Variant, card_from
from app.strategy.beginner import beginner_choice

GREEDY = Advisor(Variant("yahtzee", "forced"), None)


def empty():
    return card_from(dict.fromkeys(get_ruleset("yahtzee").boxes))


def test_chases_sets_and_keeps_the_highest_pair() -> None:
    choice = beginner_choice(GREEDY, empty(), (2, 2, 5, 5, 6), 2, random.Random(1))
    assert isinstance(choice, KeepChoice) and choice.values == (5, 5)
    # three 2s kept for a Yahtzee, even though the sixes pair was there too
    choice = beginner_choice(GREEDY, empty(), (2, 2, 2, 6, 6), 1, random.Random(3))
    assert isinstance(choice, BoxChoice) and choice.box == "full_house"  # a big box: scored at once
    choice = beginner_choice(GREEDY, empty(), (2, 2, 2, 6, 5), 2, random.Random(3))
    assert isinstance(choice, KeepChoice) and set(choice.values) == {2}


def test_takes_straights_it_sees_and_scores_for_this_turn_only() -> None:
    choice = beginner_choice(GREEDY, empty(), (1, 2, 3, 4, 5), 2, random.Random(1))
    assert isinstance(choice, BoxChoice) and choice.box == "large_straight"
    # no rolls left: the box worth most now (chance 20 beats threes 9: the upper bonus is forgotten)
    choice = beginner_choice(GREEDY, empty(), (3, 3, 3, 5, 6), 0, random.Random(1))
    assert isinstance(choice, BoxChoice) and choice.box in ("three_of_a_kind", "chance")


def test_thinking_time_varies_around_the_bot_delay() -> None:
    state = new_game("yacht", ["a"], ScriptedDice([1] * 5)).state
    rng = random.Random(2)
    first = [thinking_time(1.0, state, rng) for _ in range(50)]
    keeping = replace(state, turn=Turn("a", (1, 2, 3, 4, 5), (False,) * 5, 2))
    thinking = [thinking_time(1.0, keeping, rng) for _ in range(50)]
    assert all(0.5 <= t <= 0.9 for t in first) and all(0.9 <= t <= 2.0 for t in thinking)
    assert len(set(thinking)) > 40
    assert thinking_time(0.0, keeping) == 0.0
