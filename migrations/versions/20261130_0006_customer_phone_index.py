"""index customers by phone: after_sales_find_orders looks customers up by their mobile number

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30 09:00:00.000000
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("customers", schema=None) as batch_op:
        batch_op.create_index("ix_customers_phone", ["phone"], unique=False)


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("customers", schema=None) as batch_op:
        batch_op.drop_index("ix_customers_phone")
