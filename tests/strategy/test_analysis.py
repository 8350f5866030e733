"""Post-game analysis and win chances, on the pure engine (no server)."""

import itertools
import random
from fractions import Fraction
from functools import cache

import numpy as np
import pytest

from app.analysis.chances import Rollouts, chances_of, combine, mixture_pmf, win_chances
from app.analysis.review import review
from app.rules import Roll, Score, ScriptedDice, apply, get_ruleset, new_game
from app.rules.dice import RandomDice
from app.strategy import Advisor, BoxChoice, Variant, card_from

from .brute import Brute

YACHT = Variant("yacht")
YAHTZEE = Variant("yahtzee", "forced")
YATZY = Variant("yatzy")


@pytest.fixture(scope="module")
def advisors(strategy_tables):
    return {v: Advisor(v, strategy_tables[v]) for v in (YACHT, YAHTZEE, YATZY)}


def as_json(events) -> list[dict]:
    return [{"type": e.type, "player_id": e.player_id, "data": e.data()} for e in events]


def play_optimally(advisor: Advisor, players: list[str], seed: int) -> tuple[list[dict], tuple[str, ...]]:
    dice = RandomDice(seed)
    variant = advisor.variant
    t = new_game(variant.ruleset, players, dice, variant.options)
    events, state = list(t.events), t.state
    while not state.finished:
        turn = state.turn
        if turn.dice is None:
            action = Roll(turn.player_id)
        else:
            card = state.scorecards[turn.player_id]
            choice = advisor.advise(card, turn.dice, turn.rolls_left).best
            if isinstance(choice, BoxChoice):
                action = Score(turn.player_id, choice.box)
            else:
                action = Roll(turn.player_id, choice.dice)
        t = apply(state, action, dice)
        events += t.events
        state = t.state
    return as_json(events), state.order


@pytest.mark.parametrize("variant", [YACHT, YAHTZEE, YATZY])
def test_optimal_play_loses_nothing(advisors, variant) -> None:
    events, order = play_optimally(advisors[variant], ["ana", "bo"], seed=5)
    analysis = review(variant.ruleset, order, events, advisors[variant])
    rounds = get_ruleset(variant.ruleset).rounds
    for seat in analysis["seats"]:
        assert seat["decisions"] >= rounds  # one box a turn, and the keeps
        assert seat["total_loss"] == 0 and seat["accuracy"] == 100.0 and seat["worst"] == []
    assert all(d["loss"] == 0 and d["ev"] == d["best_ev"] for d in analysis["decisions"])
    assert sum(d["kind"] == "score" for d in analysis["decisions"]) == 2 * rounds


def test_a_known_mistake_costs_exactly_its_loss(advisors) -> None:
    """Yacht, last turn, only Choice open: scoring five 1s at once (5 points)
    instead of rolling all five again (two rolls left: each die is rerolled
    once more if it shows 3 or less, worth 4.25 a die) loses 21.25 - 5."""
    rules = get_ruleset("yacht")
    boxes = [b for b in rules.boxes if b != "choice"]
    faces = [6, 6, 6, 6, 6] + [1, 2, 3, 4, 5] * len(boxes) + [1, 1, 1, 1, 1]
    dice = ScriptedDice(faces)
    t = new_game("yacht", ["ana"], dice)
    events, state = list(t.events), t.state
    for box in [*boxes, "choice"]:
        for action in (Roll("ana"), Score("ana", box)):
            t = apply(state, action, dice)
            events += t.events
            state = t.state
    assert state.finished
    analysis = review("yacht", state.order, as_json(events), advisors[YACHT])
    last = analysis["decisions"][-1]
    assert last["choice"] == {"type": "score", "box": "choice", "points": 5}
    assert last["best"] == {"type": "keep", "values": []}
    assert last["loss"] == 16.25
    # the brute force agrees: rolling all five with two rolls left
    expected = Brute("yacht").value(dict(dict.fromkeys(rules.boxes, 0), choice=None))
    assert expected == pytest.approx(70 / 3)  # three rolls from the turn's start
    seat = analysis["seats"][0]
    assert seat["worst"][0]["loss"] >= 16.25 and seat["total_loss"] >= 16.25


