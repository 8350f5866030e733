"""Dice and where their values come from.

The engine never calls a random number generator itself: it asks a
:class:`DiceSource` for the values of roll number ``n`` (rolls of a game are
numbered 0, 1, 2, ... in event order, roll-off rolls first). The production
source is :class:`FairDice`, the commit-reveal scheme pinned in ``docs/api.md``.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from collections.abc import Iterable, Sequence
from typing import Protocol, TypeAlias

Dice: TypeAlias = tuple[int, ...]
"""Five die faces (1-6), in position order 0-4."""

FACES = range(1, 7)
DICE_COUNT = 5


class DiceSource(Protocol):
    """Where die values come from.

    ``roll(n, count)`` returns ``count`` faces for roll number ``n``.
    ``commitment`` is published when a game starts (``None`` for sources
    that make no promise, e.g. in tests).
    """

    @property
    def commitment(self) -> str | None: ...

    def roll(self, roll_number: int, count: int) -> Dice: ...

    def reveal(self) -> str | None:
        """The secret behind ``commitment``, asked for once the game is over."""
        ...


def fair_roll(seed: bytes, roll_number: int, count: int) -> Dice:
    """The faces of roll ``roll_number`` under the fair-dice scheme of ``docs/api.md``.

    Bytes of HMAC-SHA256(key=seed, msg=b"n:i") for i = 0, 1, ... are read in
    order; a byte b < 252 gives the face b % 6 + 1, a larger byte is skipped
    (252 is the largest multiple of 6 not above 256, so every face is equally
    likely).

    >>> fair_roll(bytes(range(32)), 0, 5)
    (4, 1, 5, 2, 4)
    """
    faces: list[int] = []
    block = 0
    while len(faces) < count:
        digest = hmac.new(seed, f"{roll_number}:{block}".encode("ascii"), hashlib.sha256).digest()
        for byte in digest:
            if byte < 252:
                faces.append(byte % 6 + 1)
                if len(faces) == count:
                    break
        block += 1
    return tuple(faces)


def commitment_of(seed: bytes) -> str:
    """SHA-256 of the seed bytes, lowercase hex: what a game publishes at its start."""
    return hashlib.sha256(seed).hexdigest()


class FairDice:
    """The production dice: a secret 32-byte seed, committed to by its SHA-256.

    >>> dice = FairDice(bytes(range(32)))
    >>> dice.commitment[:16]
    '630dcd2966c43366'
    >>> dice.roll(1, 5), dice.roll(2, 2)
    ((4, 2, 4, 3, 3), (5, 4))
    """

    __slots__ = ("_seed",)

    def __init__(self, seed: bytes) -> None:
        if len(seed) != 32:
            raise ValueError("a fair-dice seed is 32 bytes")
        self._seed = seed

    @classmethod
    def new(cls) -> FairDice:
        """A fresh seed from the operating system's secure generator."""
        return cls(secrets.token_bytes(32))

    @classmethod
    def from_hex(cls, seed_hex: str) -> FairDice:
        return cls(bytes.fromhex(seed_hex))

    @property
    def seed_hex(self) -> str:
        """The secret; reveal it only when the game is over."""
        return self._seed.hex()

    @property
    def commitment(self) -> str:
        return commitment_of(self._seed)

    def roll(self, roll_number: int, count: int) -> Dice:
        return fair_roll(self._seed, roll_number, count)

    def reveal(self) -> str:
        return self.seed_hex


class ScriptedDice:
    """Dice that come out as written, for tests and worked examples.

    Each roll takes the next ``count`` faces from the script; running out of
    faces is an error, so a test never silently rolls dice it did not plan.
    """

    commitment: str | None = None

    def __init__(self, faces: Iterable[int]) -> None:
        self._faces = list(faces)
        if any(face not in FACES for face in self._faces):
            raise ValueError("scripted faces must be 1-6")
        self._next = 0

    def roll(self, roll_number: int, count: int) -> Dice:
        end = self._next + count
        if end > len(self._faces):
            raise LookupError("the dice script ran out of faces")
        faces = tuple(self._faces[self._next : end])
        self._next = end
        return faces

    def reveal(self) -> None:
        return None

    @property
    def remaining(self) -> int:
        return len(self._faces) - self._next


class RandomDice:
    """Fast, seeded, non-cryptographic dice for simulations and property tests."""

    commitment: str | None = None

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def roll(self, roll_number: int, count: int) -> Dice:
        return tuple(self._random.randint(1, 6) for _ in range(count))

    def reveal(self) -> None:
        return None


def face_counts(dice: Sequence[int]) -> tuple[int, int, int, int, int, int]:
    """How many dice show each face 1-6."""
    counts = [0] * 6
    for face in dice:
        counts[face - 1] += 1
    return (counts[0], counts[1], counts[2], counts[3], counts[4], counts[5])
