"""The dice combinatorics of one turn, as index tables for NumPy.

Every multiset of 0 to 5 dice (462 of them) gets an index; the 252 rolls of
five dice come first (0-251), then smaller multisets by decreasing size, the
empty keep last. Two recursions cover a turn:

* ``mean``: the value of keeping multiset k and rolling the rest is the
  average, over one more die's six faces, of the value of keeping k plus
  that face. Rolling the missing dice one at a time is the same as rolling
  them together, so this needs 6 additions per multiset instead of a sum
  over every outcome.
* ``best``: the best keep from a roll is the best value over all of its
  sub-multisets, a running maximum along each face in turn.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

Counts = tuple[int, int, int, int, int, int]

FloatArray = npt.NDArray[np.float64]


def _multisets(size: int) -> list[Counts]:
    out = []
    for faces in itertools.combinations_with_replacement(range(6), size):
        counts = [0] * 6
        for face in faces:
            counts[face] += 1
        out.append((counts[0], counts[1], counts[2], counts[3], counts[4], counts[5]))
    return out


LEVELS: list[list[Counts]] = [_multisets(size) for size in range(6)]
ORDER: list[Counts] = [c for size in (5, 4, 3, 2, 1, 0) for c in LEVELS[size]]
INDEX: dict[Counts, int] = {c: i for i, c in enumerate(ORDER)}
N_ROLLS = len(LEVELS[5])  # 252
N_KEEPS = len(ORDER)  # 462
EMPTY = INDEX[(0, 0, 0, 0, 0, 0)]

ROLL_COUNTS = np.array(LEVELS[5], dtype=np.int64)  # (252, 6)
ROLL_FACES: list[tuple[int, ...]] = [
    tuple(face + 1 for face in range(6) for _ in range(counts[face])) for counts in LEVELS[5]
]
"""Each roll as sorted faces, e.g. (1, 1, 3, 4, 6)."""
YAHTZEE_ROLLS = np.array([INDEX[c] for c in LEVELS[5] if max(c) == 5])
"""The roll index of five 1s, five 2s, ... five 6s."""


def _slice(size: int) -> slice:
    start = sum(len(LEVELS[s]) for s in range(5, size, -1))
    return slice(start, start + len(LEVELS[size]))


SLICES = {size: _slice(size) for size in range(6)}


def _children(size: int) -> npt.NDArray[np.int64]:
    """For each multiset of ``size`` dice, the six multisets with one more die."""
    rows = []
    for counts in LEVELS[size]:
        for face in range(6):
            more = list(counts)
            more[face] += 1
            rows.append(INDEX[tuple(more)])  # type: ignore[index]
    return np.array(rows, dtype=np.int64)


def _face_steps(face: int) -> list[tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]]:
    """For one face, by how many of it a multiset holds (1..5): the multisets
    holding that many and, aligned, the same multisets with one fewer."""
    steps = []
    for count in range(1, 6):
        rows = [INDEX[c] for c in ORDER if c[face] == count]
        fewer = []
        for c in ORDER:
            if c[face] == count:
                less = list(c)
                less[face] -= 1
                fewer.append(INDEX[tuple(less)])  # type: ignore[index]
        steps.append((np.array(rows, dtype=np.int64), np.array(fewer, dtype=np.int64)))
    return steps


CHILDREN = {size: _children(size) for size in range(5)}
FACE_STEPS = [step for face in range(6) for step in _face_steps(face)]


def mean(values: FloatArray) -> None:
    """Fill rows of sizes 4..0 of ``values`` (462 x B) from the 252 roll rows, in place."""
    batch = values.shape[1]
    for size in (4, 3, 2, 1, 0):
        rows = SLICES[size]
        values[rows] = values[CHILDREN[size]].reshape(-1, 6, batch).sum(axis=1) * (1 / 6)


def best(values: FloatArray) -> FloatArray:
    """For each of the 252 rolls, the largest value among its sub-multisets (252 x B).

    The sub-multisets of (c1..c6) are all (k1..k6) with each k <= c, a box in
    six dimensions, so a running maximum along one face at a time covers
    them: 1,260 comparisons per state.
    """
    out = values.copy()
    for rows, fewer in FACE_STEPS:
        _max_into(out, rows, fewer)
    return out[SLICES[5]]


def best_with(values: FloatArray, seconds: FloatArray) -> tuple[FloatArray, FloatArray]:
    """:func:`best`, carrying along the second moment of the keep that wins
    (on a tie the larger multiset, i.e. keeping more, stays)."""
    out = values.copy()
    out2 = seconds.copy()
    for rows, fewer in FACE_STEPS:
        take = out[fewer] > out[rows]
        out[rows] = np.where(take, out[fewer], out[rows])
        out2[rows] = np.where(take, out2[fewer], out2[rows])
    return out[SLICES[5]], out2[SLICES[5]]


def _max_into(out: FloatArray, rows: npt.NDArray[np.int64], fewer: npt.NDArray[np.int64]) -> None:
    out[rows] = np.maximum(out[rows], out[fewer])


def keep_index(kept: Sequence[int]) -> int:
    """The index of a multiset given as faces."""
    counts = [0] * 6
    for face in kept:
        counts[face - 1] += 1
    return INDEX[tuple(counts)]  # type: ignore[index]


def roll_index(dice: Sequence[int]) -> int:
    assert len(dice) == 5
    return keep_index(dice)
