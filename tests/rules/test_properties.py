"""Property-based tests over random legal games (Hypothesis, derandomized in conftest)."""

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules import (
    Keep,
    RandomDice,
    Roll,
    RuleViolation,
    Score,
    ScriptedDice,
    apply,
    get_ruleset,
    new_game,
    state_from_dict,
    state_to_dict,
)

from .play import play_out, random_action

OPTIONS = {
    "yahtzee": st.fixed_dictionaries(
        {}, optional={"joker": st.sampled_from(["forced", "free"]), "upper_first": st.booleans()}
    ),
    "yacht": st.just({}),
    "yatzy": st.just({}),
}


@st.composite
def games(draw):
    ruleset = draw(st.sampled_from(["yahtzee", "yacht", "yatzy"]))
    players = [f"p{i}" for i in range(draw(st.integers(1, 8)))]
    return ruleset, players, draw(OPTIONS[ruleset]), draw(st.integers(0, 2**32))


@settings(max_examples=40)
@given(games())
def test_random_games_end_with_totals_equal_to_their_parts(game) -> None:
    ruleset, players, options, seed = game
    rules = get_ruleset(ruleset)
    dice = RandomDice(seed)
    t = new_game(ruleset, players, dice, options)
    turns = []

    def step(before, action, t) -> None:
        turns.extend(e for e in t.events if e.type == "scored")
        # JSON round trip is the identity, at every step
        assert state_from_dict(state_to_dict(t.state)) == t.state

    state, events = play_out(t.state, dice, random.Random(seed), step)
    assert len(turns) == rules.rounds * len(players)
    assert events[-1].type == "game_finished"
    for player, card in state.scorecards.items():
        assert card.complete
        totals = rules.totals(card)
        parts = [v for b, v in card.boxes.items() if b in rules.upper_boxes]
        lower = [v for b, v in card.boxes.items() if b not in rules.upper_boxes]
        assert totals.upper_total == sum(parts)
        assert totals.lower_total == sum(lower)
        assert totals.total == sum(parts) + sum(lower) + totals.upper_bonus + totals.yahtzee_bonus
        assert totals.upper_bonus == (35 if ruleset == "yahtzee" and sum(parts) >= 63 else 0)
        assert events[-1].totals[player] == totals.total
        assert sum(e.points + e.yahtzee_bonus + e.upper_bonus for e in turns if e.player_id == player) == totals.total
    best = max(events[-1].totals.values())
    assert set(events[-1].winners) == {p for p, v in events[-1].totals.items() if v == best}


def expected_refusal(state, action) -> str | None:
    """An oracle written from the precedence table of docs/api.md, independent of the engine."""
    positions = action.keep if isinstance(action, Roll) else action.dice if isinstance(action, Keep) else None
    if positions is not None and (any(not 0 <= p <= 4 for p in positions) or len(set(positions)) < len(positions)):
        return "invalid_request"
    if state.turn is None:
        return "game_over"
    turn = state.turn
    if action.player_id != turn.player_id:
        return "not_your_turn"
    if isinstance(action, Roll):
        if turn.rolls_left == 0:
            return "no_rolls_left"
        if turn.dice is None and action.keep:
            return "must_roll_first"
        return None
    if isinstance(action, Keep):
        if turn.dice is None:
            return "must_roll_first"
        return "no_rolls_left" if turn.rolls_left == 0 else None
    rules = get_ruleset(state.ruleset)
    if action.box not in rules.boxes:
        return "unknown_box"
    if turn.dice is None:
        return "must_roll_first"
    if state.scorecards[turn.player_id].boxes[action.box] is not None:
        return "box_filled"
    legal = rules.scorable(state.scorecards[turn.player_id], turn.dice, state.options)
    return None if action.box in legal else "rules"


ANY_ACTION = st.one_of(
    st.builds(
        Roll, st.sampled_from(["p0", "p1", "x"]), st.none() | st.lists(st.integers(-1, 5), max_size=6).map(tuple)
    ),
    st.builds(Keep, st.sampled_from(["p0", "p1", "x"]), st.lists(st.integers(-1, 5), max_size=6).map(tuple)),
    st.builds(
        Score,
        st.sampled_from(["p0", "p1", "x"]),
        st.sampled_from(["ones", "sixes", "yahtzee", "yacht", "chance", "choice", "full_house", "nope"]),
    ),
)


@settings(max_examples=300)
@given(
    st.sampled_from(["yahtzee", "yacht"]),
    st.integers(1, 2),
    st.integers(0, 2**32),
    st.integers(0, 60),
    st.booleans(),
    ANY_ACTION,
)
def test_any_action_is_applied_or_refused_with_the_right_code(ruleset, n, seed, steps, over, action) -> None:
    dice = RandomDice(seed)
    players = [f"p{i}" for i in range(n)]
    state = new_game(ruleset, players, dice, {"upper_first": True} if ruleset == "yahtzee" and seed % 3 == 0 else {})
    state = state.state
    rng = random.Random(seed)

    for _ in range(steps):
        if state.finished:
            break
        state = apply(state, random_action(state, rng), dice).state
    if over:
        state = replace(state, turn=None)
    before = state_to_dict(state)
    expected = expected_refusal(state, action)
    try:
        apply(state, action, dice)
    except RuleViolation as refused:
        assert expected is not None, f"refused {action} with {refused.code}"
        if expected == "rules":
            assert refused.code in {"joker_forces_upper", "joker_lower_box", "upper_section_first"}
        else:
            assert refused.code == expected
    else:
        assert expected is None, f"applied {action}, expected {expected}"
    assert state_to_dict(state) == before


def test_round_trip_of_a_fresh_and_a_finished_game() -> None:
    dice = ScriptedDice([2] * 5)
    state = new_game("yahtzee", ["a"], dice, {"joker": "free"}).state
    assert state_from_dict(state_to_dict(state)) == state
    finished, _ = play_out(state, RandomDice(7), random.Random(7))
    data = state_to_dict(finished)
    assert data["schema"] == 1 and data["turn"] is None
    assert state_from_dict(data) == finished


def test_unknown_schema_is_refused() -> None:
    data = state_to_dict(new_game("yacht", ["a"], ScriptedDice([2] * 5)).state)
    with pytest.raises(ValueError):
        state_from_dict(data | {"schema": 99})
