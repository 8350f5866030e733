"""Classic Yacht: 12 boxes, no bonuses, no Joker; any empty box, any time."""

from __future__ import annotations

from enum import StrEnum
from types import MappingProxyType

from .dice import Dice, face_counts
from .ruleset import Options, RuleSet, Scorecard


class Box(StrEnum):
    YACHT = "yacht"
    BIG_STRAIGHT = "big_straight"
    LITTLE_STRAIGHT = "little_straight"
    FOUR_OF_A_KIND = "four_of_a_kind"
    FULL_HOUSE = "full_house"
    CHOICE = "choice"
    SIXES = "sixes"
    FIVES = "fives"
    FOURS = "fours"
    THREES = "threes"
    TWOS = "twos"
    ONES = "ones"


UPPER = (Box.ONES, Box.TWOS, Box.THREES, Box.FOURS, Box.FIVES, Box.SIXES)


class Yacht(RuleSet):
    name = "yacht"
    label = "Yacht"
    boxes = tuple(box.value for box in Box)
    upper_boxes = tuple(box.value for box in UPPER)
    box_labels = MappingProxyType(
        {
            Box.YACHT: "Yacht",
            Box.BIG_STRAIGHT: "Big straight",
            Box.LITTLE_STRAIGHT: "Little straight",
            Box.FOUR_OF_A_KIND: "Four of a kind",
            Box.FULL_HOUSE: "Full house",
            Box.CHOICE: "Choice",
            Box.SIXES: "Sixes",
            Box.FIVES: "Fives",
            Box.FOURS: "Fours",
            Box.THREES: "Threes",
            Box.TWOS: "Twos",
            Box.ONES: "Ones",
        }
    )

    def score(self, box: str, dice: Dice) -> int:
        counts = face_counts(dice)
        if box in UPPER:
            face = UPPER.index(Box(box)) + 1
            return face * counts[face - 1]
        ordered = sorted(dice)
        match box:
            case Box.YACHT:
                return 50 if max(counts) == 5 else 0
            case Box.BIG_STRAIGHT:
                return 30 if ordered == [2, 3, 4, 5, 6] else 0
            case Box.LITTLE_STRAIGHT:
                return 30 if ordered == [1, 2, 3, 4, 5] else 0
            case Box.FOUR_OF_A_KIND:
                return sum(dice) if max(counts) >= 4 else 0
            case Box.FULL_HOUSE:
                return sum(dice) if sorted(c for c in counts if c) == [2, 3] else 0
            case Box.CHOICE:
                return sum(dice)
        raise KeyError(box)

    def refusal(self, card: Scorecard, box: str, dice: Dice, options: Options) -> tuple[str, str] | None:
        if card.is_filled(box):
            return "box_filled", f"{box} is already filled"
        return None

    def points(self, card: Scorecard, box: str, dice: Dice, options: Options) -> int:
        return self.score(box, dice)
