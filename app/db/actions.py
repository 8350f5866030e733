"""The hot path's storage: load a room for an action, store what it did.

An action is the one write a game makes many times a second, so it skips the
ORM and SQLAlchemy's statement machinery (which cost more than the database
work itself, measured in ``bench/RESULTS.md``) and runs fixed SQL on the
driver's connection:

- **SQLite**: one ``BEGIN IMMEDIATE`` transaction on a plain ``sqlite3``
  connection, run whole in one worker-thread hop (the database's write lock
  is held for the work alone, never across event-loop round trips).
- **PostgreSQL**: two statements on an asyncpg connection, no explicit
  transaction. The first reads the room, its game, its seated players and
  whether the action's id was seen, in one snapshot. The second stores the
  whole action (room, game, events, the id's answer) in one statement whose
  every part is conditional on ``UPDATE rooms ... WHERE version = <the version
  read>``. That update takes the room's row lock and re-checks the version
  after any wait, so of two writers that read the same version exactly one
  stores; the other finds nothing stored and decides again from a fresh
  read (where it is usually refused: ``not_your_turn``, ``stale_version``).
  Every other write to a room (join, leave, start, next game) bumps the
  room's version under the same row lock, so it can never slip between an
  action's read and its write unnoticed.

``decide`` is the caller's pure function from a :class:`Loaded` room to the
:class:`Write` to store; it raises to refuse (nothing is stored).
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import asyncpg
import orjson

MAX_ATTEMPTS = 50
"""An action that loses the race this many times in a row gives up (the room is that busy)."""


class Contended(Exception):
    """The room changed under every attempt to store the action."""


@dataclass(slots=True)
class RoomRow:
    id: int
    code: str
    ruleset: str
    options: dict[str, Any]
    max_players: int
    status: str
    host_id: str | None
    version: int
    game_number: int
    history: list[dict[str, Any]]
    next_deadline: datetime | None = None
    turn_deadline: datetime | None = None
    absent_deadline: datetime | None = None


@dataclass(slots=True)
class GameRow:
    id: int
    number: int
    status: str
    state: dict[str, Any]
    seed: str
    commitment: str
    winners: list[str] | None
    hints: dict[str, list[list[int]]] | None = None


@dataclass(slots=True)
class PlayerRow:
    id: str
    name: str
    seat: int | None
    bot: str | None
    away: bool = False
    resigned: bool = False
    timeouts: int = 0
    muted: bool = False


@dataclass(slots=True)
class Loaded:
    """A room as an action finds it. ``seen``: the action's id was applied before."""

    room: RoomRow | None
    game: GameRow | None
    players: list[PlayerRow]
    seen: bool


@dataclass(slots=True)
class Write:
    """What one action stores. ``room`` and ``game`` are the loaded rows,
    already updated to their new values (the caller builds its view from them)."""

    room: RoomRow
    game: GameRow
    players: list[PlayerRow]
    old_version: int
    now: datetime
    events: list[dict[str, Any]]
    """Each ``{"version", "type", "player_id", "data"}``."""
    history_changed: bool = False
    totals: dict[str, int] | None = None
    finished_at: datetime | None = None
    result: dict[str, Any] | None = None
    """The id's remembered answer: ``{"player_id", "client_id", "action", "first_version"}``."""
    state: Any = None
    """The game's new state as the engine's object (the caller's, not stored)."""
    back: str | None = None
    """A seat that acted itself after timing out: its ``away`` and ``timeouts`` are reset."""


Decide = Callable[[Loaded], Write]


def _json(value: Any) -> str:
    return orjson.dumps(value).decode()


# -- SQLite ----------------------------------------------------------------------------------

_SQLITE_ROOM = """
SELECT r.id, r.code, r.ruleset, r.options, r.max_players, r.status, r.host_id, r.version, r.game_number,
       r.history, g.id, g.number, g.status, g.state, g.seed, g.commitment, g.winners, r.turn_deadline, g.hints,
       r.absent_deadline
FROM rooms r LEFT JOIN games g ON g.room_id = r.id AND g.number = r.game_number
WHERE r.code = ?
"""
_SQLITE_PLAYERS = (
    "SELECT id, name, seat, bot, away, resigned_at IS NOT NULL, timeouts, muted FROM players "
    "WHERE room_id = ? AND left_at IS NULL ORDER BY seat"
)
_SQLITE_BACK = "UPDATE players SET away = 0, timeouts = 0 WHERE id = ?"
_SQLITE_SEEN = "SELECT 1 FROM action_results WHERE room_id = ? AND player_id = ? AND game_number = ? AND client_id = ?"
_SQLITE_EVENT = "INSERT INTO events (room_id, version, type, player_id, data, at) VALUES (?, ?, ?, ?, ?, ?)"
_SQLITE_GAME = "UPDATE games SET state = ?, status = ?, totals = ?, winners = ?, finished_at = ? WHERE id = ?"
_SQLITE_ROOM_UPDATE = (
    "UPDATE rooms SET version = ?, status = ?, history = ?, next_deadline = ?, turn_deadline = ?, "
    "absent_deadline = ?, updated_at = ? WHERE id = ?"
)
_SQLITE_RESULT = (
    "INSERT INTO action_results (room_id, player_id, game_number, client_id, action, first_version, version) "
    "VALUES (?, ?, ?, ?, ?, ?, ?)"
)


