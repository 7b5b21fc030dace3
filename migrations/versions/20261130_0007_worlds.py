"""worlds registry

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-30 07:10:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "worlds",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("source_kind", sa.String(length=16), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("location", sa.String(length=80), nullable=False),
        sa.Column("origin", sa.String(length=80), nullable=False),
        sa.Column("origin_owned", sa.Boolean(), nullable=False),
        sa.Column("anchor_day", sa.DateTime(timezone=True), nullable=False),
        sa.Column("clock_mode", sa.String(length=8), nullable=False),
        sa.Column("clock_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("clock_offset_us", sa.BigInteger(), nullable=False),
        sa.Column("start_mode", sa.String(length=8), nullable=False),
        sa.Column("start_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("deterministic", sa.Boolean(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("id_counter", sa.BigInteger(), nullable=False),
        sa.Column("id_counter_start", sa.BigInteger(), nullable=False),
        sa.CheckConstraint("state IN ('creating', 'ready')", name=op.f("ck_worlds_state")),
        sa.CheckConstraint(
            "source_kind IN ('baseline', 'dataset', 'database', 'world')", name=op.f("ck_worlds_source_kind")
        ),
        sa.CheckConstraint("clock_mode IN ('real', 'frozen', 'offset')", name=op.f("ck_worlds_clock_mode")),
        sa.CheckConstraint("start_mode IN ('real', 'frozen', 'offset')", name=op.f("ck_worlds_start_mode")),
        sa.CheckConstraint(
            "clock_mode <> 'frozen' OR clock_at IS NOT NULL", name=op.f("ck_worlds_frozen_clock_has_time")
        ),
        sa.CheckConstraint("id_counter >= id_counter_start", name=op.f("ck_worlds_id_counter_moves_forward")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_worlds")),
    )
    with op.batch_alter_table("worlds", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_worlds_last_used_at"), ["last_used_at"], unique=False)


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("worlds", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_worlds_last_used_at"))
    op.drop_table("worlds")
