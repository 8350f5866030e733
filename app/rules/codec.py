"""Game state to and from plain JSON-compatible dicts, losslessly.

The server stores these dicts; ``schema`` versions the format so that a
stored game can always be read back (or refused clearly) after an upgrade.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from .registry import get_ruleset
from .ruleset import Scorecard
from .state import GameState, RolloffEntry, Turn

SCHEMA = 1


def state_to_dict(state: GameState) -> dict[str, Any]:
    """A JSON-compatible dict that :func:`state_from_dict` turns back into ``state``."""
    turn = state.turn
    return {
        "schema": SCHEMA,
        "ruleset": state.ruleset,
        "options": dict(state.options),
        "number": state.number,
        "commitment": state.commitment,
        "players": list(state.players),
        "order": list(state.order),
        "rolloff": [[{"player_id": e.player_id, "dice": list(e.dice)} for e in round_] for round_ in state.rolloff],
        "scorecards": {
            player: {"boxes": dict(card.boxes), "yahtzee_bonus": card.yahtzee_bonus}
            for player, card in state.scorecards.items()
        },
        "turn": None
        if turn is None
        else {
            "player_id": turn.player_id,
            "dice": None if turn.dice is None else list(turn.dice),
            "kept": list(turn.kept),
            "rolls_left": turn.rolls_left,
            "keeps": turn.keeps,
        },
        "round": state.round,
        "rolls_made": state.rolls_made,
    }


def state_from_dict(data: Mapping[str, Any]) -> GameState:
    """The state :func:`state_to_dict` wrote. Raises ``ValueError`` for an
    unknown schema version and ``KeyError`` or ``TypeError`` for a damaged dict."""
    if data.get("schema") != SCHEMA:
        raise ValueError(f"unsupported game state schema {data.get('schema')!r}")
    rules = get_ruleset(data["ruleset"])
    raw_turn = data["turn"]
    turn = (
        None
        if raw_turn is None
        else Turn(
            player_id=raw_turn["player_id"],
            dice=None if raw_turn["dice"] is None else tuple(raw_turn["dice"]),
            kept=tuple(bool(k) for k in raw_turn["kept"]),
            rolls_left=int(raw_turn["rolls_left"]),
            keeps=int(raw_turn.get("keeps", 0)),  # absent in states stored before the cap
        )
    )
    cards = {
        player: Scorecard(
            MappingProxyType({box: card["boxes"][box] for box in rules.boxes}),
            int(card["yahtzee_bonus"]),
        )
        for player, card in data["scorecards"].items()
    }
    return GameState(
        ruleset=rules.name,
        options=rules.normalize_options(data["options"]),
        players=tuple(data["players"]),
        order=tuple(data["order"]),
        rolloff=tuple(
            tuple(RolloffEntry(e["player_id"], tuple(e["dice"])) for e in round_) for round_ in data["rolloff"]
        ),
        scorecards=MappingProxyType(cards),
        turn=turn,
        round=int(data["round"]),
        rolls_made=int(data["rolls_made"]),
        number=int(data["number"]),
        commitment=data["commitment"],
    )