def test_a_keep_mistake_is_priced_by_the_keep_values(advisors) -> None:
    """Yahtzee, first roll 6-6-6-6-1: rolling all five again instead of keeping the sixes."""
    dice = ScriptedDice([6, 6, 6, 6, 6, *(6, 6, 6, 6, 1), *(2, 3, 4, 5, 6), *(1, 1, 2, 3, 4)])
    t = new_game("yahtzee", ["ana"], dice)
    events, state = list(t.events), t.state
    for action in (Roll("ana"), Roll("ana", ()), Roll("ana", ()), Score("ana", "chance")):
        t = apply(state, action, dice)
        events += t.events
        state = t.state
    advisor = advisors[YAHTZEE]
    analysis = review("yahtzee", ["ana"], as_json(events), advisor)
    first = analysis["decisions"][0]
    card = card_from(dict.fromkeys(get_ruleset("yahtzee").boxes))
    advice = advisor.advise(card, (6, 6, 6, 6, 1), 2)
    reroll = next(k for k in advice.keeps if k.values == ())
    assert first["kind"] == "keep" and first["choice"] == {"type": "keep", "values": []}
    assert first["loss"] == pytest.approx(advice.best.ev - reroll.ev, abs=1e-4)
    assert first["best"] == {"type": "keep", "values": [6, 6, 6, 6]}


# -- win chances ------------------------------------------------------------------------


def test_chances_add_up_to_one_and_split_ties() -> None:
    assert win_chances([10, 10], [np.array([0]), np.array([0])]) == [0.5, 0.5]
    three = win_chances([0, 5, 3], [np.arange(10), np.array([0, 4]), np.array([2, 2, 7])])
    assert sum(three) == pytest.approx(1.0, abs=1e-12)
    assert win_chances([100], [np.arange(5)]) == [1.0]


def exact_chances(totals, distributions) -> list[float]:
    """Every combination of outcomes, one by one, with exact fractions."""
    out = [Fraction(0)] * len(totals)
    for outcome in itertools.product(*(d.items() for d in distributions)):
        p = Fraction(1)
        finals = []
        for total, (points, q) in zip(totals, outcome, strict=True):
            p *= q
            finals.append(total + points)
        best = max(finals)
        winners = [i for i, f in enumerate(finals) if f == best]
        for i in winners:
            out[i] += p / len(winners)
    return [float(x) for x in out]


def test_the_combination_is_exact_for_given_distributions() -> None:
    rng = random.Random(3)
    for _ in range(20):
        players = rng.randint(2, 4)
        totals = [rng.randint(0, 6) for _ in range(players)]
        samples = [np.array([rng.randint(0, 8) for _ in range(rng.randint(1, 6))]) for _ in range(players)]
        distributions = []
        for s in samples:
            values, counts = np.unique(s, return_counts=True)
            distributions.append({int(v): Fraction(int(c), len(s)) for v, c in zip(values, counts, strict=True)})
        assert win_chances(totals, samples) == pytest.approx(exact_chances(totals, distributions), abs=1e-12)


def exact_remaining(rules_name: str, boxes: dict) -> dict[int, Fraction]:
    """The exact distribution of the points still to come under the optimal
    policy, for a card with one open box (brute force over every roll sequence)."""
    from .brute import outcomes, sub_multisets

    brute = Brute(rules_name)
    rules = brute.rules
    (box,) = [b for b, v in boxes.items() if v is None]
    card = card_from(boxes)

    def scored(dice) -> int:
        return rules.points(card, box, dice, brute.options)

    @cache
    def value_after(dice, rolls_left) -> Fraction:
        if rolls_left == 0:
            return Fraction(scored(dice))
        return max(keep_value(k, rolls_left) for k in sub_multisets(dice))

    @cache
    def keep_value(kept, rolls_left) -> Fraction:
        if len(kept) == 5:  # holding all five: the same dice, one roll less
            return value_after(kept, rolls_left - 1)
        more = outcomes(5 - len(kept))
        return sum((p * value_after(tuple(sorted(kept + m)), rolls_left - 1) for m, p in more), Fraction(0))

    @cache
    def distribution(dice, rolls_left) -> dict[int, Fraction]:
        if rolls_left == 0:
            return {scored(dice): Fraction(1)}
        best = max(sub_multisets(dice), key=lambda k: keep_value(k, rolls_left))
        if len(best) == 5:
            return distribution(dice, rolls_left - 1)
        out: dict[int, Fraction] = {}
        for more, p in outcomes(5 - len(best)):
            for value, q in distribution(tuple(sorted(best + more)), rolls_left - 1).items():
                out[value] = out.get(value, Fraction(0)) + p * q
        return out

    total: dict[int, Fraction] = {}
    for dice, p in outcomes(5):
        for points, q in distribution(dice, 2).items():
            total[points] = total.get(points, Fraction(0)) + p * q
    return total


