"""Scandinavian Yatzy: 15 boxes, a 50-point upper bonus, no Joker, no extra
Yatzy bonus; any empty box, any time.

The lower section: one pair and two pairs (two *different* pairs) score the
dice of the pairs, three and four of a kind the dice of the set, the small
straight 1-2-3-4-5 is 15, the large straight 2-3-4-5-6 is 20, a full house
(exactly three of one face and two of another) the sum of the dice, chance
the sum, and Yatzy (five of a kind) 50.
"""

from __future__ import annotations

from enum import StrEnum
from types import MappingProxyType

from .dice import Dice, face_counts
from .ruleset import Options, RuleSet, Scorecard


class Box(StrEnum):
    ONES = "ones"
    TWOS = "twos"
    THREES = "threes"
    FOURS = "fours"
    FIVES = "fives"
    SIXES = "sixes"
    ONE_PAIR = "one_pair"
    TWO_PAIRS = "two_pairs"
    THREE_OF_A_KIND = "three_of_a_kind"
    FOUR_OF_A_KIND = "four_of_a_kind"
    SMALL_STRAIGHT = "small_straight"
    LARGE_STRAIGHT = "large_straight"
    FULL_HOUSE = "full_house"
    CHANCE = "chance"
    YATZY = "yatzy"


UPPER = (Box.ONES, Box.TWOS, Box.THREES, Box.FOURS, Box.FIVES, Box.SIXES)
UPPER_BONUS_THRESHOLD = 63
UPPER_BONUS = 50
YATZY_POINTS = 50
SMALL_STRAIGHT = (1, 2, 3, 4, 5)
LARGE_STRAIGHT = (2, 3, 4, 5, 6)


def _faces_with(counts: tuple[int, ...], at_least: int) -> list[int]:
    """The faces shown at least ``at_least`` times, highest first."""
    return [face for face in range(6, 0, -1) if counts[face - 1] >= at_least]


class Yatzy(RuleSet):
    name = "yatzy"
    label = "Yatzy"
    boxes = tuple(box.value for box in Box)
    upper_boxes = tuple(box.value for box in UPPER)
    upper_bonus_threshold = UPPER_BONUS_THRESHOLD
    upper_bonus_points = UPPER_BONUS
    box_labels = MappingProxyType(
        {
            Box.ONES: "Ones",
            Box.TWOS: "Twos",
            Box.THREES: "Threes",
            Box.FOURS: "Fours",
            Box.FIVES: "Fives",
            Box.SIXES: "Sixes",
            Box.ONE_PAIR: "One pair",
            Box.TWO_PAIRS: "Two pairs",
            Box.THREE_OF_A_KIND: "Three of a kind",
            Box.FOUR_OF_A_KIND: "Four of a kind",
            Box.SMALL_STRAIGHT: "Small straight",
            Box.LARGE_STRAIGHT: "Large straight",
            Box.FULL_HOUSE: "Full house",
            Box.CHANCE: "Chance",
            Box.YATZY: "Yatzy",
        }
    )

    def score(self, box: str, dice: Dice) -> int:
        counts = face_counts(dice)
        if box in UPPER:
            face = UPPER.index(Box(box)) + 1
            return face * counts[face - 1]
        match box:
            case Box.ONE_PAIR:
                pairs = _faces_with(counts, 2)
                return 2 * pairs[0] if pairs else 0
            case Box.TWO_PAIRS:
                pairs = _faces_with(counts, 2)
                return 2 * (pairs[0] + pairs[1]) if len(pairs) >= 2 else 0
            case Box.THREE_OF_A_KIND:
                sets = _faces_with(counts, 3)
                return 3 * sets[0] if sets else 0
            case Box.FOUR_OF_A_KIND:
                sets = _faces_with(counts, 4)
                return 4 * sets[0] if sets else 0
            case Box.SMALL_STRAIGHT:
                return 15 if tuple(sorted(dice)) == SMALL_STRAIGHT else 0
            case Box.LARGE_STRAIGHT:
                return 20 if tuple(sorted(dice)) == LARGE_STRAIGHT else 0
            case Box.FULL_HOUSE:
                return sum(dice) if sorted(c for c in counts if c) == [2, 3] else 0
            case Box.CHANCE:
                return sum(dice)
            case Box.YATZY:
                return YATZY_POINTS if max(counts) == 5 else 0
        raise KeyError(box)

    def refusal(self, card: Scorecard, box: str, dice: Dice, options: Options) -> tuple[str, str] | None:
        if card.is_filled(box):
            return "box_filled", f"{box} is already filled"
        return None

    def points(self, card: Scorecard, box: str, dice: Dice, options: Options) -> int:
        return self.score(box, dice)
