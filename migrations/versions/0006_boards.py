"""boards: leaderboard indexes matched to their queries (covering, in the
boards' order), and period_ratings, each profile's rating as of its last
rated game in each month and ISO week (the month/week rating boards)

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02 17:10:00
"""

from collections.abc import Sequence
from datetime import UTC, timedelta

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

When = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.drop_index("ix_bests_board", table_name="bests")
    op.create_index(
        "ix_bests_board",
        "bests",
        ["ruleset", "period", "period_start", sa.desc(sa.column("score")), "achieved_at", "profile_id"],
        postgresql_include=["room_code", "game_number"],
    )
    op.drop_index("ix_ratings_board", table_name="ratings")
    op.create_index(
        "ix_ratings_board",
        "ratings",
        ["ruleset", "ordinal", "profile_id"],
        postgresql_include=["mu", "sigma", "games", "updated_at"],
    )
    period_ratings = op.create_table(
        "period_ratings",
        sa.Column("profile_id", sa.String(32), nullable=False),
        sa.Column("ruleset", sa.String(32), nullable=False),
        sa.Column("period", sa.String(8), nullable=False),
        sa.Column("period_start", sa.String(10), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("ordinal", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("updated_at", When, nullable=False),
        sa.ForeignKeyConstraint(
            ["profile_id"], ["profiles.id"], name=op.f("fk_period_ratings_profile_id_profiles"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("profile_id", "ruleset", "period", "period_start", name=op.f("pk_period_ratings")),
    )
    op.create_index(
        "ix_period_ratings_board",
        "period_ratings",
        ["ruleset", "period", "period_start", "ordinal", "profile_id"],
        postgresql_include=["mu", "sigma", "games", "updated_at"],
    )
    # From the rating history: each profile's rating after its last rated
    # game of each month and week, with its game count then.
    changes = sa.table(
        "rating_changes",
        sa.column("id", sa.BigInteger()),
        sa.column("profile_id", sa.String()),
        sa.column("ruleset", sa.String()),
        sa.column("mu", sa.Float()),
        sa.column("sigma", sa.Float()),
        sa.column("at", When),
    )
    rows: dict[tuple[str, str, str, str], dict[str, object]] = {}
    games: dict[tuple[str, str], int] = {}
    bind = op.get_bind()
    query = sa.select(changes.c.profile_id, changes.c.ruleset, changes.c.mu, changes.c.sigma, changes.c.at)
    for profile_id, ruleset, mu, sigma, at in bind.execute(query.order_by(changes.c.id)):
        games[profile_id, ruleset] = games.get((profile_id, ruleset), 0) + 1
        day = (at.astimezone(UTC) if at.tzinfo else at.replace(tzinfo=UTC)).date()
        for period, start in (("month", day.replace(day=1)), ("week", day - timedelta(days=day.weekday()))):
            rows[profile_id, ruleset, period, start.isoformat()] = {
                "profile_id": profile_id,
                "ruleset": ruleset,
                "period": period,
                "period_start": start.isoformat(),
                "mu": mu,
                "sigma": sigma,
                "ordinal": mu - 3 * sigma,
                "games": games[profile_id, ruleset],
                "updated_at": at if at.tzinfo else at.replace(tzinfo=UTC),
            }
    if rows:
        op.bulk_insert(period_ratings, list(rows.values()))


def downgrade() -> None:
    op.drop_index("ix_period_ratings_board", table_name="period_ratings")
    op.drop_table("period_ratings")
    op.drop_index("ix_ratings_board", table_name="ratings")
    op.create_index("ix_ratings_board", "ratings", ["ruleset", "ordinal"])
    op.drop_index("ix_bests_board", table_name="bests")
    op.create_index("ix_bests_board", "bests", ["ruleset", "period", "period_start", "score", "achieved_at"])