@pytest.fixture(scope="module")
def last_turns() -> list:
    """Two Yacht players with one box open each, and their exact chances (brute force)."""
    rules = get_ruleset("yacht")
    out = []
    cases = [("choice", 100, "choice", 103), ("sixes", 120, "choice", 100), ("yacht", 140, "fours", 150)]
    for box_a, total_a, box_b, total_b in cases:
        cards, totals, exact = [], [], []
        for box, total in ((box_a, total_a), (box_b, total_b)):
            boxes = dict.fromkeys(rules.boxes, 0)
            boxes[box] = None
            boxes["yacht" if box != "yacht" else "choice"] = total
            card = card_from(boxes)
            cards.append(card)
            totals.append(rules.totals(card).total)
            exact.append(exact_remaining("yacht", boxes))
        out.append(((box_a, box_b), cards, totals, exact_chances(totals, exact)))
    return out


def test_monte_carlo_chances_match_the_exact_ones_on_small_positions(advisors, last_turns) -> None:
    """Two Yacht players, one box open each: the exact distributions of their
    last turn (brute force) against the rollouts' (1,000 games each)."""
    rollouts = Rollouts(advisors[YACHT])
    for (box_a, box_b), cards, totals, expected in last_turns:
        estimated = win_chances(totals, [rollouts.remaining(c) for c in cards])
        assert sum(estimated) == pytest.approx(1.0, abs=1e-12)
        # 1,000 rollouts a player: a few standard errors (at most 0.016 each) apart at worst
        assert estimated == pytest.approx(expected, abs=0.05), (box_a, box_b, expected, estimated)


@pytest.fixture(scope="module")
def yacht_variance():
    from app.strategy.tables import ensure_variance

    from ..conftest import STRATEGY_DIR

    return ensure_variance(STRATEGY_DIR, YACHT)  # about 2 s the first time


def test_the_served_method_is_exact_on_last_turns(advisors, yacht_variance, last_turns) -> None:
    """With one box open, the normal mixture is this turn exactly (then
    nothing is left), and so is the exact recursion: the chances equal the
    brute-force ones."""
    rollouts = Rollouts(advisors[YACHT])
    for (box_a, box_b), (card_a, card_b), _, expected in last_turns:
        cards = {"a": card_a, "b": card_b}
        for exact_open in (0, 2):  # the mixture, and the exact recursion
            served, _ = chances_of(rollouts, cards, ["a", "b"], yacht_variance, exact_open=exact_open)
            assert [served["a"], served["b"]] == pytest.approx(expected, abs=1e-9), (box_a, box_b)


def test_the_mixture_keeps_each_states_exact_mean_and_variance(advisors, yacht_variance) -> None:
    advisor = advisors[YACHT]
    rollouts = Rollouts(advisor)
    rng = random.Random(5)
    rules = get_ruleset("yacht")
    for _ in range(30):
        fill = rng.choice([0.5, 0.8])
        boxes = {b: (rng.randint(0, 30) if rng.random() < fill else None) for b in rules.boxes}
        if all(v is not None for v in boxes.values()):
            continue
        card = card_from(boxes)
        weights, means, variances = rollouts.lookahead(card, yacht_variance)
        index = advisor.model.state_index(*advisor.state(card))
        mean = float((weights * means).sum())
        second = float((weights * (variances + means**2)).sum())
        assert weights.sum() == pytest.approx(1.0, abs=1e-12)
        assert mean == pytest.approx(float(advisor.table.reshape(-1)[index]), abs=1e-9)
        assert second - mean**2 == pytest.approx(float(yacht_variance.reshape(-1)[index]), abs=1e-6)
        if sum(v is None for v in boxes.values()) <= 3:
            exact = rollouts.exact(advisor.state(card))
            points = np.arange(exact.size)
            assert (exact * points).sum() == pytest.approx(mean, abs=1e-9)
            assert (exact * points**2).sum() - mean**2 == pytest.approx(second - mean**2, abs=1e-6)
        pmf = mixture_pmf(weights, 50 + means, variances, 500)
        assert pmf.sum() == pytest.approx(1.0, abs=1e-9)
        assert (pmf * np.arange(500)).sum() == pytest.approx(50 + mean, abs=0.01)


def test_chances_of_normal_fits_add_up_to_one() -> None:
    rng = np.random.default_rng(7)
    for _ in range(20):
        players = int(rng.integers(2, 5))
        pmfs = [
            mixture_pmf(np.ones(1), np.array([rng.uniform(100, 300)]), np.array([rng.uniform(0, 3000)]), 700)
            for _ in range(players)
        ]
        assert sum(combine(pmfs)) == pytest.approx(1.0, abs=1e-12)
