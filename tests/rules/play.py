"""Random legal play on the pure engine, for property tests and fairness tests."""

import random

from app.rules import DiceSource, GameState, Keep, Roll, Score, Transition, apply, get_ruleset


def random_action(state: GameState, rng: random.Random) -> Roll | Keep | Score:
    """A uniformly chosen kind of legal action for the player whose turn it is."""
    turn = state.turn
    assert turn is not None
    player = turn.player_id
    if turn.dice is None:
        return Roll(player)
    rules = get_ruleset(state.ruleset)
    legal = rules.scorable(state.scorecards[player], turn.dice, state.options)
    choices: list[Roll | Keep | Score] = [Score(player, rng.choice(sorted(legal)))]
    if turn.rolls_left:
        keep = tuple(i for i in range(5) if rng.random() < 0.5)
        choices += [Roll(player), Roll(player, keep=keep), Keep(player, keep)]
    return rng.choice(choices)


def play_out(state: GameState, dice: DiceSource, rng: random.Random, on_step=None) -> tuple[GameState, list]:
    """Play random legal actions until the game is over; return the final state and all events."""
    events = []
    while not state.finished:
        action = random_action(state, rng)
        t: Transition = apply(state, action, dice)
        if on_step is not None:
            on_step(state, action, t)
        state = t.state
        events.extend(t.events)
    return state, events
