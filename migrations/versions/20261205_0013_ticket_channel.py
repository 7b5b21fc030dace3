"""ticket channel: where a ticket was raised (app, web, miniprogram), and where each timeline event came from

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-05 09:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

CHANNELS = "'app', 'web', 'miniprogram'"


def upgrade() -> None:
    """Apply this revision."""
    # Rows made before it came from no known channel: NULL, which stats and metrics count as "unknown".
    for table in ("tickets", "ticket_events"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(sa.Column("channel", sa.String(length=16), nullable=True))
            batch_op.create_check_constraint(op.f(f"ck_{table}_channel"), f"channel IS NULL OR channel IN ({CHANNELS})")


def downgrade() -> None:
    """Revert this revision."""
    for table in ("ticket_events", "tickets"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_constraint(op.f(f"ck_{table}_channel"), type_="check")
            batch_op.drop_column("channel")
