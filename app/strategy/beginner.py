"""The beginner bot: the mistakes beginners make, not random ones.

* It chases sets: with rolls left it keeps every die of its most common face
  (the highest face on a tie) and rolls the rest, hoping for a Yahtzee, even
  when a straight or a good upper-section score was on the table. With no
  pair it keeps a run of three or more (straights look tempting), else its
  highest die.
* It stops early only for a box that looks big: five of a kind, a straight
  or a full house that scores in an open box.
* It scores for this turn only (the greedy advisor's box): the upper bonus
  is an afterthought, so it happily puts three 2s in three of a kind, and
  zeroes whatever box costs least now.
* Now and then (``SLIP``) it keeps one die fewer than it meant to.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from app.rules import Scorecard

from .advisor import Advisor, BoxChoice, Choice, KeepChoice

SLIP = 0.1
BIG_BOXES = (
    "yahtzee",
    "yacht",
    "yatzy",
    "large_straight",
    "big_straight",
    "small_straight",
    "little_straight",
    "full_house",
)


def _positions(dice: Sequence[int], faces: Sequence[int]) -> tuple[int, ...]:
    free = list(range(len(dice)))
    out = []
    for face in faces:
        position = next(p for p in free if dice[p] == face)
        free.remove(position)
        out.append(position)
    return tuple(sorted(out))


def _longest_run(dice: Sequence[int]) -> list[int]:
    faces = sorted(set(dice))
    best: list[int] = []
    run: list[int] = []
    for face in faces:
        run = [*run, face] if run and face == run[-1] + 1 else [face]
        if len(run) > len(best):
            best = run
    return best


def beginner_choice(
    greedy: Advisor, card: Scorecard, dice: Sequence[int], rolls_left: int, rng: random.Random
) -> Choice:
    """What a beginner does with ``dice`` (``greedy``: an advisor without a table)."""
    boxes = greedy.box_choices(card, dice)
    if rolls_left == 0:
        return boxes[0]
    big = [b for b in boxes if b.box in BIG_BOXES and b.points > 0 and b.box in card.open_boxes]
    if big:
        return max(big, key=lambda b: b.points)
    counts = {face: list(dice).count(face) for face in set(dice)}
    most = max(counts.values())
    if most >= 2:
        face = max(f for f, c in counts.items() if c == most)
        kept = [face] * most
    else:
        run = _longest_run(dice)
        kept = run if len(run) >= 3 else [max(dice)]
    if len(kept) > 1 and rng.random() < SLIP:
        kept = kept[:-1]
    if len(kept) == 5:  # five of a kind with its boxes filled: score the best-looking box
        return boxes[0]
    return KeepChoice(_positions(dice, kept), tuple(sorted(kept)), 0.0)


__all__ = ["BoxChoice", "beginner_choice"]
