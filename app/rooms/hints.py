"""Hints: the expected value of every choice, for the player whose turn it is."""

from __future__ import annotations

from app.rules import state_from_dict
from app.strategy import Variant

from .errors import DomainError
from .service import RoomService, Seat
from .views import JSON


async def hint(service: RoomService, code: str, seat: Seat) -> JSON:
    """Expected values of every choice for the player whose turn it is (``API.md``)."""
    async with service.db.read() as session:
        room = await service._room(session, code)
        if not room.options.get("hints", True):
            raise DomainError("hints_disabled", "hints are off in this room")
        game = await service._game(session, room, room.game_number)
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
    card = state.scorecards[turn.player_id]
    return advisor.advise(card, turn.dice, turn.rolls_left).to_json()
