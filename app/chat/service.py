"""The chat's use cases: a seat says something or reacts; the host mutes or
unmutes a seat. Each is one :meth:`RoomService.change` (the room's lock, the
next version, published after the commit), so chat events sit in the event
log like every other: replayed on resume, shown after a reload.

Refusals, after the seat's token and the body (``docs/api.md``, "Chat"):
``room_closed``, ``chat_disabled`` (the room's option ``chat`` is off),
``muted`` (the host muted the seat). Mutes: ``not_host``,
``player_not_found``, ``invalid_request`` (the host's own seat, or a bot's)."""

from __future__ import annotations

from app.db import Game, Player, Room
from app.rooms import DomainError, RoomService, Seat
from app.rooms.views import JSON


class Chat:
    def __init__(self, service: RoomService) -> None:
        self.service = service

    async def say(self, code: str, seat: Seat, *, text: str | None = None, reaction: str | None = None) -> JSON:
        """Append ``chat`` with ``{"text"}`` (already normalized: :func:`app.chat.normalize_chat`)
        or ``{"reaction"}`` (one of :data:`app.chat.REACTIONS`); answers the event."""
        data: JSON = {"text": text} if text is not None else {"reaction": reaction}

        def change(room: Room, players: list[Player], game: Game | None) -> list[tuple[str, str | None, JSON]]:
            _check_open(room)
            if not room.options.get("chat", True):
                raise DomainError("chat_disabled", "chat is off in this room")
            me = next((p for p in players if p.id == seat.player_id), None)
            if me is None:  # left meanwhile
                raise DomainError("unauthorized", "unknown seat token")
            if me.muted:
                raise DomainError("muted", "the host muted your chat in this room")
            return [("chat", me.id, data)]

        _, events = await self.service.change_events(code, change)
        return events[0]

    async def mute(self, code: str, seat: Seat, player_id: str, muted: bool) -> int:
        """The host mutes (``player_muted``) or unmutes (``player_unmuted``) a
        seat's chat; nothing happens when it is so already. Answers the room's version."""

        def change(room: Room, players: list[Player], game: Game | None) -> list[tuple[str, str | None, JSON]]:
            _check_open(room)
            if seat.player_id != room.host_id:
                raise DomainError("not_host", "only the host can mute a seat")
            target = next((p for p in players if p.id == player_id), None)
            if target is None:
                raise DomainError("player_not_found", f"room {room.code} has no player {player_id}")
            if target.id == seat.player_id:
                raise DomainError("invalid_request", "the host cannot mute their own seat")
            if target.bot is not None:
                raise DomainError("invalid_request", "bots do not chat")
            if target.muted == muted:
                return []
            target.muted = muted
            kind = "player_muted" if muted else "player_unmuted"
            return [(kind, seat.player_id, {"player_id": target.id})]

        view = await self.service.change(code, change)
        version: int = view["version"]
        return version


def _check_open(room: Room) -> None:
    if room.status == "closed":
        raise DomainError("room_closed", f"room {room.code} has closed: its last player left")
