"""A game that ends at once (docs/api.md, "Resigning"): when every other
person in it (every other seat that is not a bot) has resigned, the one
person still playing wins there and then, instead of finishing against the
autopilot. The cards stay as they stood: such a game counts for wins and
ratings, never for bests (``ended`` ``resigned``)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from app.db import Game, Player, Room
from app.rules import FairDice, GameFinished, finish, state_from_dict, state_to_dict

from . import series
from .views import JSON


def last_person_playing(seated: Sequence[Player]) -> Player | None:
    """The one person of the game who has not resigned, when every other
    person has (a game of one person and bots never ends this way)."""
    people = [p for p in seated if p.bot is None]
    playing = [p for p in people if not p.resigned]
    return playing[0] if len(people) >= 2 and len(playing) == 1 else None


def end_for(room: Room, game: Game, seated: Sequence[Player], winner: Player, now: datetime) -> tuple[str, None, JSON]:
    """End the game being played with ``winner`` as its winner, under the
    room's lock: the game, the room and its history are updated in place;
    the ``game_finished`` event to append is returned (its ``reason``:
    ``resigned``; the seed revealed as ever)."""
    state = state_from_dict(game.state)
    transition = finish(state, FairDice.from_hex(game.seed))
    (finished,) = transition.events
    assert isinstance(finished, GameFinished)
    totals = dict(finished.totals)
    game.state = state_to_dict(transition.state)
    game.status = "finished"
    game.winners = [winner.id]
    game.totals = totals
    game.finished_at = now
    room.status = "finished"
    room.next_deadline = room.turn_deadline = room.absent_deadline = None
    by_id = {p.id: p for p in seated}
    names = {pid: by_id[pid].name for pid in totals if pid in by_id}
    resigned = [pid for pid in state.order if pid in by_id and by_id[pid].resigned]
    room.history = [*room.history, series.summary(game.number, totals, [winner.id], names, resigned, "resigned")]
    return "game_finished", None, {**finished.data(), "winners": [winner.id], "reason": "resigned"}
