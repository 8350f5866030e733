"""lifecycle: the turn clock (rooms.turn_deadline), away and resigned seats,
public rooms (rooms.public, indexed for the lobby list), the sweeper's lease
and the index it reads rooms' last activity by

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02 16:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

When = sa.DateTime(timezone=True)


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("turn_deadline", When, nullable=True))
        batch.add_column(sa.Column("public", sa.Boolean(), server_default=sa.false(), nullable=False))
    op.create_index("ix_rooms_public_lobby", "rooms", ["public", "status", "ruleset", "created_at"])
    op.create_index("ix_rooms_updated_at", "rooms", ["updated_at"])
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("away", sa.Boolean(), server_default=sa.false(), nullable=False))
        batch.add_column(sa.Column("timeouts", sa.Integer(), server_default="0", nullable=False))
        batch.add_column(sa.Column("resigned_at", When, nullable=True))
    op.create_table(
        "leases",
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("holder", sa.String(64), nullable=False),
        sa.Column("until", When, nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_leases")),
    )


def downgrade() -> None:
    op.drop_table("leases")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("resigned_at")
        batch.drop_column("timeouts")
        batch.drop_column("away")
    op.drop_index("ix_rooms_updated_at", table_name="rooms")
    op.drop_index("ix_rooms_public_lobby", table_name="rooms")
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("public")
        batch.drop_column("turn_deadline")
