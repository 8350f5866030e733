"""Hints: the expected value of every choice, for the player whose turn it is.

The first hint a seat asks about a roll is recorded (``hint_used``, with the
round and the rolls left, never the advice) in the same request, so opponents
see it in the log and the game counts each seat's hinted rolls (the game's
``hints``); asking again about the same roll records nothing more."""

from __future__ import annotations

from sqlalchemy import select

from app.db import Game, Player, Room
from app.rules import state_from_dict
from app.strategy import Variant

from . import secrets
from .errors import DomainError
from .service import RoomService, room_code, seat_of
from .views import JSON


async def hint(service: RoomService, code: str, token: str | None) -> JSON:
    """One read: the room with its current game, and the token's seat; then the
    advice. Refusals in the order of ``docs/api.md``: ``room_not_found``,
    ``unauthorized``/``forbidden``, ``hints_disabled``, ``game_not_started``,
    ``game_over``, ``not_your_turn``, ``must_roll_first``, ``strategy_unavailable``."""
    # one round trip: the room, its current game, and whichever seat the token is
    digest = secrets.token_hash(token) if token else ""
    async with service.db.read() as session:
        found = (
            await session.execute(
                select(Room, Game, Player)
                .outerjoin(Game, (Game.room_id == Room.id) & (Game.number == Room.game_number))
                .outerjoin(Player, Player.token_hash == digest)
                .where(Room.code == room_code(code))
            )
        ).first()
    if found is None:
        raise DomainError("room_not_found", f"no room {code!r}")
    room, game, player = found
    if not token:
        raise DomainError("unauthorized", "this needs a seat token (Authorization: Bearer ...)")
    seat = seat_of(room.id, room.code, player)
    if not room.options.get("hints", True):
        raise DomainError("hints_disabled", "hints are off in this room")
    if game is None:
        raise DomainError("game_not_started", "no game has started in this room")
    state = state_from_dict(game.state)
    turn = state.turn
    if turn is None:
        raise DomainError("game_over", "the game is over")
    if turn.player_id != seat.player_id:
        raise DomainError("not_your_turn", "hints are for the player whose turn it is")
    if turn.dice is None:
        raise DomainError("must_roll_first", "roll first: hints are about the dice on the table")
    advisor = None if service.strategy is None else service.strategy.advisor(Variant.of(state.ruleset, state.options))
    if advisor is None:
        raise DomainError("strategy_unavailable", "the strategy tables are still being computed")
    advice = advisor.advise(state.scorecards[turn.player_id], turn.dice, turn.rolls_left).to_json()
    roll = [state.round, turn.rolls_left]
    if roll not in (game.hints or {}).get(seat.player_id, []):
        await _record(service, room.code, seat.player_id, game.number, roll, list(turn.dice))
    return advice


async def _record(
    service: RoomService, code: str, player_id: str, number: int, roll: list[int], dice: list[int]
) -> None:
    """``hint_used`` for the roll, unless it was recorded meanwhile; ``stale_version``
    if the roll the advice is about is no longer on the table."""

    def change(room: Room, players: list[Player], game: Game | None) -> list[tuple[str, str | None, JSON]]:
        state = None if game is None or game.number != number else state_from_dict(game.state)
        turn = None if state is None else state.turn
        if state is None or turn is None or turn.player_id != player_id or turn.dice is None:
            raise DomainError("stale_version", "the turn moved on meanwhile; ask again")
        if [state.round, turn.rolls_left] != roll or list(turn.dice) != dice:
            raise DomainError("stale_version", "the turn moved on meanwhile; ask again")
        assert game is not None
        hints = dict(game.hints or {})
        if roll in hints.get(player_id, []):
            return []  # recorded by a concurrent request
        hints[player_id] = [*hints.get(player_id, []), roll]
        game.hints = hints
        return [("hint_used", player_id, {"player_id": player_id, "round": roll[0], "rolls_left": roll[1]})]

    await service.change(code, change)
