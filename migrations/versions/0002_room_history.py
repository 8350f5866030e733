"""room history: each finished game's totals on the room row

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29 13:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("rooms", schema=None) as batch_op:
        batch_op.add_column(sa.Column("history", JSON, nullable=False, server_default=sa.text("'[]'")))

    # Rooms that already finished games get their history from the games table.
    rooms = sa.table("rooms", sa.column("id", sa.BigInteger), sa.column("history", JSON))
    games = sa.table(
        "games",
        sa.column("room_id", sa.BigInteger),
        sa.column("number", sa.Integer),
        sa.column("status", sa.String),
        sa.column("totals", JSON),
        sa.column("winners", JSON),
    )
    bind = op.get_bind()
    finished = bind.execute(
        sa.select(games.c.room_id, games.c.number, games.c.totals, games.c.winners)
        .where(games.c.status == "finished")
        .order_by(games.c.room_id, games.c.number)
    )
    history: dict[int, list[dict[str, object]]] = {}
    for room_id, number, totals, winners in finished:
        history.setdefault(room_id, []).append({"number": number, "totals": totals or {}, "winners": winners or []})
    for room_id, games_of_room in history.items():
        bind.execute(sa.update(rooms).where(rooms.c.id == room_id).values(history=games_of_room))


def downgrade() -> None:
    with op.batch_alter_table("rooms", schema=None) as batch_op:
        batch_op.drop_column("history")
