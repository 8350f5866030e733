"""Hints and bot policies, and what they score over many seeded solo games."""

import math
import random
import statistics

import pytest

from app.rules import RandomDice, Roll, Score, apply, get_ruleset, new_game
from app.strategy import Advisor, BoxChoice, KeepChoice, Variant, card_from, multisets

from .simulate import play_solo

YAHTZEE = Variant("yahtzee", "forced")
YACHT = Variant("yacht")
YATZY = Variant("yatzy")


@pytest.fixture(scope="module")
def advisors(strategy_tables):
    return {v: Advisor(v, strategy_tables[v]) for v in (YAHTZEE, YACHT, YATZY)}


def empty(ruleset: str):
    return card_from(dict.fromkeys(get_ruleset(ruleset).boxes))


@pytest.mark.parametrize("variant", [YAHTZEE, YACHT, YATZY])
def test_hints_average_back_to_the_table(advisors, strategy_tables, variant) -> None:
    """Over the 252 first rolls, the best choice's ev averages to the table's value."""
    advisor = advisors[variant]
    card = empty(variant.ruleset)
    plan = advisor.plan([card])
    total = 0.0
    for faces in multisets.ROLL_FACES:
        counts = [faces.count(f) for f in range(1, 7)]
        probability = math.factorial(5) / math.prod(math.factorial(c) for c in counts) / 6**5
        advice = advisor.advise(card, faces, 2, plan)
        assert advice.best == advisor.decide(card, faces, 2, plan)
        total += probability * advice.best.ev
    assert total == pytest.approx(float(strategy_tables[variant][0, 0, 0]), abs=1e-9)


def test_advice_lists_every_distinct_keep_but_all_five(advisors) -> None:
    advice = advisors[YAHTZEE].advise(empty("yahtzee"), (2, 2, 5, 5, 6), 1)
    values = {k.values for k in advice.keeps}
    assert len(values) == len(advice.keeps) == 3 * 3 * 2 - 1
    assert (2, 2, 5, 5, 6) not in values and () in values
    assert all(advice.keeps[i].ev >= advice.keeps[i + 1].ev for i in range(len(advice.keeps) - 1))
    assert [b.ev for b in advice.boxes] == sorted((b.ev for b in advice.boxes), reverse=True)
    assert advisors[YAHTZEE].advise(empty("yahtzee"), (2, 2, 5, 5, 6), 0).keeps == ()


def test_greedy_maximizes_this_turn_only() -> None:
    greedy = Advisor(YAHTZEE, None)
    card = empty("yahtzee")
    # 6-6-6-6-6 with one roll left: greedy scores 50 now, in the best box for this turn
    choice = greedy.advise(card, (6, 6, 6, 6, 6), 1).best
    assert isinstance(choice, BoxChoice) and choice.box == "yahtzee" and choice.ev == 50
    # the ev of a greedy box is just its points (plus any bonus)
    assert {b.box: b.ev for b in greedy.box_choices(card, (1, 2, 3, 4, 5))}["large_straight"] == 40


def test_decide_equals_the_best_of_full_advice(advisors) -> None:
    rng = random.Random(7)
    for variant, advisor in advisors.items():
        state = new_game(variant.ruleset, ["p"], RandomDice(1), variant.options).state
        dice = RandomDice(2)
        for _ in range(120):
            if state.finished:
                break
            if state.turn.dice is None:
                state = apply(state, Roll("p"), dice).state
            card = state.scorecards["p"]
            plan = advisor.plan([card])
            advice = advisor.advise(card, state.turn.dice, state.turn.rolls_left, plan)
            decided = advisor.decide(card, state.turn.dice, state.turn.rolls_left, plan)
            assert decided.ev == pytest.approx(advice.best.ev, abs=1e-9)
            choice = rng.choice(advice.choices)
            if isinstance(choice, KeepChoice):
                state = apply(state, Roll("p", choice.dice), dice).state
            else:
                state = apply(state, Score("p", choice.box), dice).state


@pytest.mark.parametrize(("variant", "games"), [(YAHTZEE, 2000), (YACHT, 2000), (YATZY, 1000)])
def test_optimal_bot_scores_what_the_table_expects(advisors, strategy_tables, variant, games) -> None:
    totals = play_solo(advisors[variant], games, seed=11)
    expected = float(strategy_tables[variant][0, 0, 0])
    mean = statistics.fmean(totals)
    error = statistics.stdev(totals) / math.sqrt(games)
    # a 99.9% confidence interval: the mean of 2,000 games within 3.29 standard errors
    assert abs(mean - expected) < 3.29 * error, (mean, expected, error)
    greedy = play_solo(Advisor(variant, None), games // 2, seed=12, level="greedy")
    assert statistics.fmean(greedy) < expected - 10 * error


def test_optimal_beats_greedy_head_to_head(advisors) -> None:
    optimal = play_solo(advisors[YAHTZEE], 400, seed=21)
    greedy = play_solo(Advisor(YAHTZEE, None), 400, seed=21, level="greedy")
    # the same dice streams: game i of each list faced the same sequence of rolls
    wins = sum(o > g for o, g in zip(optimal, greedy, strict=True))
    losses = sum(o < g for o, g in zip(optimal, greedy, strict=True))
    assert wins > losses


def test_strong_and_casual_stray_but_not_far(advisors) -> None:
    strong = play_solo(advisors[YACHT], 200, seed=31, level="strong")
    casual = play_solo(advisors[YACHT], 200, seed=31, level="casual")
    optimal = play_solo(advisors[YACHT], 200, seed=31)
    assert statistics.fmean(casual) < statistics.fmean(strong) <= statistics.fmean(optimal) + 5
    assert statistics.fmean(casual) > 120
