"""world incarnation: a nonce per creation, so a token of a dropped world is refused by a new one with its id

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01 09:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    # Worlds made before it keep "" (what tokens issued before it carry), so both go on working together.
    with op.batch_alter_table("worlds", schema=None) as batch_op:
        batch_op.add_column(sa.Column("incarnation", sa.String(length=32), server_default="", nullable=False))


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("worlds", schema=None) as batch_op:
        batch_op.drop_column("incarnation")
