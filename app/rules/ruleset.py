"""The interface every rule set implements, and the scorecard it scores on."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TypeAlias

from .dice import DICE_COUNT, FACES, Dice
from .errors import InvalidOptions

OptionValue: TypeAlias = str | bool
Options: TypeAlias = Mapping[str, OptionValue]


@dataclass(frozen=True)
class OptionSpec:
    """One option of a rule set: its default and the values it may take."""

    default: OptionValue
    choices: tuple[OptionValue, ...]


@dataclass(frozen=True)
class Scorecard:
    """One player's boxes (``None`` while empty) and the bonus points that
    live outside the boxes (Yahtzee's +100s)."""

    boxes: Mapping[str, int | None]
    yahtzee_bonus: int = 0

    @classmethod
    def empty(cls, boxes: Sequence[str]) -> Scorecard:
        return cls(MappingProxyType(dict.fromkeys(boxes)))

    def is_filled(self, box: str) -> bool:
        return self.boxes[box] is not None

    @property
    def open_boxes(self) -> tuple[str, ...]:
        return tuple(box for box, value in self.boxes.items() if value is None)

    @property
    def complete(self) -> bool:
        return all(value is not None for value in self.boxes.values())

    def with_score(self, box: str, points: int, bonus: int = 0) -> Scorecard:
        boxes = dict(self.boxes)
        boxes[box] = points
        return Scorecard(MappingProxyType(boxes), self.yahtzee_bonus + bonus)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Scorecard):
            return NotImplemented
        return dict(self.boxes) == dict(other.boxes) and self.yahtzee_bonus == other.yahtzee_bonus

    def __hash__(self) -> int:
        return hash((tuple(self.boxes.items()), self.yahtzee_bonus))


@dataclass(frozen=True)
class Totals:
    """The parts of a grand total, as ``docs/api.md`` names them."""

    upper_total: int
    upper_bonus: int
    lower_total: int
    yahtzee_bonus: int
    total: int = field(init=False)

    def __post_init__(self) -> None:
        total = self.upper_total + self.upper_bonus + self.lower_total + self.yahtzee_bonus
        object.__setattr__(self, "total", total)


def check_dice(dice: Sequence[int]) -> Dice:
    """Five faces 1-6 as a tuple, or ``ValueError``."""
    faces = tuple(dice)
    if len(faces) != DICE_COUNT or any(face not in FACES for face in faces):
        raise ValueError(f"dice must be {DICE_COUNT} faces from 1 to 6, got {list(dice)!r}")
    return faces


class RuleSet(ABC):
    """A dice game of the Yahtzee family: its boxes, their scoring, and which
    box a player may fill with which dice.

    A new rule set is one subclass in one module, registered in
    :data:`app.rules.RULESETS`.
    """

    name: str
    label: str
    boxes: tuple[str, ...]
    """Every box, in scorecard order."""
    upper_boxes: tuple[str, ...]
    """The boxes of the upper section (ones to sixes), in face order."""
    option_specs: Mapping[str, OptionSpec] = MappingProxyType({})
    box_labels: Mapping[str, str] = MappingProxyType({})
    upper_bonus_threshold: int | None = None
    """The upper total that earns :attr:`upper_bonus_points` (``None``: no upper bonus)."""
    upper_bonus_points: int = 0

    @property
    def rounds(self) -> int:
        """One round per box: every turn fills exactly one."""
        return len(self.boxes)

    def section(self, box: str) -> str:
        return "upper" if box in self.upper_boxes else "lower"

    def normalize_options(self, raw: Mapping[str, object] | None) -> Options:
        """The full option set (defaults filled in), or :class:`InvalidOptions`."""
        raw = raw or {}
        unknown = sorted(set(raw) - set(self.option_specs))
        if unknown:
            raise InvalidOptions(f"{self.name} has no option {', '.join(unknown)}")
        options: dict[str, OptionValue] = {}
        for name, spec in self.option_specs.items():
            value = raw.get(name, spec.default)
            # bool is a subclass of int, and True == 1: compare types exactly.
            if not any(type(value) is type(choice) and value == choice for choice in spec.choices):
                choices = ", ".join(repr(c) for c in spec.choices)
                raise InvalidOptions(f"option {name} must be one of {choices}")
            assert isinstance(value, (str, bool))
            options[name] = value
        return MappingProxyType(options)

    @abstractmethod
    def score(self, box: str, dice: Dice) -> int:
        """Plain points of ``dice`` in ``box``: no Joker, no bonus."""

    @abstractmethod
    def refusal(self, card: Scorecard, box: str, dice: Dice, options: Options) -> tuple[str, str] | None:
        """Why ``box`` may not be filled with ``dice`` now, as ``(code, detail)``,
        or ``None`` when it may. ``box`` is one of :attr:`boxes`."""

    @abstractmethod
    def points(self, card: Scorecard, box: str, dice: Dice, options: Options) -> int:
        """What filling ``box`` with ``dice`` scores now (Joker values
        included, bonuses excluded). Only meaningful when :meth:`refusal` is None."""

    def bonus(self, card: Scorecard, dice: Dice, options: Options) -> int:
        """Bonus points earned by scoring ``dice`` now, outside the box (Yahtzee's +100)."""
        return 0

    def upper_bonus(self, upper_total: int) -> int:
        """The upper bonus a card with this upper total has earned."""
        threshold = self.upper_bonus_threshold
        return self.upper_bonus_points if threshold is not None and upper_total >= threshold else 0

    def scorable(self, card: Scorecard, dice: Dice, options: Options) -> dict[str, int]:
        """Exactly the boxes that may be filled now, with the points each would get."""
        return {
            box: self.points(card, box, dice, options)
            for box in card.open_boxes
            if self.refusal(card, box, dice, options) is None
        }

    def totals(self, card: Scorecard) -> Totals:
        upper = sum(card.boxes[box] or 0 for box in self.upper_boxes)
        lower = sum(value or 0 for box, value in card.boxes.items() if box not in self.upper_boxes)
        return Totals(upper, self.upper_bonus(upper), lower, card.yahtzee_bonus)
