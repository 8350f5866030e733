"""push: the server's VAPID key pair (push_keys) and the seats' Web Push
subscriptions (push_subscriptions, deleted with their seat)

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-03 08:10:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

When = sa.DateTime(timezone=True)
BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "push_keys",
        sa.Column("name", sa.String(16), nullable=False),
        sa.Column("private_key", sa.String(64), nullable=False),
        sa.Column("public_key", sa.String(100), nullable=False),
        sa.Column("created_at", When, nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_push_keys")),
    )
    op.create_table(
        "push_subscriptions",
        sa.Column("id", BigId, autoincrement=True, nullable=False),
        sa.Column("player_id", sa.String(32), nullable=False),
        sa.Column("endpoint", sa.String(1024), nullable=False),
        sa.Column("p256dh", sa.String(100), nullable=False),
        sa.Column("auth", sa.String(32), nullable=False),
        sa.Column("lang", sa.String(8), nullable=False),
        sa.Column("notified_version", sa.Integer(), server_default="0", nullable=False),
        sa.Column("created_at", When, nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_push_subscriptions_player_id_players"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_push_subscriptions")),
        sa.UniqueConstraint("player_id", "endpoint", name=op.f("uq_push_subscriptions_player_id_endpoint")),
    )


def downgrade() -> None:
    op.drop_table("push_subscriptions")
    op.drop_table("push_keys")
