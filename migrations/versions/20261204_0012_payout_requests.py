"""payout requests: cash-on-delivery orders, bank_transfer refunds, and the pages that take a refund's bank account

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-04 09:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PAYMENTS = "'card', 'wallet', 'gift_card'"
METHODS = "'original_payment', 'store_credit'"


def upgrade() -> None:
    """Apply this revision."""
    _checks(f"{PAYMENTS}, 'cash_on_delivery'", f"{METHODS}, 'bank_transfer'")
    op.create_table(
        "payout_requests",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("token_digest", sa.String(length=64), nullable=False),
        sa.Column("caller", sa.String(length=128), nullable=False),
        sa.Column("idempotency_key", sa.String(length=64), nullable=False),
        sa.Column("arguments", sa.Text(), nullable=False),
        sa.Column("order_id", sa.String(length=20), nullable=False),
        sa.Column("line_no", sa.Integer(), nullable=False),
        sa.Column("confirmation", sa.String(length=8), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("submitted_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("reference", sa.String(length=20), nullable=True),
        sa.Column("account_mask", sa.String(length=16), nullable=True),
        sa.Column("sealed", sa.Text(), nullable=True),
        sa.CheckConstraint(
            "status IN ('pending', 'submitted', 'used', 'closed')", name=op.f("ck_payout_requests_status")
        ),
        sa.CheckConstraint(
            "confirmation IS NULL OR confirmation IN ('person', 'host')", name=op.f("ck_payout_requests_confirmation")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_payout_requests")),
        sa.UniqueConstraint("caller", "idempotency_key", name=op.f("uq_payout_requests_caller_idempotency_key")),
        sa.UniqueConstraint("reference", name=op.f("uq_payout_requests_reference")),
        sa.UniqueConstraint("token_digest", name=op.f("uq_payout_requests_token_digest")),
    )
    op.create_index("ix_payout_requests_expires_at", "payout_requests", ["expires_at"], unique=False)


def downgrade() -> None:
    """Revert this revision (cash-on-delivery orders and bank_transfer tickets must be gone first)."""
    op.drop_index("ix_payout_requests_expires_at", table_name="payout_requests")
    op.drop_table("payout_requests")
    _checks(PAYMENTS, METHODS)


def _checks(payments: str, methods: str) -> None:
    """Replace the CHECK constraints that list the payment and refund methods."""
    with op.batch_alter_table("orders", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("ck_orders_payment_method"), type_="check")
        batch_op.create_check_constraint(op.f("ck_orders_payment_method"), f"payment_method IN ({payments})")
    with op.batch_alter_table("tickets", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("ck_tickets_refund_method"), type_="check")
        batch_op.create_check_constraint(
            op.f("ck_tickets_refund_method"), f"refund_method IS NULL OR refund_method IN ({methods})"
        )
