"""Replays the games boardgame.io played in the bench through Dicecup's own
rules engine (``app.rules``): the roll-off from the dice boardgame.io rolled,
then every move with the faces each of its rolls gave. Dicecup must accept
every move (whose turn, rolls left, keeps, the box chosen), keep the dice
boardgame.io kept, and end with the same scorecards, totals and winners; so a
game boardgame.io served differently from Dicecup's rules shows as a problem."""

from __future__ import annotations

from typing import Any

from app.rules import (
    Action,
    GameFinished,
    Keep,
    Roll,
    RuleViolation,
    Score,
    ScriptedDice,
    Transition,
    apply,
    new_game,
)
from app.rules.dice import DICE_COUNT


def replay(ruleset: str, players: int, record: dict[str, Any]) -> list[str]:
    """What differs between one game as boardgame.io played it (``record``,
    from bench/bgio/loadgen.js) and the same moves under ``app.rules``."""
    name = f"match {record['match']}"
    seats = [str(i) for i in range(players)]
    faces = [face for rolloff in record["rolloff"] for entry in rolloff for face in entry["dice"]]
    script = ScriptedDice(faces)
    try:
        transition = new_game(ruleset, seats, script)
    except LookupError:
        return [f"{name}: the roll-off ends later in Dicecup than the {len(record['rolloff'])} rounds rolled"]
    if script.remaining:
        return [f"{name}: the roll-off ends earlier in Dicecup than the {len(record['rolloff'])} rounds rolled"]
    if transition.state.order[0] != record["first"]:
        return [f"{name}: Dicecup's roll-off makes {transition.state.order[0]} first, boardgame.io {record['first']}"]
    for index, move in enumerate(record["moves"]):
        state = transition.state
        turn = state.turn
        where = f"{name}, move {index} ({move['player']} {move['type']} {move['args']})"
        if turn is None:
            return [f"{where}: Dicecup's game is already over"]
        action: Action
        rolled: list[int] = []
        if move["type"] == "roll":
            keep = tuple(move["args"][0]) if move["args"] else None
            action = Roll(move["player"], keep)
            kept = turn.kept if keep is None else tuple(i in keep for i in range(DICE_COUNT))
            rolled = [move["dice"][i] for i in range(DICE_COUNT) if turn.dice is None or not kept[i]]
        elif move["type"] == "keep":
            action = Keep(move["player"], tuple(move["args"][0]))
        else:
            action = Score(move["player"], move["args"][0])
        try:
            transition = apply(state, action, ScriptedDice(rolled))
        except (RuleViolation, LookupError) as error:
            return [f"{where}: Dicecup refuses it: {error!r}"]
        after = transition.state.turn
        if move["type"] == "roll" and (after is None or list(after.dice or ()) != move["dice"]):
            return [f"{where}: Dicecup's dice are {after and after.dice}, boardgame.io's {move['dice']}"]
    return _ending(name, transition, record)


def _ending(name: str, transition: Transition, record: dict[str, Any]) -> list[str]:
    state = transition.state
    if not state.finished:
        return [f"{name}: boardgame.io's game ended, Dicecup's goes on (round {state.round})"]
    problems = []
    for player, card in state.scorecards.items():
        theirs = record["cards"][player]
        if dict(card.boxes) != theirs["boxes"] or card.yahtzee_bonus != theirs["bonus"]:
            problems.append(f"{name}: player {player}'s scorecard differs: Dicecup {dict(card.boxes)}, {theirs}")
    finished = next(event for event in transition.events if isinstance(event, GameFinished))
    over = record["gameover"]
    if dict(finished.totals) != over["totals"] or list(finished.winners) != over["winners"]:
        problems.append(
            f"{name}: Dicecup's totals {dict(finished.totals)}, winners {list(finished.winners)}; "
            f"boardgame.io's {over['totals']}, {over['winners']}"
        )
    return problems


def verify(ruleset: str, players: int, records: list[dict[str, Any]]) -> dict[str, Any]:
    """Every record replayed: how many, how many agreed, the first problems."""
    problems: list[str] = []
    agreed = 0
    for record in records:
        found = replay(ruleset, players, record)
        agreed += not found
        problems += found
    return {"games": len(records), "agreed": agreed, "problems": problems[:20]}
