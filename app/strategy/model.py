"""The rules of one rule set and option combination, as arrays for the solver.

Plain scoring comes from the rules engine itself (``RuleSet.score`` over the
252 rolls), and so do the Joker values; which boxes are legal under the Joker
and ``upper_first`` is mirrored here in vectorized form, and a test checks it
against the engine's ``scorable`` for many positions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
import numpy.typing as npt

from app.rules import Scorecard, get_ruleset

from .multisets import N_ROLLS, ROLL_COUNTS, ROLL_FACES, YAHTZEE_ROLLS

IntArray = npt.NDArray[np.int64]
YAHTZEE_BONUS = 100


@dataclass(frozen=True)
class Variant:
    """A rule set with the options that change optimal play."""

    ruleset: str
    joker: str | None = None
    upper_first: bool = False

    @classmethod
    def of(cls, ruleset: str, options: Mapping[str, object] | None = None) -> Variant:
        options = options or {}
        if ruleset == "yahtzee":
            return cls("yahtzee", str(options.get("joker", "forced")), bool(options.get("upper_first", False)))
        return cls(ruleset)

    @property
    def key(self) -> str:
        parts = [self.ruleset]
        if self.joker:
            parts.append(f"{self.joker}-joker")
        if self.upper_first:
            parts.append("upper-first")
        return "-".join(parts)

    @property
    def options(self) -> dict[str, str | bool]:
        if self.ruleset != "yahtzee":
            return {}
        return {"joker": self.joker or "forced", "upper_first": self.upper_first}


ALL_VARIANTS = (
    Variant("yahtzee", "forced"),
    Variant("yahtzee", "free"),
    Variant("yahtzee", "forced", True),
    Variant("yahtzee", "free", True),
    Variant("yacht"),
    Variant("yatzy"),
)


class Model:
    """Box bits, point tables and state dimensions of one variant."""

    def __init__(self, variant: Variant) -> None:
        rules = get_ruleset(variant.ruleset)
        self.variant = variant
        self.boxes = rules.boxes
        self.n_boxes = len(self.boxes)
        self.bit = {box: i for i, box in enumerate(self.boxes)}
        # (bit, face) of each upper box
        self.upper = [(self.bit[box], face) for face, box in enumerate(rules.upper_boxes, start=1)]
        self.upper_mask = sum(1 << bit for bit, _ in self.upper)
        self.lower = [self.bit[box] for box in self.boxes if box not in rules.upper_boxes]
        self.face_bit = {face: bit for bit, face in self.upper}
        self.yahtzee_bit = self.bit.get("yahtzee")
        # The upper bonus, as the rule set declares it: the state tracks the
        # upper total capped at its threshold.
        self.upper_bonus = rules.upper_bonus_threshold is not None
        self.upper_bonus_at = rules.upper_bonus_threshold or 0
        self.upper_bonus_points = rules.upper_bonus_points
        self.n_upper = self.upper_bonus_at + 1 if self.upper_bonus else 1
        self.n_flag = 2 if self.yahtzee_bit is not None else 1
        self.joker = variant.joker
        self.upper_first = variant.upper_first
        self.points = np.array(
            [[rules.score(box, ROLL_FACES[r]) for r in range(N_ROLLS)] for box in self.boxes], dtype=np.float64
        )
        self.counts = ROLL_COUNTS
        masks = np.arange(1 << self.n_boxes)
        self.max_upper_gain = sum(((masks >> bit) & 1 == 0) * 5 * face for bit, face in self.upper)
        self.is_yahtzee = np.zeros(N_ROLLS, dtype=bool)
        self.is_yahtzee[YAHTZEE_ROLLS] = True
        # Joker values of each lower box for five of each face, from the engine.
        self.joker_points = np.zeros((self.n_boxes, 7))
        if self.yahtzee_bit is not None:
            for face in range(1, 7):
                card = dict.fromkeys(self.boxes)
                card["yahtzee"] = 50
                card[self.boxes[self.face_bit[face]]] = 5 * face
                scorecard = Scorecard(MappingProxyType(card))
                dice = (face,) * 5
                for bit in self.lower:
                    if bit != self.yahtzee_bit:
                        self.joker_points[bit, face] = rules.points(scorecard, self.boxes[bit], dice, variant.options)

    def canonical_upper(self, mask: IntArray | int, upper: IntArray | int) -> IntArray:
        """An upper total from which the open upper boxes cannot reach the
        bonus threshold (63) plays exactly like 0: such states share one table entry."""
        upper = np.asarray(upper, dtype=np.int64)
        if self.n_upper == 1:
            return upper
        return np.where(upper + self.max_upper_gain[np.asarray(mask)] >= self.upper_bonus_at, upper, 0)

    def state_index(self, mask: IntArray | int, upper: IntArray | int, flag: IntArray | int) -> IntArray:
        """The flat table index of a state (its upper total made canonical)."""
        upper = self.canonical_upper(mask, upper)
        return np.asarray((np.asarray(mask) * self.n_upper + upper) * self.n_flag + flag, dtype=np.int64)

    def reachable_uppers(self) -> npt.NDArray[np.bool_]:
        """For each set of filled upper boxes (6-bit, by face), which capped upper totals can occur."""
        table = np.zeros((64, self.n_upper), dtype=bool)
        for faces in range(64):
            sums = {0}
            for face in range(1, 7):
                if faces >> (face - 1) & 1:
                    sums = {min(s + face * c, self.n_upper - 1) for s in sums for c in range(6)}
            table[faces, sorted(sums)] = True
        return table

    def upper_faces(self, mask: IntArray) -> IntArray:
        """The 6-bit set of filled upper boxes (bit face-1) of each mask."""
        out = np.zeros_like(mask)
        for bit, face in self.upper:
            out |= ((mask >> bit) & 1) << (face - 1)
        return out

    def layer(self, filled: int) -> tuple[IntArray, IntArray, IntArray]:
        """Every reachable state with ``filled`` boxes filled, as (mask, upper, flag) arrays."""
        masks = np.array([m for m in range(1 << self.n_boxes) if m.bit_count() == filled], dtype=np.int64)
        if self.n_upper > 1:
            reach = self.reachable_uppers()[self.upper_faces(masks)]
            which, upper = np.nonzero(reach)
            masks, upper = masks[which], upper.astype(np.int64)
            canonical = self.canonical_upper(masks, upper) == upper
            masks, upper = masks[canonical], upper[canonical]
        else:
            upper = np.zeros_like(masks)
        flag = np.zeros_like(masks)
        if self.yahtzee_bit is not None:
            filled_yahtzee = (masks >> self.yahtzee_bit) & 1 == 1
            masks = np.concatenate([masks, masks[filled_yahtzee]])
            upper = np.concatenate([upper, upper[filled_yahtzee]])
            flag = np.concatenate([flag, np.ones(int(filled_yahtzee.sum()), dtype=np.int64)])
        # One mask's states side by side: a batch then spans few masks, and
        # the solver skips the boxes all of them have filled.
        order = np.lexsort((flag, upper, masks))
        return masks[order], upper[order], flag[order]
