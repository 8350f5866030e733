"""Check a finished game's dice against its revealed seed.

Works on events as plain dicts (the ``{"type", "data", ...}`` shape of
``docs/api.md``), so it checks exactly what any client received.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .dice import DICE_COUNT, commitment_of, fair_roll
from .errors import FairnessError


def verify_game(seed_hex: str, events: Iterable[Mapping[str, Any]]) -> int:
    """Recompute every roll of one game from its seed and compare it with the
    events; return how many rolls were checked.

    ``events`` are the game's events in version order, from its
    ``game_started`` on (events of other kinds are skipped). Raises
    :class:`FairnessError` at the first mismatch: a commitment that is not
    the seed's SHA-256, a roll-off roll, or a roll whose rerolled dice differ
    from the seed's or whose kept dice changed.
    """
    try:
        seed = bytes.fromhex(seed_hex)
    except ValueError:
        raise FairnessError("the seed is not hex") from None
    rolls = 0
    started = False
    dice: list[int] | None = None
    for event in events:
        kind, data = event["type"], event["data"]
        if kind == "game_started":
            if started:
                raise FairnessError("the events hold more than one game")
            started = True
            if data.get("commitment") != commitment_of(seed):
                raise FairnessError("the seed does not match the game's commitment")
            for round_ in data["rolloff"]:
                for entry in round_:
                    expected = list(fair_roll(seed, rolls, DICE_COUNT))
                    if list(entry["dice"]) != expected:
                        raise FairnessError(f"roll-off roll {rolls} was {entry['dice']}, the seed gives {expected}")
                    rolls += 1
        elif not started:
            continue
        elif kind == "turn_started":
            dice = None
        elif kind == "rolled":
            kept = [bool(k) and dice is not None for k in data["kept"]]
            fresh = iter(fair_roll(seed, rolls, kept.count(False)))
            expected = [dice[i] if kept[i] and dice is not None else next(fresh) for i in range(DICE_COUNT)]
            if list(data["dice"]) != expected:
                raise FairnessError(f"roll {rolls} was {data['dice']}, the seed gives {expected}")
            dice = expected
            rolls += 1
        elif kind == "game_finished" and data.get("seed") not in (None, seed_hex):
            raise FairnessError("game_finished reveals a different seed")
    if not started:
        raise FairnessError("the events hold no game_started")
    return rolls
