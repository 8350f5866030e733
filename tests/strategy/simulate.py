"""Solo games on the pure rules engine, played by bot policies in lockstep
(one batched turn plan per turn for every game)."""

import random

from app.rules import Roll, Score, apply, new_game
from app.rules.dice import RandomDice
from app.strategy import Advisor, BoxChoice, pick


def play_solo(advisor: Advisor, games: int, seed: int, level: str = "optimal") -> list[int]:
    variant = advisor.variant
    rng = random.Random(seed)
    dice = [RandomDice(seed * 100_003 + i) for i in range(games)]
    states = [new_game(variant.ruleset, ["p"], dice[i], variant.options).state for i in range(games)]
    while not states[0].finished:
        plan = advisor.plan([s.scorecards["p"] for s in states])
        for i in range(games):
            state = apply(states[i], Roll("p"), dice[i]).state
            while True:
                turn = state.turn
                card = state.scorecards["p"]
                if level in ("optimal", "greedy"):
                    choice = advisor.decide(card, turn.dice, turn.rolls_left, plan, i)
                else:
                    choice = pick(advisor.advise(card, turn.dice, turn.rolls_left, plan, i), level, rng)
                if isinstance(choice, BoxChoice):
                    state = apply(state, Score("p", choice.box), dice[i]).state
                    break
                state = apply(state, Roll("p", choice.dice), dice[i]).state
            states[i] = state
    from app.rules import get_ruleset

    rules = get_ruleset(variant.ruleset)
    return [rules.totals(s.scorecards["p"]).total for s in states]
