"""Absent players in untimed rooms (docs/api.md, "Absent players"): a seat
whose person has no socket open for ``DICECUP_ABSENT_SECONDS`` while it is
their turn becomes away, so that a room without a turn clock never stalls
for good when someone walks away: the autopilot plays their turns and the
host may remove the seat.

What is stored is the room's (so it survives a restart, and any instance
acts on it): ``next_deadline``, when the scheduler looks at the room, and
``absent_deadline``, when the seat becomes away. The steps, each one a write
conditional on the room's version (an action meanwhile wins):

1. The seat's last socket closes on its turn (:meth:`Absence.gone`, on the
   instance that served it), or its turn starts while it has none (the turn
   clock): the room is looked at after :func:`notice` seconds, so that a
   reload or a dropped connection that comes straight back says nothing.
2. Still no socket on any instance then (the hub's presence, shared through
   Redis): ``player_absent`` with the deadline, ``absent_seconds`` after the
   seat left; the others see a countdown.
3. The deadline passes with still no socket: ``player_away`` (the seat is
   away as after two turn-clock timeouts: the autopilot plays, the host may
   remove it). A socket opened or an action of the seat's own before that:
   ``player_back``, the countdown gone.

While the person is connected the room is looked at every
``absent_seconds`` anyway, a safety net for a close no instance saw (one
that stopped)."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

from app.db import Game, Player, Room
from app.db.models import utcnow
from app.rooms import DomainError, RoomService
from app.rooms.views import JSON, iso_utc
from app.rules import state_from_dict

log = logging.getLogger("dicecup.lifecycle")

NOTICE = 10.0
"""Seconds a seat may be without a socket on its turn before it is said to be absent (a reload)."""


def notice(absent_seconds: float) -> float:
    """The wait before a seat without a socket is said to be absent: :data:`NOTICE`,
    less for a short ``absent_seconds`` (tests), so the countdown has most of the time."""
    return min(NOTICE, absent_seconds / 3)


def aware(at: datetime) -> datetime:
    """``at`` as an aware UTC time (SQLite hands times back without their zone)."""
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


class Absence:
    """The steps of the module's docstring for one instance's scheduler and sockets."""

    def __init__(self, service: RoomService, absent_seconds: float) -> None:
        self.service = service
        self.absent_seconds = absent_seconds

    @property
    def enabled(self) -> bool:
        return self.absent_seconds > 0

    def connected(self, code: str, player_id: str) -> bool:
        presence = self.service.presence
        return presence is not None and player_id in presence.connected(code)

    async def gone(self, code: str, player_id: str) -> None:
        """The seat's last socket on this instance closed: on its turn in an
        untimed room, look at the room again after the notice (whether the
        seat is still gone everywhere is asked then)."""
        if not self.enabled:
            return
        try:
            room, players, game = await self.service.snapshot(code)
        except DomainError:
            return  # the room is gone
        if not _its_untimed_turn(room, players, game, player_id) or room.absent_deadline is not None:
            return
        at = utcnow() + timedelta(seconds=notice(self.absent_seconds))
        if room.next_deadline is None or aware(room.next_deadline) > at:
            await self.service.set_next_deadline(room.code, room.version, at)

    async def look(self, room: Room, player: Player) -> bool:
        """The scheduler's step for a person's turn in an untimed room (see the
        module's docstring); True if something was stored."""
        service, now = self.service, utcnow()
        if not self.enabled:
            await service.set_next_deadline(room.code, room.version, None)
            return False
        if self.connected(room.code, player.id):
            if room.absent_deadline is None:
                await service.set_next_deadline(room.code, room.version, now + timedelta(seconds=self.absent_seconds))
                return False
            return await self._change(room, player.id, "back")
        if room.absent_deadline is None:
            return await self._change(room, player.id, "absent")
        deadline = aware(room.absent_deadline)
        if deadline > now:  # woken early: back to the deadline
            await service.set_next_deadline(room.code, room.version, deadline)
            return False
        return await self._change(room, player.id, "away")

    async def _change(self, room: Room, player_id: str, step: str) -> bool:
        absent_seconds, version = self.absent_seconds, room.version

        def change(room: Room, players: list[Player], game: Game | None) -> list[tuple[str, str | None, JSON]]:
            now = utcnow()
            player = next(p for p in players if p.id == player_id)
            if step == "absent":
                # the seat left about the notice ago: the deadline counts from then
                left = now - timedelta(seconds=notice(absent_seconds))
                deadline = left + timedelta(seconds=absent_seconds)
                room.absent_deadline = room.next_deadline = deadline
                return [("player_absent", player.id, {"player_id": player.id, "deadline": iso_utc(deadline)})]
            room.absent_deadline = None
            if step == "away":
                player.away = True
                room.next_deadline = now  # the autopilot takes the turn over now
                return [("player_away", player.id, {"player_id": player.id})]
            room.next_deadline = now + timedelta(seconds=absent_seconds)
            return [("player_back", player.id, {"player_id": player.id})]

        try:
            await self.service.change(room.code, change, expected_version=version)
        except DomainError as refused:  # the room moved meanwhile: its new deadlines bring us back
            log.info("absence of %s in room %s (%s): %s", player_id, room.code, step, refused.code)
            return False
        return True


def _its_untimed_turn(room: Room, players: list[Player], game: Game | None, player_id: str) -> bool:
    """The game is played, untimed, and it is this person's turn (not away, not resigned)."""
    if game is None or game.status != "playing" or room.options.get("turn_seconds"):
        return False
    turn = state_from_dict(game.state).turn
    player = next((p for p in players if p.id == player_id), None)
    return (
        turn is not None
        and turn.player_id == player_id
        and player is not None
        and player.bot is None
        and not player.away
        and not player.resigned
    )