def sqlite_time(at: datetime | None) -> str | None:
    """A UTC time as SQLAlchemy's SQLite ``DateTime`` stores it."""
    return None if at is None else at.strftime("%Y-%m-%d %H:%M:%S.%f")


def from_sqlite_time(text: str | None) -> datetime | None:
    """A time as SQLite's ``DateTime`` column holds it, back as an aware UTC time."""
    if text is None:
        return None
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def _loads(text: str | None) -> Any:
    return None if text is None else orjson.loads(text)


class WouldWait(Exception):
    """Another process holds SQLite's write lock (``sqlite_act`` with ``wait=False``): nothing was done."""


def sqlite_act(
    conn: sqlite3.Connection, code: str, player_id: str, client_id: str | None, decide: Decide, wait: bool = True
) -> Write:
    """Load, decide and store in one ``BEGIN IMMEDIATE`` transaction. With
    ``wait`` false the connection's busy timeout must be 0: if another
    process holds the database's write lock, :class:`WouldWait` is raised
    at once, before anything is read."""
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as error:
        if not wait and error.sqlite_errorcode in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
            raise WouldWait(str(error)) from error
        raise
    try:
        row = conn.execute(_SQLITE_ROOM, (code,)).fetchone()
        loaded = Loaded(None, None, [], False)
        if row is not None:
            room = RoomRow(
                row[0], row[1], row[2], orjson.loads(row[3]), row[4], row[5], row[6], row[7], row[8],
                _loads(row[9]) or [], None, from_sqlite_time(row[17]), from_sqlite_time(row[19]),
            )  # fmt: skip
            game = None
            if row[10] is not None:
                game = GameRow(
                    row[10], row[11], row[12], orjson.loads(row[13]), row[14], row[15], _loads(row[16]), _loads(row[18])
                )
            players = [
                PlayerRow(p[0], p[1], p[2], p[3], bool(p[4]), bool(p[5]), p[6], bool(p[7]))
                for p in conn.execute(_SQLITE_PLAYERS, (room.id,))
            ]
            seen = client_id is not None and (
                conn.execute(_SQLITE_SEEN, (room.id, player_id, room.game_number, client_id)).fetchone() is not None
            )
            loaded = Loaded(room, game, players, seen)
        write = decide(loaded)
        room, game, at = write.room, write.game, sqlite_time(write.now)
        conn.executemany(
            _SQLITE_EVENT,
            [(room.id, e["version"], e["type"], e["player_id"], _json(e["data"]), at) for e in write.events],
        )
        conn.execute(
            _SQLITE_GAME,
            (
                _json(game.state),
                game.status,
                None if write.totals is None else _json(write.totals),
                None if game.winners is None else _json(game.winners),
                sqlite_time(write.finished_at),
                game.id,
            ),
        )
        conn.execute(
            _SQLITE_ROOM_UPDATE,
            (
                room.version,
                room.status,
                _json(room.history),
                sqlite_time(room.next_deadline),
                sqlite_time(room.turn_deadline),
                sqlite_time(room.absent_deadline),
                at,
                room.id,
            ),
        )
        if write.back is not None:
            conn.execute(_SQLITE_BACK, (write.back,))
        if write.result is not None:
            r = write.result
            conn.execute(
                _SQLITE_RESULT,
                (
                    room.id,
                    r["player_id"],
                    room.game_number,
                    r["client_id"],
                    _json(r["action"]),
                    r["first_version"],
                    room.version,
                ),
            )
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return write


# -- PostgreSQL ------------------------------------------------------------------------------

_PG_LOAD = """
SELECT r.id, r.code, r.ruleset, r.options, r.max_players, r.status, r.host_id, r.version, r.game_number,
       r.history, g.id, g.number, g.status, g.state, g.seed, g.commitment, g.winners,
       (SELECT coalesce(json_agg(json_build_array(p.id, p.name, p.seat, p.bot, p.away, p.resigned_at IS NOT NULL,
                                                  p.timeouts, p.muted) ORDER BY p.seat), '[]'::json)
          FROM players p WHERE p.room_id = r.id AND p.left_at IS NULL) AS players,
       $2::text IS NOT NULL AND EXISTS (
         SELECT 1 FROM action_results a
         WHERE a.room_id = r.id AND a.player_id = $3 AND a.game_number = r.game_number AND a.client_id = $2
       ) AS seen,
       r.turn_deadline, g.hints, r.absent_deadline
FROM rooms r LEFT JOIN games g ON g.room_id = r.id AND g.number = r.game_number
WHERE r.code = $1
"""

