"""idempotency records and one open ticket per line

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30 02:06:44.801866
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "idempotency_records",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("caller", sa.String(length=64), nullable=False),
        sa.Column("tool", sa.String(length=64), nullable=False),
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("fingerprint", sa.String(length=64), nullable=False),
        sa.Column("arguments", sa.Text(), nullable=False),
        sa.Column("result", sa.Text(), nullable=True),
        sa.Column("ticket_id", sa.String(length=20), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["ticket_id"], ["tickets.id"], name=op.f("fk_idempotency_records_ticket_id_tickets")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_idempotency_records")),
        sa.UniqueConstraint("caller", "tool", "key", name=op.f("uq_idempotency_records_caller_tool_key")),
    )
    with op.batch_alter_table("idempotency_records", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_idempotency_records_expires_at"), ["expires_at"], unique=False)

    with op.batch_alter_table("tickets", schema=None) as batch_op:
        batch_op.create_index(
            "uq_tickets_open_order_line",
            ["order_id", "line_no"],
            unique=True,
            sqlite_where=sa.text("status NOT IN ('completed', 'rejected', 'cancelled')"),
            postgresql_where=sa.text("status NOT IN ('completed', 'rejected', 'cancelled')"),
        )


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("tickets", schema=None) as batch_op:
        batch_op.drop_index(
            "uq_tickets_open_order_line",
            sqlite_where=sa.text("status NOT IN ('completed', 'rejected', 'cancelled')"),
            postgresql_where=sa.text("status NOT IN ('completed', 'rejected', 'cancelled')"),
        )

    with op.batch_alter_table("idempotency_records", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_idempotency_records_expires_at"))

    op.drop_table("idempotency_records")
