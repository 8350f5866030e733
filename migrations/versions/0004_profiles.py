"""profiles: profiles, their tokens and credentials, seats linked to them, game
results that outlive rooms, personal bests, ratings and their history

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-03 10:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
When = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "profiles",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("created_at", When, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_profiles")),
    )
    op.create_table(
        "profile_tokens",
        sa.Column("id", BigId, autoincrement=True, nullable=False),
        sa.Column("profile_id", sa.String(32), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("created_at", When, nullable=False),
        sa.ForeignKeyConstraint(
            ["profile_id"], ["profiles.id"], name=op.f("fk_profile_tokens_profile_id_profiles"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_profile_tokens")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_profile_tokens_token_hash")),
    )
    op.create_index(op.f("ix_profile_tokens_profile_id"), "profile_tokens", ["profile_id"])
    op.create_table(
        "profile_credentials",
        sa.Column("profile_id", sa.String(32), nullable=False),
        sa.Column("username", sa.String(64), nullable=False),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("updated_at", When, nullable=False),
        sa.ForeignKeyConstraint(
            ["profile_id"], ["profiles.id"], name=op.f("fk_profile_credentials_profile_id_profiles"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("profile_id", name=op.f("pk_profile_credentials")),
        sa.UniqueConstraint("username", name=op.f("uq_profile_credentials_username")),
    )
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.add_column(sa.Column("profile_id", sa.String(32), nullable=True))
        batch_op.create_foreign_key(
            batch_op.f("fk_players_profile_id_profiles"), "profiles", ["profile_id"], ["id"], ondelete="SET NULL"
        )
        batch_op.create_index(batch_op.f("ix_players_profile_id"), ["profile_id"])
    op.create_table(
        "game_results",
        sa.Column("id", BigId, autoincrement=True, nullable=False),
        sa.Column("game_id", BigId, nullable=True),
        sa.Column("room_code", sa.String(12), nullable=False),
        sa.Column("game_number", sa.Integer(), nullable=False),
        sa.Column("ruleset", sa.String(32), nullable=False),
        sa.Column("player_id", sa.String(32), nullable=False),
        sa.Column("profile_id", sa.String(32), nullable=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("bot", sa.String(16), nullable=True),
        sa.Column("seats", sa.Integer(), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("place", sa.Integer(), nullable=False),
        sa.Column("won", sa.Boolean(), nullable=False),
        sa.Column("yahtzees", sa.Integer(), nullable=False),
        sa.Column("upper_bonus", sa.Boolean(), nullable=False),
        sa.Column("finished_at", When, nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_game_results_game_id_games"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["profile_id"], ["profiles.id"], name=op.f("fk_game_results_profile_id_profiles"), ondelete="SET NULL"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_game_results")),
        sa.UniqueConstraint("game_id", "player_id", name=op.f("uq_game_results_game_id_player_id")),
    )
    op.create_index("ix_game_results_profile_ruleset", "game_results", ["profile_id", "ruleset", "finished_at"])
    op.create_table(
        "bests",
        sa.Column("profile_id", sa.String(32), nullable=False),
        sa.Column("ruleset", sa.String(32), nullable=False),
        sa.Column("period", sa.String(8), nullable=False),
        sa.Column("period_start", sa.String(10), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("room_code", sa.String(12), nullable=False),
        sa.Column("game_number", sa.Integer(), nullable=False),
        sa.Column("achieved_at", When, nullable=False),
        sa.ForeignKeyConstraint(
            ["profile_id"], ["profiles.id"], name=op.f("fk_bests_profile_id_profiles"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("profile_id", "ruleset", "period", "period_start", name=op.f("pk_bests")),
    )
    op.create_index("ix_bests_board", "bests", ["ruleset", "period", "period_start", "score", "achieved_at"])
    op.create_table(
        "ratings",
        sa.Column("profile_id", sa.String(32), nullable=False),
        sa.Column("ruleset", sa.String(32), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("ordinal", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("updated_at", When, nullable=False),
        sa.ForeignKeyConstraint(
            ["profile_id"], ["profiles.id"], name=op.f("fk_ratings_profile_id_profiles"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("profile_id", "ruleset", name=op.f("pk_ratings")),
    )
    op.create_index("ix_ratings_board", "ratings", ["ruleset", "ordinal"])
    op.create_table(
        "rating_changes",
        sa.Column("id", BigId, autoincrement=True, nullable=False),
        sa.Column("profile_id", sa.String(32), nullable=False),
        sa.Column("ruleset", sa.String(32), nullable=False),
        sa.Column("room_code", sa.String(12), nullable=False),
        sa.Column("game_number", sa.Integer(), nullable=False),
        sa.Column("mu_before", sa.Float(), nullable=False),
        sa.Column("sigma_before", sa.Float(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("at", When, nullable=False),
        sa.ForeignKeyConstraint(
            ["profile_id"], ["profiles.id"], name=op.f("fk_rating_changes_profile_id_profiles"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rating_changes")),
    )
    op.create_index("ix_rating_changes_profile", "rating_changes", ["profile_id", "ruleset", "id"])


def downgrade() -> None:
    op.drop_table("rating_changes")
    op.drop_table("ratings")
    op.drop_table("bests")
    op.drop_table("game_results")
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_players_profile_id"))
        batch_op.drop_constraint(batch_op.f("fk_players_profile_id_profiles"), type_="foreignkey")
        batch_op.drop_column("profile_id")
    op.drop_table("profile_credentials")
    op.drop_table("profile_tokens")
    op.drop_table("profiles")
