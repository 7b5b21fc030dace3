"""refund quotes

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30 02:01:44.748501
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "quotes",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("order_id", sa.String(length=20), nullable=False),
        sa.Column("line_no", sa.Integer(), nullable=False),
        sa.Column("quantity", sa.Integer(), nullable=False),
        sa.Column("reason_code", sa.String(length=24), nullable=False),
        sa.Column("currency", sa.String(length=3), nullable=False),
        sa.Column("item_amount_minor", sa.Integer(), nullable=False),
        sa.Column("restocking_fee_minor", sa.Integer(), nullable=False),
        sa.Column("shipping_refund_minor", sa.Integer(), nullable=False),
        sa.Column("total_minor", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "reason_code IN ('damaged', 'defective', 'wrong_item', 'not_as_described', 'missing_parts', 'no_longer_needed', 'late_delivery', 'other')",
            name=op.f("ck_quotes_reason_code"),
        ),
        sa.CheckConstraint("expires_at > created_at", name=op.f("ck_quotes_expires_after_creation")),
        sa.CheckConstraint("item_amount_minor >= 0", name=op.f("ck_quotes_item_amount_non_negative")),
        sa.CheckConstraint("quantity >= 1", name=op.f("ck_quotes_quantity_positive")),
        sa.CheckConstraint("restocking_fee_minor >= 0", name=op.f("ck_quotes_restocking_fee_non_negative")),
        sa.CheckConstraint("shipping_refund_minor >= 0", name=op.f("ck_quotes_shipping_refund_non_negative")),
        sa.CheckConstraint(
            "total_minor = item_amount_minor - restocking_fee_minor + shipping_refund_minor",
            name=op.f("ck_quotes_total_adds_up"),
        ),
        sa.ForeignKeyConstraint(
            ["order_id", "line_no"],
            ["order_lines.order_id", "order_lines.line_no"],
            name=op.f("fk_quotes_order_id_line_no_order_lines"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_quotes")),
    )
    with op.batch_alter_table("quotes", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_quotes_expires_at"), ["expires_at"], unique=False)


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("quotes", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_quotes_expires_at"))

    op.drop_table("quotes")
