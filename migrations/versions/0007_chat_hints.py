"""chat and hints: players.muted (the host muted the seat's chat) and
games.hints (each seat's hinted rolls in the game, as [round, rolls_left] pairs)

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-03 08:10:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("muted", sa.Boolean(), server_default=sa.false(), nullable=False))
    with op.batch_alter_table("games") as batch:
        batch.add_column(
            sa.Column(
                "hints", sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"), nullable=True
            )
        )


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("hints")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("muted")
