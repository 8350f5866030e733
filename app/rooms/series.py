"""A room's series (``docs/api.md``, "Series and play again"): the games
played in it side by side, like the columns Game #1, #2, ... of a paper score
pad, with each player's series total; and who has accepted to play again
after the last one.

Pure functions of the room's ``history`` (one entry per finished game:
``number``, ``totals``, ``winners``, the players' ``names``, the seats that
``resigned``, how it ``ended`` and, once someone accepts a rematch,
``rematch``: the ids that accepted) and its seats. A game that ended early
(every other person resigned: ``ended`` ``resigned``) counts in the series
with the totals as they stood."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

JSON = dict[str, Any]


class SeatRow(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def bot(self) -> str | None: ...
    @property
    def resigned(self) -> bool: ...


Ended = str
"""How a game ended: ``completed`` (every card filled) or ``resigned`` (every
other person resigned: it ended at once, cards unfinished)."""


def summary(
    number: int,
    totals: dict[str, int],
    winners: Sequence[str],
    names: dict[str, str],
    resigned: Sequence[str],
    ended: Ended,
) -> JSON:
    """A finished game's entry of the room's history."""
    return {
        "number": number,
        "totals": dict(totals),
        "winners": list(winners),
        "names": names,
        "resigned": list(resigned),
        "ended": ended,
    }


def game_line(entry: JSON) -> JSON:
    """A history entry as ``Room.games`` shows it (entries written before
    resignations were kept: nobody resigned, completed)."""
    return {
        "number": entry["number"],
        "totals": entry["totals"],
        "winners": entry["winners"],
        "resigned": list(entry.get("resigned") or ()),
        "ended": entry.get("ended") or "completed",
    }


def series_view(history: Iterable[JSON], players: Sequence[SeatRow]) -> list[JSON]:
    """Each player's series: the sum of their totals over the room's finished
    games (``total``), how many of them they played (``games``) and won
    (``wins``). A player who joined later counts only the games they played
    (the score pad shows a dash for the others); a player who has left keeps
    their line, with the name they had (``seated`` false). Seated players
    come first in seat order, then the others in the order they first
    played."""
    lines: dict[str, JSON] = {}
    for entry in history:
        names = entry.get("names") or {}
        winners = set(entry.get("winners") or ())
        for player_id, total in entry["totals"].items():
            line = lines.setdefault(
                player_id,
                {"player_id": player_id, "name": names.get(player_id), "games": 0, "total": 0, "wins": 0},
            )
            line["games"] += 1
            line["total"] += total
            line["wins"] += player_id in winners
            if names.get(player_id) is not None:
                line["name"] = names[player_id]
    out = []
    seated = {p.id for p in players}
    for player in players:
        if player.id in lines:
            out.append(lines[player.id] | {"name": player.name, "seated": True})
    for player_id, line in lines.items():
        if player_id not in seated:
            out.append(line | {"seated": False})
    return out


def accepted(history: Sequence[JSON]) -> list[str]:
    """Who accepted to play again after the last finished game."""
    return list(history[-1].get("rematch") or ()) if history else []


def rematch_view(status: str, history: Sequence[JSON], players: Sequence[SeatRow]) -> JSON | None:
    """Play again after the last game (null unless the room's last game is
    finished): ``ready``, the seats that accepted (bots accept at once), and
    ``waiting``, the people still to accept (seats that resigned from the
    last game are not waited for: they leave when the next game starts,
    unless they accept)."""
    if status != "finished" or not history:
        return None
    yes = set(accepted(history))
    ready = [p.id for p in players if p.bot is not None or p.id in yes]
    waiting = [p.id for p in players if p.bot is None and p.id not in yes and not p.resigned]
    return {"game": history[-1]["number"], "ready": ready, "waiting": waiting}


def everyone_ready(history: Sequence[JSON], players: Sequence[SeatRow]) -> bool:
    """At least one person accepted and nobody is waited for: the next game starts."""
    yes = set(accepted(history))
    people = [p for p in players if p.bot is None]
    return any(p.id in yes for p in people) and all(p.id in yes or p.resigned for p in people)
