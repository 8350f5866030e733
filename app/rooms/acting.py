"""An action's decision: from the room as the storage loaded it to what is
stored, or a refusal. The storage (:mod:`app.db.actions`) runs it inside its
transaction; nothing here reads or writes anything."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from app.db.actions import Loaded, Write
from app.db.models import utcnow
from app.rules import FairDice, GameFinished, GameState, RuleViolation, apply, state_from_dict, state_to_dict

from .errors import DomainError
from .types import ActionRequest, Seat
from .views import PlayerRow


class Seen(Exception):
    """The action's id was applied before: the caller answers with what it did then."""


def decide(
    loaded: Loaded,
    actor: Seat,
    request: ActionRequest,
    deadline: Callable[[GameState, Sequence[PlayerRow]], datetime | None],
) -> Write:
    """What an action stores, or its refusal, in ``docs/api.md``'s order (pure: it
    runs inside the storage's transaction, and again if that loses a race).
    ``deadline`` gives the room's next deadline after the action (a bot's turn)."""
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
    state = state_from_dict(game.state)
    try:
        transition = apply(state, request.for_engine(actor.player_id), FairDice.from_hex(game.seed))
    except RuleViolation as refused:
        raise DomainError(refused.code, refused.detail) from None
    now = utcnow()
    old_version = room.version
    write = Write(room, game, loaded.players, old_version, now, [], state=transition.state)
    game.state = state_to_dict(transition.state)
    for event in transition.events:
        if isinstance(event, GameFinished):
            game.status = "finished"
            game.winners = list(event.winners)
            write.totals = dict(event.totals)
            write.finished_at = now
            summary = {"number": game.number, "totals": dict(event.totals), "winners": list(event.winners)}
            room.status = "finished"
            room.history = [*room.history, summary]
            write.history_changed = True
    write.events = [
        {
            "version": old_version + 1 + i,
            "type": e.type,
            "player_id": actor.player_id if e.type == "game_started" else e.player_id,
            "data": e.data(),
        }
        for i, e in enumerate(transition.events)
    ]
    room.version = old_version + len(write.events)
    room.next_deadline = deadline(transition.state, loaded.players)
    if request.id is not None:
        write.result = {
            "player_id": actor.player_id,
            "client_id": request.id,
            "action": request.canonical(),
            "first_version": old_version + 1,
        }
    return write
