"""The tables: rooms, their seats, their games and the append-only event log."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    UniqueConstraint,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

Json = JSON().with_variant(JSONB(), "postgresql")
# SQLite only auto-increments an INTEGER PRIMARY KEY.
BigId = BigInteger().with_variant(Integer(), "sqlite")


def utcnow() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class Room(Base):
    __tablename__ = "rooms"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    code: Mapped[str] = mapped_column(String(12), unique=True)
    ruleset: Mapped[str] = mapped_column(String(32))
    options: Mapped[dict[str, Any]] = mapped_column(Json)
    max_players: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), default="lobby")
    host_id: Mapped[str | None] = mapped_column(String(32))
    version: Mapped[int] = mapped_column(Integer, default=0)
    game_number: Mapped[int] = mapped_column(Integer, default=0)
    next_deadline: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), index=True)
    history: Mapped[list[dict[str, Any]]] = mapped_column(Json, default=list)
    """Each finished game's number, totals and winners (kept here so that a room view needs no query)."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Player(Base):
    """A seat. ``left_at`` is set when the player leaves: the row stays so that
    finished games keep naming them."""

    __tablename__ = "players"
    __table_args__ = (Index("ix_players_room_id_seat", "room_id", "seat"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"))
    seat: Mapped[int | None] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(64))
    token_hash: Mapped[str | None] = mapped_column(String(64), unique=True)
    bot: Mapped[str | None] = mapped_column(String(16))
    joined_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    left_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class Game(Base):
    __tablename__ = "games"
    __table_args__ = (UniqueConstraint("room_id", "number"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), default="playing")
    state: Mapped[dict[str, Any]] = mapped_column(Json)
    seed: Mapped[str] = mapped_column(String(64))
    commitment: Mapped[str] = mapped_column(String(64))
    totals: Mapped[dict[str, int] | None] = mapped_column(Json)
    winners: Mapped[list[str] | None] = mapped_column(Json)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class Event(Base):
    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("room_id", "version"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"))
    version: Mapped[int] = mapped_column(Integer)
    type: Mapped[str] = mapped_column(String(32))
    player_id: Mapped[str | None] = mapped_column(String(32))
    data: Mapped[dict[str, Any]] = mapped_column(Json)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ActionResult(Base):
    """An applied action's answer, remembered by its client ``id`` (idempotency)."""

    __tablename__ = "action_results"
    __table_args__ = (UniqueConstraint("room_id", "player_id", "game_number", "client_id"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"))
    player_id: Mapped[str] = mapped_column(String(32))
    game_number: Mapped[int] = mapped_column(Integer)
    client_id: Mapped[str] = mapped_column(String(64))
    action: Mapped[dict[str, Any]] = mapped_column(Json)
    first_version: Mapped[int] = mapped_column(Integer)
    version: Mapped[int] = mapped_column(Integer)


class GameAnalysis(Base):
    """A finished game's post-game analysis (``app.analysis``): computed once, then served."""

    __tablename__ = "game_analyses"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), unique=True)
    data: Mapped[dict[str, Any]] = mapped_column(Json)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
