"""Choices and their expected values: hints, and the policies bots play by.

The ``ev`` of a choice is the expected final total of the player's scorecard
(points already scored included) if they make that choice and play optimally
(for solitaire) from then on. A greedy advisor values the future at zero, so
it maximizes the points of the current turn only.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from app.rules import Scorecard, Totals, get_ruleset

from . import multisets
from .model import IntArray, Variant
from .solver import FloatArray, Solver


@dataclass(frozen=True)
class KeepChoice:
    dice: tuple[int, ...]
    """Positions (0-4) to keep."""
    values: tuple[int, ...]
    ev: float


@dataclass(frozen=True)
class BoxChoice:
    box: str
    points: int
    ev: float


Choice = KeepChoice | BoxChoice


@dataclass(frozen=True)
class Advice:
    rolls_left: int
    keeps: tuple[KeepChoice, ...]
    boxes: tuple[BoxChoice, ...]

    @property
    def choices(self) -> tuple[Choice, ...]:
        return (*self.boxes, *self.keeps)

    @property
    def best(self) -> Choice:
        """The highest ev; on a tie, scoring now (keeping all five is the same)."""
        return max(self.choices, key=lambda c: (c.ev, isinstance(c, BoxChoice)))

    def action(self, choice: Choice | None = None) -> dict[str, object]:
        """A choice as an action of ``docs/api.md``."""
        choice = choice or self.best
        if isinstance(choice, BoxChoice):
            return {"type": "score", "box": choice.box}
        return {"type": "roll", "keep": list(choice.dice)}

    def to_json(self) -> dict[str, object]:
        best = self.best
        marked = (
            {"type": "score", "box": best.box}
            if isinstance(best, BoxChoice)
            else {"type": "keep", "dice": list(best.dice)}
        )
        return {
            "rolls_left": self.rolls_left,
            "best": marked,
            "keeps": [{"dice": list(k.dice), "values": list(k.values), "ev": round(k.ev, 4)} for k in self.keeps],
            "boxes": [{"box": b.box, "points": b.points, "ev": round(b.ev, 4)} for b in self.boxes],
        }


class TurnPlan:
    """The keep values of one turn for a batch of turn-start states.

    ``keep_values[n][k, i]``: expected points still to come for state i if,
    with n rolls left, the player keeps multiset k and rolls the rest.
    """

    def __init__(self, solver: Solver, table: FloatArray, mask: IntArray, upper: IntArray, flag: IntArray) -> None:
        final, _ = solver.final_roll_values(mask, upper, flag, table)
        work = np.empty((multisets.N_KEEPS, mask.size))
        work[: multisets.N_ROLLS] = final
        multisets.mean(work)
        one_left = work.copy()
        work[: multisets.N_ROLLS] = multisets.best(work)
        multisets.mean(work)
        self.final = final
        self.keep_values = {1: one_left, 2: work}


def _positions(dice: Sequence[int], kept: Sequence[int]) -> tuple[int, ...]:
    """Positions of ``dice`` showing the faces of ``kept`` (first ones first)."""
    free = list(range(len(dice)))
    out = []
    for face in kept:
        position = next(p for p in free if dice[p] == face)
        free.remove(position)
        out.append(position)
    return tuple(sorted(out))


def _sub_multisets(dice: Sequence[int]) -> list[tuple[int, ...]]:
    """Every distinct multiset of fewer than all the dice (keeping all five is scoring)."""
    faces = sorted(dice)
    seen = {combo for size in range(len(faces)) for combo in itertools.combinations(faces, size)}
    return sorted(seen, key=lambda k: (-len(k), k))


_KEEPS_OF_ROLL = [
    np.array([multisets.keep_index(k) for k in _sub_multisets(faces)], dtype=np.int64) for faces in multisets.ROLL_FACES
]
"""For each roll, its distinct keeps short of all five (as multiset indices)."""


class Advisor:
    """Expected values of every choice, from one variant's table."""

    def __init__(self, variant: Variant, table: FloatArray | None) -> None:
        self.variant = variant
        self.solver = Solver(variant, workers=1)
        self.model = self.solver.model
        self.rules = get_ruleset(variant.ruleset)
        self.options = self.rules.normalize_options(variant.options)
        self.greedy = table is None
        shape = (1 << self.model.n_boxes, self.model.n_upper, self.model.n_flag)
        self.table = table if table is not None else np.zeros(shape)

    def state(self, card: Scorecard, totals: Totals | None = None) -> tuple[int, int, int]:
        """The card's turn-start state (``totals``: the card's, if already computed)."""
        m = self.model
        mask = sum(1 << m.bit[box] for box, value in card.boxes.items() if value is not None)
        upper = 0
        if m.n_upper > 1:
            upper = min(m.n_upper - 1, (totals or self.rules.totals(card)).upper_total)
        flag = int(card.boxes.get("yahtzee") == 50) if m.n_flag > 1 else 0
        return mask, int(m.canonical_upper(mask, upper)), flag

    def plan(self, cards: Sequence[Scorecard]) -> TurnPlan:
        states = np.array([self.state(card) for card in cards], dtype=np.int64).reshape(-1, 3)
        return TurnPlan(self.solver, self.table, states[:, 0], states[:, 1], states[:, 2])

    def box_choices(self, card: Scorecard, dice: Sequence[int]) -> tuple[BoxChoice, ...]:
        """Every box the rules allow now, with points and ev, best first."""
        faces = tuple(dice)
        m = self.model
        totals = self.rules.totals(card)
        scored, raw_upper = totals.total, totals.upper_total
        mask, upper, flag = self.state(card, totals)
        bonus = self.rules.bonus(card, faces, self.options)
        out = []
        for box, points in self.rules.scorable(card, faces, self.options).items():
            gain = points + bonus
            next_upper = upper
            if box in self.rules.upper_boxes:
                gain += self.rules.upper_bonus(raw_upper + points) - self.rules.upper_bonus(raw_upper)
                next_upper = min(m.n_upper - 1, raw_upper + points) if m.n_upper > 1 else 0
            next_flag = int(flag or (box == "yahtzee" and points == 50)) if m.n_flag > 1 else 0
            next_mask = mask | (1 << m.bit[box])
            future = 0.0
            if not self.greedy and next_mask != (1 << m.n_boxes) - 1:
                future = float(self.table.reshape(-1)[m.state_index(next_mask, next_upper, next_flag)])
            out.append(BoxChoice(box, points, scored + gain + future))
        return tuple(sorted(out, key=lambda b: -b.ev))

    def keep_choices(
        self, card: Scorecard, dice: Sequence[int], rolls_left: int, plan: TurnPlan | None = None, column: int = 0
    ) -> tuple[KeepChoice, ...]:
        """Every distinct keep short of all five, with its ev, best first."""
        if rolls_left == 0:
            return ()
        plan = plan or self.plan([card])
        scored = self.rules.totals(card).total
        values = plan.keep_values[rolls_left][:, column]
        out = [
            KeepChoice(_positions(dice, kept), kept, scored + float(values[multisets.keep_index(kept)]))
            for kept in _sub_multisets(dice)
        ]
        return tuple(sorted(out, key=lambda k: -k.ev))

    def advise(
        self, card: Scorecard, dice: Sequence[int], rolls_left: int, plan: TurnPlan | None = None, column: int = 0
    ) -> Advice:
        return Advice(rolls_left, self.keep_choices(card, dice, rolls_left, plan, column), self.box_choices(card, dice))

    def decide(self, card: Scorecard, dice: Sequence[int], rolls_left: int, plan: TurnPlan, column: int = 0) -> Choice:
        """``advise(...).best`` without listing every choice: what bots and
        simulations call at each step."""
        roll = multisets.roll_index(sorted(dice))
        stop = float(plan.final[roll, column])
        if rolls_left:
            keeps = _KEEPS_OF_ROLL[roll]
            values = plan.keep_values[rolls_left][keeps, column]
            best = int(np.argmax(values))
            if float(values[best]) > stop:
                kept = multisets.ORDER[int(keeps[best])]
                faces = tuple(face + 1 for face in range(6) for _ in range(kept[face]))
                scored = self.rules.totals(card).total
                return KeepChoice(_positions(dice, faces), faces, scored + float(values[best]))
        return self.box_choices(card, dice)[0]


