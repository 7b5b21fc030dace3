"""drop the idempotency fingerprint: written, never read (the stored arguments are compared instead)

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30 06:52:26.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    # Batch mode: SQLite drops a column by rebuilding the table; PostgreSQL runs a plain ALTER TABLE.
    with op.batch_alter_table("idempotency_records", schema=None) as batch_op:
        batch_op.drop_column("fingerprint")


def downgrade() -> None:
    """Revert this revision."""
    # Records written since the upgrade get an empty fingerprint; nothing ever read it.
    with op.batch_alter_table("idempotency_records", schema=None) as batch_op:
        batch_op.add_column(sa.Column("fingerprint", sa.String(length=64), nullable=False, server_default=""))
    with op.batch_alter_table("idempotency_records", schema=None) as batch_op:
        batch_op.alter_column("fingerprint", server_default=None)
