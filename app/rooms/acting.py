"""An action's decision: from the room as the storage loaded it to what is
stored, or a refusal. The storage (:mod:`app.db.actions`) runs it inside its
transaction; nothing here reads or writes anything."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from datetime import datetime
from typing import Any

from app.db.actions import Loaded, RoomRow, Write
from app.db.models import utcnow
from app.rules import (
    FairDice,
    GameFinished,
    GameState,
    RuleViolation,
    TurnStarted,
    apply,
    state_from_dict,
    state_to_dict,
)

from . import series
from .errors import DomainError
from .types import ActionRequest, Seat
from .views import PlayerRow, iso_utc

Deadlines = Callable[[RoomRow, GameState, Sequence[PlayerRow], bool, bool], tuple[datetime | None, datetime | None]]
"""(room, state after, seated players, turn changed, autopilot) -> (next deadline, turn deadline)."""


def ranked_winners(totals: dict[str, int], resigned: Collection[str]) -> list[str]:
    """The winners when resigned players cannot win: the best total among the
    others (everyone's, if all resigned)."""
    eligible = {p: t for p, t in totals.items() if p not in resigned} or totals
    best = max(eligible.values())
    return [p for p, t in eligible.items() if t == best]


class Seen(Exception):
    """The action's id was applied before: the caller answers with what it did then."""


def decide(
    loaded: Loaded,
    actor: Seat,
    request: ActionRequest,
    deadlines: Deadlines,
) -> Write:
    """What an action stores, or its refusal, in ``docs/api.md``'s order (pure: it
    runs inside the storage's transaction, and again if that loses a race).
    ``deadlines`` gives the room's next deadline and the turn's after the action.
    A seat's own action after a timeout resets its timeouts (``player_back``
    if it was away); a resigned seat cannot act (the autopilot plays for it)."""
    room, game = loaded.room, loaded.game
    if room is None:
        raise DomainError("room_not_found", f"no room {actor.room_code!r}")
    if loaded.seen:
        raise Seen
    if request.expected_version is not None and request.expected_version != room.version:
        raise DomainError("stale_version", f"the room is at version {room.version}")
    if game is None:
        raise DomainError("game_not_started", "no game has started in this room")
    if game.status == "finished":
        raise DomainError("game_over", "the game is over")
    me = next((p for p in loaded.players if p.id == actor.player_id), None)
    if me is not None and me.resigned and not request.autopilot:
        raise DomainError("resigned", "you resigned from this game: the autopilot finishes your scorecard")
    state = state_from_dict(game.state)
    try:
        transition = apply(state, request.for_engine(actor.player_id), FairDice.from_hex(game.seed))
    except RuleViolation as refused:
        raise DomainError(refused.code, refused.detail) from None
    now = utcnow()
    old_version = room.version
    write = Write(room, game, loaded.players, old_version, now, [], state=transition.state)
    events: list[tuple[str, str | None, dict[str, Any]]] = []
    # an absent seat (untimed room, no socket open on its turn: app.lifecycle.absence) acting itself is back too
    absent = room.absent_deadline is not None and state.turn is not None and state.turn.player_id == actor.player_id
    if me is not None and not request.autopilot and (me.away or me.timeouts or absent):
        write.back = me.id
        if me.away or absent:
            events.append(("player_back", me.id, {"player_id": me.id}))
        me.away, me.timeouts = False, 0
        room.absent_deadline = None
    game.state = state_to_dict(transition.state)
    resigned = {p.id for p in loaded.players if p.resigned}
    turn_changed = False
    for event in transition.events:
        data = event.data()
        if isinstance(event, TurnStarted):
            turn_changed = True
            room.absent_deadline = None
        if isinstance(event, GameFinished):
            winners = ranked_winners(dict(event.totals), resigned) if resigned else list(event.winners)
            data["winners"] = winners
            game.status = "finished"
            room.absent_deadline = None
            game.winners = winners
            write.totals = dict(event.totals)
            write.finished_at = now
            data["reason"] = "completed"
            names = {p.id: p.name for p in loaded.players if p.id in event.totals}
            gave_up = [p for p in transition.state.order if p in resigned]
            entry = series.summary(game.number, dict(event.totals), winners, names, gave_up, "completed")
            room.status = "finished"
            room.history = [*room.history, entry]
            write.history_changed = True
        events.append((event.type, actor.player_id if event.type == "game_started" else event.player_id, data))
    room.next_deadline, room.turn_deadline = deadlines(
        room, transition.state, loaded.players, turn_changed, request.autopilot
    )
    for kind, _, data in events:
        if kind == "turn_started":
            data["deadline"] = None if room.turn_deadline is None else iso_utc(room.turn_deadline)
    write.events = [
        {"version": old_version + 1 + i, "type": kind, "player_id": player_id, "data": data}
        for i, (kind, player_id, data) in enumerate(events)
    ]
    room.version = old_version + len(write.events)
    if request.id is not None:
        write.result = {
            "player_id": actor.player_id,
            "client_id": request.id,
            "action": request.canonical(),
            "first_version": old_version + 1,
        }
    return write
