"""rate buckets: each caller's read and write buckets, and each call's free answering rounds, shared by replicas

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-06 09:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    # Created on SQLite too, so every database has one schema; only PostgreSQL deployments write to it.
    op.create_table(
        "rate_buckets",
        sa.Column("world", sa.String(length=32), nullable=False),
        sa.Column("caller", sa.Text(), nullable=False),
        sa.Column("bucket", sa.Text(), nullable=False),
        sa.Column("tokens", sa.Float(), nullable=False),
        sa.Column("updated", sa.Float(), nullable=False),
        sa.Column("granted", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("world", "caller", "bucket", name=op.f("pk_rate_buckets")),
    )


def downgrade() -> None:
    """Revert this revision."""
    op.drop_table("rate_buckets")
