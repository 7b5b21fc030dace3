"""world trace: every tool call made in a world, for `aftersales world trace`

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-30 12:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "trace",
        sa.Column("seq", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("caller", sa.String(length=64), nullable=False),
        sa.Column("tool", sa.String(length=64), nullable=False),
        sa.Column("outcome", sa.String(length=16), nullable=False),
        sa.Column("state_digest", sa.String(length=64), nullable=True),
        sa.Column("latency_ms", sa.Float(), nullable=False),
        sa.Column("entry", sa.Text(), nullable=False),
        sa.CheckConstraint(
            "outcome IN ('ok', 'tool_error', 'protocol_error', 'input_required')", name=op.f("ck_trace_outcome")
        ),
        sa.PrimaryKeyConstraint("seq", name=op.f("pk_trace")),
    )
    with op.batch_alter_table("trace", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_trace_state_digest"), ["state_digest"], unique=False)


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("trace", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_trace_state_digest"))
    op.drop_table("trace")