def card_from(boxes: Mapping[str, int | None], yahtzee_bonus: int = 0) -> Scorecard:
    return Scorecard(MappingProxyType(dict(boxes)), yahtzee_bonus)


# Bot levels: how far from the best choice a bot strays. Strong and casual
# bots pick among the three best choices with a temperature in points of
# expected final score (a choice worth that much less than the best is e
# times less likely). Measured over 150 solo games: strong 164 (Yacht) and
# 249 (Yahtzee), casual 141 and 220, against the optimum's 170 and 255.
LEVELS = ("optimal", "strong", "casual", "beginner", "greedy")
"""``beginner`` plays by :func:`app.strategy.beginner.beginner_choice`, not by :func:`pick`."""
TEMPERATURE = {"optimal": 0.0, "strong": 1.0, "casual": 4.0, "beginner": 0.0, "greedy": 0.0}
CANDIDATES = 3


def pick(advice: Advice, level: str, rng: random.Random) -> Choice:
    """What a bot of ``level`` chooses (greedy bots are given a greedy advisor's advice)."""
    temperature = TEMPERATURE[level]
    if temperature <= 0:
        return advice.best
    choices = sorted(advice.choices, key=lambda c: -c.ev)[:CANDIDATES]
    top = choices[0].ev
    weights = [math.exp((c.ev - top) / temperature) for c in choices]
    return rng.choices(choices, weights=weights)[0]
