"""An action's decision (app/rooms/acting.py), pure: no database."""

from datetime import UTC, datetime

import pytest

from app.db.actions import GameRow, Loaded, PlayerRow, RoomRow
from app.rooms.acting import Seen, decide
from app.rooms.errors import DomainError
from app.rooms.types import ActionRequest, Seat
from app.rules import FairDice, new_game, state_from_dict, state_to_dict

SEED = bytes(range(32))
DUE = datetime(2030, 1, 1, tzinfo=UTC)


def loaded(version: int = 5, status: str = "playing", seen: bool = False) -> Loaded:
    dice = FairDice(SEED)
    start = new_game("yacht", ["ana", "bot"], dice)
    room = RoomRow(1, "ABCDEF", "yacht", {}, 2, "playing", "ana", version, 1, [])
    game = GameRow(7, 1, status, state_to_dict(start.state), dice.seed_hex, dice.commitment, None)
    players = [PlayerRow("ana", "Ana", 0, None), PlayerRow("bot", "Bot", 1, "optimal")]
    return Loaded(room, game, players, seen)


def first(found: Loaded) -> str:
    assert found.game is not None
    turn = state_from_dict(found.game.state).turn
    assert turn is not None
    return turn.player_id


def bots_due(room, state, players, turn_changed, autopilot) -> tuple[datetime | None, None]:
    turn = state.turn
    return (DUE if turn is not None and any(p.id == turn.player_id and p.bot for p in players) else None), None


def test_a_roll_becomes_one_event_at_the_next_version() -> None:
    found = loaded()
    player = first(found)
    write = decide(found, Seat(player, "ABCDEF"), ActionRequest("roll", id="r1"), bots_due)
    assert [e["type"] for e in write.events] == ["rolled"]
    assert [e["version"] for e in write.events] == [6]
    assert (write.old_version, write.room.version) == (5, 6)
    assert write.result == {"player_id": player, "client_id": "r1", "action": {"type": "roll"}, "first_version": 6}
    assert state_from_dict(write.game.state).turn.dice is not None  # type: ignore[union-attr]
    # the same player is still to act: a bot's turn stays due, a person's has no deadline
    assert write.room.next_deadline == (DUE if player == "bot" else None)


def test_scoring_hands_the_turn_on_and_schedules_a_bot() -> None:
    found = loaded()
    player = first(found)
    rolled = decide(found, Seat(player, "ABCDEF"), ActionRequest("roll"), bots_due)
    again = Loaded(rolled.room, rolled.game, found.players, False)
    write = decide(again, Seat(player, "ABCDEF"), ActionRequest("score", box="choice"), bots_due)
    assert [e["type"] for e in write.events] == ["scored", "turn_started"]
    assert [e["version"] for e in write.events] == [7, 8]
    assert write.result is None
    expected = DUE if player == "ana" else None
    assert write.room.next_deadline == expected


@pytest.mark.parametrize(
    ("found", "request_", "code"),
    [
        (Loaded(None, None, [], False), ActionRequest("roll"), "room_not_found"),
        (loaded(version=5), ActionRequest("roll", expected_version=4), "stale_version"),
        (loaded(status="finished"), ActionRequest("roll"), "game_over"),
        (Loaded(loaded().room, None, [], False), ActionRequest("roll"), "game_not_started"),
        (loaded(), ActionRequest("score", box="choice"), "must_roll_first"),
    ],
)
def test_refusals(found: Loaded, request_: ActionRequest, code: str) -> None:
    player = "ana" if found.game is None else first(found)
    with pytest.raises(DomainError) as refused:
        decide(found, Seat(player, "ABCDEF"), request_, bots_due)
    assert refused.value.code == code


def test_not_your_turn_and_a_seen_id() -> None:
    found = loaded()
    other = "bot" if first(found) == "ana" else "ana"
    with pytest.raises(DomainError) as refused:
        decide(found, Seat(other, "ABCDEF"), ActionRequest("roll"), bots_due)
    assert refused.value.code == "not_your_turn"
    # a known id wins over every refusal of the room's state (docs/api.md's order)
    with pytest.raises(Seen):
        decide(loaded(status="finished", seen=True), Seat(other, "ABCDEF"), ActionRequest("roll", id="x"), bots_due)


def test_an_away_seat_acting_itself_is_back_first_and_the_autopilot_is_not() -> None:
    found = loaded()
    player = first(found)
    me = next(p for p in found.players if p.id == player)
    me.away, me.timeouts = True, 2
    by_autopilot = decide(found, Seat(player, "ABCDEF"), ActionRequest("roll", autopilot=True), bots_due)
    assert [e["type"] for e in by_autopilot.events] == ["rolled"] and by_autopilot.back is None
    found = loaded()
    me = next(p for p in found.players if p.id == player)
    me.away, me.timeouts = True, 2
    own = decide(found, Seat(player, "ABCDEF"), ActionRequest("roll"), bots_due)
    assert [e["type"] for e in own.events] == ["player_back", "rolled"]
    assert own.events[0]["data"] == {"player_id": player} and own.back == player
    assert (me.away, me.timeouts) == (False, 0)


def test_a_resigned_seat_cannot_act_but_its_autopilot_can() -> None:
    found = loaded()
    player = first(found)
    next(p for p in found.players if p.id == player).resigned = True
    with pytest.raises(DomainError) as refused:
        decide(found, Seat(player, "ABCDEF"), ActionRequest("roll"), bots_due)
    assert refused.value.code == "resigned" and refused.value.status == 409
    write = decide(found, Seat(player, "ABCDEF"), ActionRequest("roll", autopilot=True), bots_due)
    assert [e["type"] for e in write.events] == ["rolled"]
