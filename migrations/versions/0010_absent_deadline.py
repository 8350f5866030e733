"""absent players: rooms.absent_deadline, when the person whose turn it is in
an untimed room, with no socket open, becomes away (the autopilot plays)

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-04 18:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("absent_deadline", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("absent_deadline")