# Every part runs only if the room is still at the version the action read.
_PG_STORE = """
WITH room AS (
  UPDATE rooms SET version = $3, status = $4, history = coalesce($5::jsonb, history),
                   next_deadline = $6, turn_deadline = $20, absent_deadline = $22, updated_at = $7
  WHERE id = $1 AND version = $2
  RETURNING id
), back AS (
  UPDATE players SET away = false, timeouts = 0
  WHERE $21::text IS NOT NULL AND id = $21::text AND EXISTS (SELECT FROM room)
), game AS (
  UPDATE games SET state = $9, status = $10, totals = $11, winners = $12, finished_at = $13
  WHERE id = $8 AND EXISTS (SELECT FROM room)
), events AS (
  INSERT INTO events (room_id, version, type, player_id, data, at)
  SELECT $1::bigint, e.version, e.type, e.player_id, e.data, $7::timestamptz
  FROM jsonb_to_recordset($14::jsonb) AS e(version integer, type text, player_id text, data jsonb)
  WHERE EXISTS (SELECT FROM room)
), result AS (
  INSERT INTO action_results (room_id, player_id, game_number, client_id, action, first_version, version)
  SELECT $1::bigint, $15::text, $16::integer, $17::text, $18::jsonb, $19::integer, $3::integer
  WHERE $17::text IS NOT NULL AND EXISTS (SELECT FROM room)
)
SELECT count(*) FROM room
"""


async def init_pg_connection(conn: Any) -> None:
    """JSON in and out of an asyncpg connection through orjson."""
    for kind in ("json", "jsonb"):
        await conn.set_type_codec(kind, schema="pg_catalog", encoder=_json, decoder=orjson.loads, format="text")


async def reset_pg_connection(conn: Any) -> None:
    """Nothing to undo when a connection goes back to the pool (asyncpg
    still ends any transaction an error left open). The actions' statements
    never LISTEN, lock advisorily or change settings, so asyncpg's default
    reset query (one more round trip per action: a fifth of the server's time
    under load) would have nothing to do."""


_CONNECTION_LOST = (
    asyncpg.PostgresConnectionError,
    asyncpg.exceptions.OperatorInterventionError,  # "terminating connection due to administrator command"
    asyncpg.InterfaceError,
    asyncpg.InternalClientError,  # a connection whose backend died while it sat in the pool
    OSError,
)


async def pg_act(pool: Any, code: str, player_id: str, client_id: str | None, decide: Decide) -> Write:
    """Load, decide and store (see the module's docstring): retried while
    another writer moves the room between the read and the write. A pooled
    connection found dead at the read (PostgreSQL restarted) is replaced and
    the read tried again; a write is never retried on a lost connection,
    since it may have committed (the client's action id makes its retry safe)."""
    lost = 0
    for _ in range(MAX_ATTEMPTS):
        async with pool.acquire() as conn:
            try:
                row = await conn.fetchrow(_PG_LOAD, code, client_id, player_id)
            except Exception as error:
                if not isinstance(error, _CONNECTION_LOST) or lost > pool.get_max_size():
                    raise
                lost += 1
                continue
            loaded = Loaded(None, None, [], False)
            if row is not None:
                room = RoomRow(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8], row[9])
                room.turn_deadline, room.absent_deadline = row[19], row[21]
                game = (
                    None
                    if row[10] is None
                    else GameRow(row[10], row[11], row[12], row[13], row[14], row[15], row[16], row[20])
                )
                loaded = Loaded(room, game, [PlayerRow(*p) for p in row[17]], row[18])
            write = decide(loaded)
            room, game, result = write.room, write.game, write.result or {}
            stored = await conn.fetchval(
                _PG_STORE,
                room.id,
                write.old_version,
                room.version,
                room.status,
                room.history if write.history_changed else None,
                room.next_deadline,
                write.now,
                game.id,
                game.state,
                game.status,
                write.totals,
                game.winners,
                write.finished_at,
                write.events,
                result.get("player_id"),
                room.game_number,
                result.get("client_id"),
                result.get("action"),
                result.get("first_version"),
                room.turn_deadline,
                write.back,
                room.absent_deadline,
            )
        if stored:
            return write
        await asyncio.sleep(0)
    raise Contended(code)
