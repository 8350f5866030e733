"""The JSON shapes of ``docs/api.md`` (Room, Player, Game, Event), built from rows
and the engine's state."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from datetime import datetime
from typing import Any, Protocol

from app.db.models import Event
from app.rules import GameState, get_ruleset, state_from_dict

from .series import game_line, rematch_view, series_view

JSON = dict[str, Any]


# What the views read of a row: the ORM's rows and the hot path's plain rows
# (app/db/actions.py) both have it.
class RoomRow(Protocol):
    @property
    def code(self) -> str: ...
    @property
    def ruleset(self) -> str: ...
    @property
    def options(self) -> dict[str, Any]: ...
    @property
    def max_players(self) -> int: ...
    @property
    def status(self) -> str: ...
    @property
    def host_id(self) -> str | None: ...
    @property
    def version(self) -> int: ...
    @property
    def turn_deadline(self) -> datetime | None: ...
    @property
    def absent_deadline(self) -> datetime | None: ...


class PlayerRow(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def seat(self) -> int | None: ...
    @property
    def bot(self) -> str | None: ...
    @property
    def away(self) -> bool: ...
    @property
    def resigned(self) -> bool: ...
    @property
    def muted(self) -> bool: ...


class GameRow(Protocol):
    @property
    def number(self) -> int: ...
    @property
    def state(self) -> dict[str, Any]: ...
    @property
    def seed(self) -> str: ...
    @property
    def commitment(self) -> str: ...
    @property
    def winners(self) -> list[str] | None: ...
    @property
    def hints(self) -> dict[str, list[list[int]]] | None: ...


def player_view(player: PlayerRow, room: RoomRow, connected: Collection[str]) -> JSON:
    return {
        "id": player.id,
        "name": player.name,
        "seat": player.seat,
        "bot": player.bot,
        "connected": player.bot is not None or player.id in connected,
        "host": player.id == room.host_id,
        "away": bool(player.away),
        "resigned": bool(player.resigned),
        "muted": bool(player.muted),
    }


def game_view(
    game: GameRow, state: GameState | None = None, deadline: datetime | None = None, absent: datetime | None = None
) -> JSON:
    """``deadline``: the current turn's (the room's ``turn_deadline``), null when untimed; ``absent``: when the
    seat whose turn it is becomes away, its person gone (the room's ``absent_deadline``)."""
    state = state or state_from_dict(game.state)
    rules = get_ruleset(state.ruleset)
    turn = state.turn
    turn_view = None
    if turn is not None:
        scorable = (
            {} if turn.dice is None else rules.scorable(state.scorecards[turn.player_id], turn.dice, state.options)
        )
        turn_view = {
            "player_id": turn.player_id,
            "dice": None if turn.dice is None else list(turn.dice),
            "kept": list(turn.kept),
            "rolls_left": turn.rolls_left,
            "scorable": scorable,
        }
    scorecards = {}
    for player, card in state.scorecards.items():
        totals = rules.totals(card)
        scorecards[player] = {
            "boxes": dict(card.boxes),
            "upper_total": totals.upper_total,
            "upper_bonus": totals.upper_bonus,
            "lower_total": totals.lower_total,
            "yahtzee_bonus": totals.yahtzee_bonus,
            "total": totals.total,
        }
    return {
        "number": game.number,
        "status": state.status,
        "round": state.round,
        "order": list(state.order),
        "rolloff": [
            [{"player_id": e.player_id, "dice": list(e.dice), "total": e.total} for e in round_]
            for round_ in state.rolloff
        ],
        "turn": turn_view,
        "scorecards": scorecards,
        "winners": list(game.winners or []),
        "fairness": {"commitment": game.commitment, "seed": game.seed if state.finished else None},
        "deadline": None if deadline is None or state.finished else iso_utc(deadline),
        "absent_deadline": None if absent is None or state.finished else iso_utc(absent),
        "hints": hint_counts(game.hints, state.order),
        "ended": ended(state),
    }


def ended(state: GameState) -> str | None:
    """How the game ended: null while it is played, ``completed`` when every
    card is filled, ``resigned`` when it ended early (every other person resigned)."""
    if not state.finished:
        return None
    return "completed" if all(card.complete for card in state.scorecards.values()) else "resigned"


def hint_counts(hints: dict[str, list[list[int]]] | None, order: Iterable[str]) -> dict[str, int]:
    """How many rolls each player of the game asked a hint about (``hint_used``)."""
    hints = hints or {}
    return {player: len(hints.get(player, ())) for player in order}


def room_view(
    room: RoomRow,
    players: Sequence[PlayerRow],
    current: GameRow | None,
    history: Sequence[JSON],
    connected: Collection[str] = (),
    state: GameState | None = None,
) -> JSON:
    """``players`` are the seated players in seat order; ``history`` the
    room's record of finished games (``number``, ``totals``, ``winners``;
    see :mod:`app.rooms.series`)."""
    games: list[JSON] = []
    best: dict[str, int] = {}
    for entry in history:
        line = game_line(entry)
        games.append(line)
        if line["ended"] != "completed":
            continue  # an unfinished card is never a best
        for player, total in line["totals"].items():
            best[player] = max(total, best.get(player, total))
    return {
        "code": room.code,
        "ruleset": room.ruleset,
        "options": room.options,
        "max_players": room.max_players,
        "status": room.status,
        "host_id": room.host_id,
        "players": [player_view(p, room, connected) for p in players],
        "version": room.version,
        "game": None if current is None else game_view(current, state, room.turn_deadline, room.absent_deadline),
        "games": games,
        "best": {room.ruleset: best},
        "series": series_view(history, players),
        "rematch": rematch_view(room.status, history, players),
    }


def iso_utc(at: datetime) -> str:
    """A UTC time as ISO-8601 with a Z (SQLite hands datetimes back without a zone)."""
    return at.isoformat().replace("+00:00", "Z") if at.tzinfo else at.isoformat() + "Z"


def event_json(version: int, kind: str, player_id: str | None, data: JSON, at: datetime) -> JSON:
    """``docs/api.md``'s Event, from its stored fields (a row, or what an action stores)."""
    return {"version": version, "type": kind, "player_id": player_id, "data": data, "at": iso_utc(at)}


def event_view(event: Event) -> JSON:
    return event_json(event.version, event.type, event.player_id, event.data, event.at)
