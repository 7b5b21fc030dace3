"""tool call audit

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30 02:29:21.594253
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "tool_calls",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("called_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("caller", sa.String(length=64), nullable=False),
        sa.Column("tool", sa.String(length=64), nullable=False),
        sa.Column("arguments", sa.Text(), nullable=False),
        sa.Column("arguments_valid", sa.Boolean(), nullable=False),
        sa.Column("outcome", sa.String(length=16), nullable=False),
        sa.Column("error_kind", sa.String(length=32), nullable=True),
        sa.Column("input_round", sa.Integer(), nullable=False),
        sa.Column("replayed", sa.Boolean(), nullable=False),
        sa.Column("latency_ms", sa.Float(), nullable=False),
        sa.CheckConstraint(
            "outcome IN ('ok', 'tool_error', 'protocol_error', 'input_required')", name=op.f("ck_tool_calls_outcome")
        ),
        sa.CheckConstraint("latency_ms >= 0", name=op.f("ck_tool_calls_latency_non_negative")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tool_calls")),
    )
    with op.batch_alter_table("tool_calls", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_tool_calls_called_at"), ["called_at"], unique=False)
        batch_op.create_index("ix_tool_calls_tool_called_at", ["tool", "called_at"], unique=False)


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("tool_calls", schema=None) as batch_op:
        batch_op.drop_index("ix_tool_calls_tool_called_at")
        batch_op.drop_index(batch_op.f("ix_tool_calls_called_at"))

    op.drop_table("tool_calls")
