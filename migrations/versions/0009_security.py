"""security round two (issue 27): players.removed_at (the host removed the
seat: the same person cannot take a seat in the room again at once) and
profile_tokens.last_used_at (tokens idle too long stop working)

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-04 17:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

When = sa.DateTime(timezone=True)


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("removed_at", When, nullable=True))
    with op.batch_alter_table("profile_tokens") as batch:
        batch.add_column(sa.Column("last_used_at", When, nullable=True))
    # a token in use before this migration counts as used now (not as idle since it was made)
    op.execute(sa.text("UPDATE profile_tokens SET last_used_at = CURRENT_TIMESTAMP"))


def downgrade() -> None:
    with op.batch_alter_table("profile_tokens") as batch:
        batch.drop_column("last_used_at")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("removed_at")
