"""security round two (issue 27): players.removed_at (the host removed the
seat: the same person cannot take a seat in the room again at once),
profile_tokens.last_used_at (tokens idle too long stop working), and
profile names made before the seat-name rules applied to them cleaned of
what those rules refuse (bidirectional controls, invisible characters,
blank letters, marks stacked on one character)

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-04 17:30:00
"""

import unicodedata
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

When = sa.DateTime(timezone=True)

_BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800\u034f")
_JOINERS = frozenset("\u200c\u200d")
MARKS = 5


def clean_name(name: str) -> str:
    """``name`` without what app/rooms/names.py refuses (as of this revision;
    tag characters all go, flags included), its marks at most 5 a character,
    or ``Player`` if nothing visible is left."""
    out: list[str] = []
    marks = 0
    for char in unicodedata.normalize("NFC", name):
        kind = unicodedata.category(char)
        if char in _BLANK or (kind in ("Cc", "Cf", "Cs", "Co", "Cn") and char not in _JOINERS):
            continue
        marks = marks + 1 if kind in ("Mn", "Me") else 0
        if marks > MARKS:
            continue
        out.append(char)
    text = " ".join("".join(out).split()).strip("\u200c\u200d ")[:64]
    return text if any(unicodedata.category(c)[0] in "LNSP" for c in text) else "Player"


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("removed_at", When, nullable=True))
    with op.batch_alter_table("profile_tokens") as batch:
        batch.add_column(sa.Column("last_used_at", When, nullable=True))
    # a token in use before this migration counts as used now (not as idle since it was made)
    op.execute(sa.text("UPDATE profile_tokens SET last_used_at = CURRENT_TIMESTAMP"))
    connection = op.get_bind()
    for profile_id, name in connection.execute(sa.text("SELECT id, name FROM profiles")).all():
        cleaned = clean_name(name)
        if cleaned != name:
            connection.execute(
                sa.text("UPDATE profiles SET name = :name WHERE id = :id"), {"name": cleaned, "id": profile_id}
            )


def downgrade() -> None:
    with op.batch_alter_table("profile_tokens") as batch:
        batch.drop_column("last_used_at")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("removed_at")
