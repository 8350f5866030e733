"""Yahtzee: 13 boxes, the upper bonus, Yahtzee bonuses and the Joker rules.

Options: ``joker`` is ``"forced"`` (Hasbro's rules 1-3, the default) or
``"free"`` (the free-choice Joker of the optimal-play literature);
``upper_first`` forbids the lower section until the upper one is complete.
"""

from __future__ import annotations

from enum import StrEnum
from types import MappingProxyType

from .dice import Dice, face_counts
from .ruleset import Options, OptionSpec, RuleSet, Scorecard


class Box(StrEnum):
    ONES = "ones"
    TWOS = "twos"
    THREES = "threes"
    FOURS = "fours"
    FIVES = "fives"
    SIXES = "sixes"
    THREE_OF_A_KIND = "three_of_a_kind"
    FOUR_OF_A_KIND = "four_of_a_kind"
    FULL_HOUSE = "full_house"
    SMALL_STRAIGHT = "small_straight"
    LARGE_STRAIGHT = "large_straight"
    YAHTZEE = "yahtzee"
    CHANCE = "chance"


class Joker(StrEnum):
    FORCED = "forced"
    FREE = "free"


UPPER = (Box.ONES, Box.TWOS, Box.THREES, Box.FOURS, Box.FIVES, Box.SIXES)
LOWER = tuple(box for box in Box if box not in UPPER)
UPPER_BONUS_THRESHOLD = 63
UPPER_BONUS = 35
YAHTZEE_POINTS = 50
YAHTZEE_BONUS = 100

# What a Joker scores in each lower box (rule 2); None: the sum of the dice.
_JOKER_LOWER: dict[str, int | None] = {
    Box.THREE_OF_A_KIND: None,
    Box.FOUR_OF_A_KIND: None,
    Box.FULL_HOUSE: 25,
    Box.SMALL_STRAIGHT: 30,
    Box.LARGE_STRAIGHT: 40,
    Box.YAHTZEE: YAHTZEE_POINTS,
    Box.CHANCE: None,
}


def _has_run(dice: Dice, length: int) -> bool:
    faces = set(dice)
    return any(all(start + i in faces for i in range(length)) for start in range(1, 8 - length))


def is_yahtzee(dice: Dice) -> bool:
    return len(set(dice)) == 1


class Yahtzee(RuleSet):
    name = "yahtzee"
    label = "Yahtzee"
    boxes = tuple(box.value for box in Box)
    upper_boxes = tuple(box.value for box in UPPER)
    upper_bonus_threshold = UPPER_BONUS_THRESHOLD
    upper_bonus_points = UPPER_BONUS
    option_specs = MappingProxyType(
        {
            "joker": OptionSpec(Joker.FORCED.value, (Joker.FORCED.value, Joker.FREE.value)),
            "upper_first": OptionSpec(False, (False, True)),
        }
    )
    box_labels = MappingProxyType(
        {
            Box.ONES: "Aces",
            Box.TWOS: "Twos",
            Box.THREES: "Threes",
            Box.FOURS: "Fours",
            Box.FIVES: "Fives",
            Box.SIXES: "Sixes",
            Box.THREE_OF_A_KIND: "Three of a kind",
            Box.FOUR_OF_A_KIND: "Four of a kind",
            Box.FULL_HOUSE: "Full house",
            Box.SMALL_STRAIGHT: "Small straight",
            Box.LARGE_STRAIGHT: "Large straight",
            Box.YAHTZEE: "Yahtzee",
            Box.CHANCE: "Chance",
        }
    )

    def score(self, box: str, dice: Dice) -> int:
        counts = face_counts(dice)
        if box in UPPER:
            face = UPPER.index(Box(box)) + 1
            return face * counts[face - 1]
        most = max(counts)
        match box:
            case Box.THREE_OF_A_KIND:
                return sum(dice) if most >= 3 else 0
            case Box.FOUR_OF_A_KIND:
                return sum(dice) if most >= 4 else 0
            case Box.FULL_HOUSE:
                return 25 if sorted(c for c in counts if c) == [2, 3] else 0
            case Box.SMALL_STRAIGHT:
                return 30 if _has_run(dice, 4) else 0
            case Box.LARGE_STRAIGHT:
                return 40 if _has_run(dice, 5) else 0
            case Box.YAHTZEE:
                return YAHTZEE_POINTS if most == 5 else 0
            case Box.CHANCE:
                return sum(dice)
        raise KeyError(box)

    @staticmethod
    def is_joker(card: Scorecard, dice: Dice) -> bool:
        """A Yahtzee rolled while the ``yahtzee`` box is filled (with 50 or 0)."""
        return is_yahtzee(dice) and card.is_filled(Box.YAHTZEE)

    def refusal(self, card: Scorecard, box: str, dice: Dice, options: Options) -> tuple[str, str] | None:
        if card.is_filled(box):
            return "box_filled", f"{box} is already filled"
        upper_open = any(not card.is_filled(b) for b in UPPER)
        upper_first = bool(options.get("upper_first")) and upper_open
        if self.is_joker(card, dice) and options.get("joker", Joker.FORCED) == Joker.FORCED:
            face_box = UPPER[dice[0] - 1]
            if not card.is_filled(face_box):
                if box != face_box:
                    return "joker_forces_upper", f"a Joker Yahtzee must be scored in {face_box}"
            elif not upper_first and box in UPPER and any(not card.is_filled(b) for b in LOWER):
                return "joker_lower_box", "a Joker Yahtzee must be scored in an empty lower box"
        if upper_first and box not in UPPER:
            return "upper_section_first", "fill every upper box before the lower section"
        return None

    def points(self, card: Scorecard, box: str, dice: Dice, options: Options) -> int:
        if box in LOWER and self.is_joker(card, dice) and card.is_filled(UPPER[dice[0] - 1]):
            fixed = _JOKER_LOWER[box]
            return sum(dice) if fixed is None else fixed
        return self.score(box, dice)

    def bonus(self, card: Scorecard, dice: Dice, options: Options) -> int:
        return YAHTZEE_BONUS if is_yahtzee(dice) and card.boxes[Box.YAHTZEE] == YAHTZEE_POINTS else 0
