"""Replay a game from the event log through the rules engine (independently
of the server's stored state)."""

from typing import Any

from app.rooms.service import ROOM_OPTIONS
from app.rules import FairDice, GameState, Keep, Roll, Score, apply, new_game


def replay(ruleset: str, options: dict[str, Any], seed: str, events: list[dict[str, Any]]) -> GameState:
    """The final state of the game whose ``game_started`` is the first of ``events``."""
    started = events[0]
    assert started["type"] == "game_started"
    dice = FairDice.from_hex(seed)
    seats = [entry["player_id"] for entry in started["data"]["rolloff"][0]]
    rules_options = {k: v for k, v in options.items() if k not in ROOM_OPTIONS}
    transition = new_game(ruleset, seats, dice, rules_options, started["data"]["number"])
    assert transition.events[0].data() == started["data"]
    state = transition.state
    for event in events[1:]:
        player, data = event["player_id"], event["data"]
        if event["type"] == "rolled":
            keep = tuple(i for i, kept in enumerate(data["kept"]) if kept)
            action: Roll | Keep | Score = Roll(player, keep)
        elif event["type"] == "kept":
            action = Keep(player, tuple(i for i, kept in enumerate(data["kept"]) if kept))
        elif event["type"] == "scored":
            action = Score(player, data["box"])
        else:
            continue
        produced = apply(state, action, dice)
        assert produced.events[0].data() == data, (event, produced.events[0].data())
        state = produced.state
    return state
