"""Each instance's hub: the sockets of every room it serves, and the one
place that puts a room's events in version order before they go out.

Two commits of one room can publish out of order, and a bus can lose
messages while it is down. The hub remembers the last version it delivered
per room, holds an early event back, and reads a gap that does not fill
within ``gap_wait`` seconds from the event log, so every socket gets every
event once, in order. It also serves as the rooms service's publisher (after
commit) and presence source.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson

from . import messages, patch
from .bus import Bus, Message
from .closecodes import CloseCode
from .connection import Connection

log = logging.getLogger("dicecup.realtime")
JSON = dict[str, Any]


class EventLog(Protocol):
    """Where the hub reads what the bus did not bring (the rooms service)."""

    async def events_after(self, code: str, after: int = 0, limit: int = 100) -> JSON: ...

    async def get_room(self, code: str) -> JSON: ...


@dataclass
class _Room:
    conns: set[Connection] = field(default_factory=set)
    delivered: int | None = None
    pending: dict[int, tuple[JSON, JSON | None]] = field(default_factory=dict)
    filling: asyncio.Task[None] | None = None
    view: bytes | None = None
    """The latest room view seen (from an event or a welcome's read), kept
    encoded: a few thousand rooms' views as Python objects would be walked by
    every full garbage collection."""
    view_version: int = -1


class Hub:
    def __init__(self, bus: Bus, log_reader: EventLog, gap_wait: float = 0.25) -> None:
        self.bus = bus
        self.reader = log_reader
        self.gap_wait = gap_wait
        self._rooms: dict[str, _Room] = {}
        self._seats: Counter[tuple[str, str]] = Counter()
        self._presence: dict[str, dict[str, set[str]]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        await self.bus.start(self)

    async def close(self) -> None:
        """Tell every client to resume elsewhere (1012), then stop the bus."""
        conns = [c for room in self._rooms.values() for c in room.conns]
        for conn in conns:
            conn.close(CloseCode.GOING_AWAY, "server shutting down")
        if conns:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.gather(*(c.closed.wait() for c in conns)), 2.0)
        for task in list(self._tasks):
            task.cancel()
        await self.bus.close()

    # -- the rooms service's view of the hub ---------------------------------------------

    async def publish(self, code: str, events: Sequence[JSON], room: JSON) -> None:
        """Called after a commit: hand the events to every instance."""
        await self.bus.publish(code, {"kind": "events", "code": code, "events": list(events), "room": room})

    def connected(self, code: str) -> Collection[str]:
        """Seats with a live socket on any instance."""
        return {player for player, instances in self._presence.get(code, {}).items() if instances}

    # -- sockets --------------------------------------------------------------------------

    async def join(self, conn: Connection) -> None:
        """Start receiving the room's events for ``conn`` (held until :meth:`ready`).
        Call before reading the welcome from the database, so nothing falls between."""
        room = self._rooms.get(conn.code)
        if room is None:
            room = self._rooms[conn.code] = _Room()
        room.conns.add(conn)
        if len(room.conns) == 1:
            await self.bus.subscribe(conn.code)

    async def ready(self, conn: Connection, version: int) -> None:
        """``conn`` has been sent everything up to ``version``."""
        conn.ready(version)
        room = self._rooms.get(conn.code)
        if room is not None and room.delivered is None:
            room.delivered = version
            self._drain(conn.code, room)
        if conn.player_id is not None:
            key = (conn.code, conn.player_id)
            self._seats[key] += 1
            if self._seats[key] == 1:
                await self.bus.announce_presence(conn.code, conn.player_id, True)

    async def leave(self, conn: Connection, was_ready: bool = True) -> None:
        room = self._rooms.get(conn.code)
        if room is not None and conn in room.conns:
            room.conns.discard(conn)
            if not room.conns:
                del self._rooms[conn.code]
                if room.filling is not None:
                    room.filling.cancel()
                await self.bus.unsubscribe(conn.code)
        if conn.player_id is not None and was_ready:
            key = (conn.code, conn.player_id)
            self._seats[key] -= 1
            if self._seats[key] <= 0:
                del self._seats[key]
                await self.bus.announce_presence(conn.code, conn.player_id, False)

    def holds_seat(self, code: str, player_id: str) -> bool:
        """Whether a socket of this seat is open (and welcomed) on this instance."""
        return self._seats[(code, player_id)] > 0

    def watched_rooms(self) -> list[str]:
        """The rooms with a socket open on this instance."""
        return [code for code, room in self._rooms.items() if room.conns]

    def spectators(self, code: str) -> int:
        """Sockets without a seat watching ``code`` on this instance."""
        room = self._rooms.get(code)
        return 0 if room is None else sum(1 for conn in room.conns if conn.player_id is None)

    def current_view(self, code: str) -> JSON | None:
        """The room as of the last event delivered here, if this hub has it (a
        welcome then needs no database read); presence flags as they are now."""
        room = self._rooms.get(code)
        if room is None or room.view is None or room.delivered != room.view_version:
            return None
        return self._with_presence(code, orjson.loads(room.view))

    def _with_presence(self, code: str, view: JSON) -> JSON:
        """``view`` with the ``connected`` flags as they are now (on any instance)."""
        connected = self.connected(code)
        for player in view["players"]:
            player["connected"] = player["bot"] is not None or player["id"] in connected
        return view

    def remember(self, code: str, view: JSON) -> None:
        """Keep a view read from the database for the next welcomes."""
        room = self._rooms.get(code)
        if room is not None and view["version"] >= room.view_version:
            room.view, room.view_version = orjson.dumps(view), view["version"]

    # -- what the bus brings -------------------------------------------------------------

    async def on_message(self, message: Message) -> None:
        if message.get("kind") == "events":
            self._receive(message["code"], message["events"], message.get("room"))
        elif message.get("kind") == "presence":
            self._presence_changed(
                message["code"], message["player_id"], message["instance"], bool(message["connected"])
            )

    def on_presence_snapshot(self, entries: Iterable[tuple[str, str, str]]) -> None:
        before = {code: set(self.connected(code)) for code in self._rooms}
        presence: dict[str, dict[str, set[str]]] = {}
        for code, player, instance in entries:
            presence.setdefault(code, {}).setdefault(player, set()).add(instance)
        # this instance's own seats are live whatever the bus remembered
        for code, player in self._seats:
            presence.setdefault(code, {}).setdefault(player, set()).add(self.bus.instance_id)
        self._presence = presence
        for code, was in before.items():
            now = set(self.connected(code))
            for player in was ^ now:
                self._announce(code, player, player in now)

    async def on_reconnected(self) -> None:
        """The bus was down: read what every served room missed from the log."""
        for code in list(self._rooms):
            await self._fill(code)

    # -- ordering ------------------------------------------------------------------------

    def _receive(self, code: str, events: Sequence[JSON], room_view: JSON | None) -> None:
        room = self._rooms.get(code)
        if room is None:
            return
        for event in events:
            version = event["version"]
            if room.delivered is None or version > room.delivered:
                room.pending[version] = (event, room_view)
        self._drain(code, room)

    def _drain(self, code: str, room: _Room) -> None:
        if room.delivered is None:
            return
        while room.delivered + 1 in room.pending:
            event, view = room.pending.pop(room.delivered + 1)
            self._deliver(room, event, view)
        for version in [v for v in room.pending if v <= room.delivered]:
            del room.pending[version]
        if room.pending and (room.filling is None or room.filling.done()):
            room.filling = self._spawn(self._fill_later(code))

    def _deliver(self, room: _Room, event: JSON, view: JSON | None) -> None:
        version = event["version"]
        data, encoded = messages.event_v1(event, view)
        previous, previous_version = room.view, room.view_version
        if view is not None and encoded is not None and view["version"] >= room.view_version:
            room.view, room.view_version = encoded, view["version"]
        v2 = _PatchedEvent(event, view, previous, previous_version)
        for conn in list(room.conns):
            conn.push_event(version, data if conn.protocol == 1 else v2.for_connection(conn))
        room.delivered = version
        if event["type"] in ("player_left", "seat_token_rotated"):
            # The seat is gone, or its token was replaced (taken back from
            # another device, app.profiles): its sockets lose their identity
            # right after the event that says so (on every instance: each hub sees it).
            gone = event["data"]["player"]["id"]
            reason = "this seat left the room" if event["type"] == "player_left" else "this seat's token was replaced"
            for conn in list(room.conns):
                if conn.player_id == gone:
                    conn.close(CloseCode.SEAT_GONE, reason)

    async def _fill_later(self, code: str) -> None:
        await asyncio.sleep(self.gap_wait)
        await self._fill(code)

    async def _fill(self, code: str) -> None:
        """Deliver what the log has after the last delivered version."""
        try:
            while True:
                room = self._rooms.get(code)
                if room is None or room.delivered is None:
                    return
                page = await self.reader.events_after(code, room.delivered, 500)
                events = page["events"]
                current = None if page["more"] or not events else await self.reader.get_room(code)
                if current is not None:  # the log's reader knows nothing of presence
                    current = self._with_presence(code, current)
                room = self._rooms.get(code)
                if room is None or room.delivered is None:
                    return
                for event in events:
                    version = event["version"]
                    if version != room.delivered + 1:
                        continue
                    held = room.pending.pop(version, None)
                    view = held[1] if held is not None else None
                    if view is None and current is not None and current["version"] == version:
                        view = current
                    self._deliver(room, event, view)
                if not page["more"]:
                    self._drain(code, room)
                    return
        except Exception:
            log.exception("could not fill the event gap of room %s from the log", code)

    # -- presence ------------------------------------------------------------------------

    def _presence_changed(self, code: str, player: str, instance: str, connected: bool) -> None:
        players = self._presence.setdefault(code, {})
        was = bool(players.get(player))
        instances = players.setdefault(player, set())
        if connected:
            instances.add(instance)
        else:
            instances.discard(instance)
        if not instances:
            del players[player]
            if not players:
                del self._presence[code]
        if was != connected or was != bool(instances):
            self._announce(code, player, bool(instances))

    def _announce(self, code: str, player: str, connected: bool) -> None:
        room = self._rooms.get(code)
        if room is None:
            return
        data = messages.presence(player, connected)
        for conn in list(room.conns):
            conn.send(data)

    def _spawn(self, coro: Any) -> asyncio.Task[None]:
        task: asyncio.Task[None] = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def socket_count(self) -> int:
        """Sockets this hub serves now, in every room (the metrics' gauge)."""
        return sum(len(room.conns) for room in self._rooms.values())


class _PatchedEvent:
    """Protocol 2's encodings of one event, made once each as sockets need them.

    A socket holds the room at ``conn.view_version``. If that is the room the
    hub saw last (``previous``), it gets the diff from there to ``view``;
    if it already holds ``view`` (the action's second event) or the hub has
    no view for this event (read back from the log), an empty patch; else
    (right after a welcome the hub did not see) a replacement of the whole
    room. Either way the socket then holds exactly the room at its version,
    and when that is the room at the event's version, the event leaves out
    what the room holds (:data:`messages.COMPACT_EVENTS`)."""

    def __init__(self, event: JSON, view: JSON | None, previous: bytes | None, previous_version: int) -> None:
        self.event = event
        self.view = view
        self.previous = previous
        self.previous_version = previous_version
        self._encoded: dict[str, str] = {}

    def _encode(self, kind: str) -> str:
        data = self._encoded.get(kind)
        if data is None:
            if kind == "none" or self.view is None:
                ops: list[patch.Op] = []
            elif kind == "diff":
                assert self.previous is not None
                ops = patch.diff(orjson.loads(self.previous), self.view)
            else:
                ops = patch.replace_all(self.view)
            # whichever the patch, the client then holds ``view`` (when there is one)
            at_event = self.view is not None and self.view["version"] == self.event["version"]
            data = self._encoded[kind] = messages.event_v2(self.event, ops, at_event)
        return data

    def for_connection(self, conn: Connection) -> str:
        view = self.view
        if view is None or conn.view_version == view["version"]:
            return self._encode("none")
        holds = conn.view_version
        conn.view_version = view["version"]
        if self.previous is not None and holds == self.previous_version >= 0:
            return self._encode("diff")
        return self._encode("all")
