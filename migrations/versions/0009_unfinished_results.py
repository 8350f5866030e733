"""unfinished results: game_results.complete (false: the game ended before the
seat's card was full, every other person having resigned; such a result
counts for wins and ratings, never for bests or score averages)

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-04 17:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("game_results") as batch:
        batch.add_column(sa.Column("complete", sa.Boolean(), server_default=sa.true(), nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("game_results") as batch:
        batch.drop_column("complete")
